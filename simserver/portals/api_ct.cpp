// PtlCTAlloc, PtlCTFree, PtlCTGet, PtlCTWait, PtlCTPoll, PtlCTSet and
// PtlCTInc: counting events, reading them (an unchanged reading is an empty
// poll, api_polls.cpp) and updating them, which may release triggered
// operations.
#include "api.hpp"

#include "../job/rank_memory.hpp"
#include "../trace/kinds.hpp"
#include "api_internal.hpp"
#include "api_waits.hpp"
#include "triggered.hpp"
#include "../engine_clock.hpp"

#include <algorithm>

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;

using detail::block_until;
using detail::created;
using detail::ct_readiness;
using detail::deadline_after_ms;
using detail::find_ni;
using detail::find_object;
using detail::first_ready;
using detail::freed;
using detail::kForever;
using detail::read_handles;
using detail::status;

Reply Api::ct_alloc(RankPortals& rank, ipc::Handle ni_handle)
{
  NetworkInterface* ni = find_ni(rank, ni_handle);
  if (ni == nullptr)
    return status(Status::ArgInvalid);
  return created(ni->cts, CountingEvent{}, HandleKind::CT, ni->slot);
}

Reply Api::ct_free(RankPortals& rank, ipc::Handle handle)
{
  NetworkInterface* ni = nullptr;
  if (CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts, &ni))
    cancel_triggered(rank, *ni, *counter); // they can never be released now
  return freed(rank, handle, HandleKind::CT, &NetworkInterface::cts);
}

Reply Api::ct_get(RankPortals& rank, ipc::Handle handle)
{
  CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts);
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  // A reading is an empty poll unless the counter moved since the streak
  // began watching it.
  if (counter_changed_in_streak(rank, handle)) {
    end_poll_streak(rank);
  } else {
    charge_empty_poll(rank, HandleKind::CT, std::span(&handle, 1));
    if (counter_changed_in_streak(rank, handle))
      end_poll_streak(rank);
  }
  counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts);
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  reply.result.ct = counter->at(sim_now());
  return reply;
}

Reply Api::ct_wait(RankPortals& rank, const ipc::CTWaitArgs& args)
{
  auto find = [&] { return find_object(rank, args.ct, HandleKind::CT, &NetworkInterface::cts); };
  if (find() == nullptr)
    return status(Status::ArgInvalid);
  const double start = sim_now();
  block_until(rank, kForever, [&] { return ct_readiness(find(), args.test); });
  charge_blocked(rank, trace::Kind::Wait, start, "PtlCTWait");
  if (aborted(rank))
    return status(Status::Aborted);
  CountingEvent* counter = find();
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  reply.result.ct = counter->at(sim_now());
  return reply;
}

Reply Api::ct_poll(RankPortals& rank, const ipc::PollArgs& args)
{
  std::vector<ipc::Handle> handles;
  if (args.size == 0 || not read_handles(rank, args, handles))
    return status(Status::ArgInvalid);
  std::vector<uint64_t> tests(args.size);
  if (args.is_inline != 0) // (read_handles checked the size)
    std::copy_n(args.inline_tests, args.size, tests.begin());
  else if (not job::read_rank_memory(rank.os_pid, args.tests_address, tests.data(), tests.size() * sizeof(uint64_t)))
    return status(Status::ArgInvalid);
  for (auto handle : handles)
    if (find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts) == nullptr)
      return status(Status::ArgInvalid);
  int found = -1;
  auto check = [&] {
    return first_ready(handles.size(), found, [&](size_t i) {
      return ct_readiness(find_object(rank, handles[i], HandleKind::CT, &NetworkInterface::cts), tests[i]);
    });
  };
  const double start = sim_now();
  bool ready = args.timeout_ms == 0 ? check().ready : block_until(rank, deadline_after_ms(args.timeout_ms), check);
  charge_blocked(rank, trace::Kind::Wait, start, "PtlCTPoll");
  if (not ready && args.timeout_ms == 0) {
    charge_empty_poll(rank, HandleKind::CT, handles);
    ready = check().ready;
  }
  if (not ready && aborted(rank))
    return status(Status::Aborted);
  if (not ready)
    return status(Status::CtNoneReached);
  end_poll_streak(rank);
  CountingEvent* counter = find_object(rank, handles[found], HandleKind::CT, &NetworkInterface::cts);
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  reply.result.ct = counter->at(sim_now());
  reply.which = static_cast<uint32_t>(found);
  return reply;
}

Reply Api::ct_update(RankPortals& rank, const ipc::CTUpdateArgs& args, bool increment)
{
  NetworkInterface* ni = nullptr;
  CountingEvent* counter = find_object(rank, args.ct, HandleKind::CT, &NetworkInterface::cts, &ni);
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  if (increment && args.value.success != 0 && args.value.failure != 0)
    return status(Status::ArgInvalid); // the spec allows incrementing one of the two only
  auto& value = const_cast<ipc::CTEvent&>(counter->at(sim_now()));
  if (increment) {
    value.success += args.value.success;
    value.failure += args.value.failure;
  } else {
    value = args.value;
  }
  rank.notify();
  release_triggered(rank, *ni, *counter);
  return status(Status::Ok);
}

} // namespace s4bxi::portals
