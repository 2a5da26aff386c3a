// PtlEQAlloc, PtlEQFree, PtlEQGet, PtlEQWait and PtlEQPoll: event queues,
// and reading them (an empty read is an empty poll, api_polls.cpp).
#include "api.hpp"

#include "../trace/kinds.hpp"
#include "api_internal.hpp"
#include "api_waits.hpp"
#include "../engine_clock.hpp"

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;

using detail::block_until;
using detail::created;
using detail::deadline_after_ms;
using detail::eq_readiness;
using detail::find_ni;
using detail::find_object;
using detail::first_ready;
using detail::freed;
using detail::kForever;
using detail::pop_event;
using detail::read_handles;
using detail::status;

Reply Api::eq_alloc(RankPortals& rank, const ipc::EQAllocArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.count == 0)
    return status(Status::ArgInvalid);
  EventQueue queue;
  queue.capacity = args.count;
  return created(ni->eqs, std::move(queue), HandleKind::EQ, ni->slot);
}

Reply Api::eq_free(RankPortals& rank, ipc::Handle handle)
{
  return freed(rank, handle, HandleKind::EQ, &NetworkInterface::eqs);
}

Reply Api::eq_get(RankPortals& rank, ipc::Handle handle, bool wait)
{
  auto find = [&] { return find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs); };
  if (find() == nullptr)
    return status(Status::ArgInvalid);
  if (wait) {
    const double start = sim_now();
    const bool ready = block_until(rank, kForever, [&] { return eq_readiness(find()); });
    charge_blocked(rank, trace::Kind::Wait, start, "PtlEQWait");
    if (aborted(rank))
      return status(Status::Aborted);
    // Its process ended meanwhile (another of its threads exited it): there
    // is no event to take (and nobody to answer).
    if (not ready)
      return status(Status::EqEmpty);
  } else if (not eq_readiness(find(), rank.time()).ready) {
    charge_empty_poll(rank, HandleKind::EQ, std::span(&handle, 1));
    if (not eq_readiness(find(), rank.time()).ready) // (a block may leave the rank's time ahead)
      return status(Status::EqEmpty);
  }
  EventQueue* queue = find();
  if (queue == nullptr) // freed while we waited
    return status(Status::ArgInvalid);
  end_poll_streak(rank);
  return pop_event(*queue);
}

Reply Api::eq_poll(RankPortals& rank, const ipc::PollArgs& args)
{
  std::vector<ipc::Handle> handles;
  if (args.size == 0 || not read_handles(rank, args, handles))
    return status(Status::ArgInvalid);
  for (auto handle : handles)
    if (find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs) == nullptr)
      return status(Status::ArgInvalid);
  // (A zero timeout polls at the rank's time, which the replays before it
  // may have left ahead of the clock: RankProxy::serve.)
  int found = -1;
  auto check = [&] {
    return first_ready(handles.size(), found, [&](size_t i) {
      return eq_readiness(find_object(rank, handles[i], HandleKind::EQ, &NetworkInterface::eqs), rank.time());
    });
  };
  const double start = sim_now();
  bool ready = args.timeout_ms == 0 ? check().ready : block_until(rank, deadline_after_ms(args.timeout_ms), check);
  charge_blocked(rank, trace::Kind::Wait, start, "PtlEQPoll");
  if (not ready && args.timeout_ms == 0) {
    charge_empty_poll(rank, HandleKind::EQ, handles);
    ready = check().ready;
  }
  if (not ready && aborted(rank))
    return status(Status::Aborted);
  if (not ready)
    return status(Status::EqEmpty);
  EventQueue* queue = find_object(rank, handles[found], HandleKind::EQ, &NetworkInterface::eqs);
  if (queue == nullptr)
    return status(Status::ArgInvalid);
  end_poll_streak(rank);
  Reply reply = pop_event(*queue);
  reply.which = static_cast<uint32_t>(found);
  return reply;
}

} // namespace s4bxi::portals
