#include "api.hpp"

#include "../job/rank_memory.hpp"
#include "../model_options.hpp"
#include "../nic/nic.hpp"
#include "../trace/recorder.hpp"
#include "api_internal.hpp"
#include "event_delivery.hpp"
#include "memory_region.hpp"
#include "triggered.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_portals, "Portals calls handled by the server");

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;
using namespace ipc::option;

using detail::created;
using detail::find_ni;
using detail::find_object;
using detail::status;
using detail::valid_optional;

namespace {

constexpr uint32_t kPidAny = 0xFFFF;
constexpr double kForever = std::numeric_limits<double>::infinity();
constexpr double kTimeResolution = 1e-9; // SimGrid's numerical accuracy for timeouts

uint32_t slot_of(bool matching, bool logical)
{
  return (matching ? 0U : 1U) | (logical ? 0U : 2U);
}

// Feature bits of ptl_ni_limits_t: the same in every flavour of portals4.h
// (tests/unit/abi_layout_*.c), which the preload copies as they are.
constexpr uint32_t kTargetBindInaccessible = 0x1;
constexpr uint32_t kTotalDataOrdering = 0x2;

// The limits an NI of this node can have: generous where only tables are at
// stake, but finite so that programs that size their tables from them behave;
// what depends on the NIC model is the model's.
ipc::NILimits our_limits(const nic::Nic& nic, bool matching)
{
  ipc::NILimits limits{};
  limits.max_entries = 1 << 20;
  limits.max_unexpected_headers = 1 << 16;
  limits.max_mds = 1 << 20;
  limits.max_cts = 1 << 16;
  limits.max_eqs = 1 << 16;
  limits.max_pt_index = 255;
  limits.max_iovecs = 1024;
  limits.max_list_size = 1 << 20;
  limits.max_triggered_ops = 1 << 16;
  limits.max_msg_size = 1ULL << 32;
  limits.max_atomic_size = 512;
  limits.max_fetch_atomic_size = 512;
  limits.max_waw_ordered_size = 64;
  limits.max_war_ordered_size = 64;
  // A payload up to the PIO limit is in the command by the time the call
  // returns (Api::issue reads it then), so the program may reuse its buffer at
  // once; a larger one is read by DMA later, while the program runs on.
  const auto& node = nic.parameters();
  limits.max_volatile_size = matching ? node.pio_limit_matching : node.pio_limit_plain;
  // An entry may cover memory the process has not mapped (SOS binds the whole
  // address space): a message that reaches such memory fails with
  // PTL_NI_SEGV, as a NIC's address translation would.
  limits.features = kTargetBindInaccessible;
  // The NICs handle the messages between two of them in the order they were
  // issued (nic.hpp, inbox), unless one is lost and sent again after later ones.
  if (not nic.may_lose_messages())
    limits.features |= kTotalDataOrdering;
  return limits;
}

// What PtlNIInit grants: as Sandia's reference implementation, each desired
// limit within what the NI can have (0 and anything larger get the most), and
// the desired features it has. Without desired limits, the most of each and
// no feature (the program asked for none).
ipc::NILimits granted_limits(const ipc::NILimits* desired, const nic::Nic& nic, bool matching)
{
  ipc::NILimits ours = our_limits(nic, matching);
  ipc::NILimits granted = ours;
  if (desired == nullptr) {
    granted.features = 0;
    return granted;
  }
  auto take = [](auto wish, auto have) { return wish > 0 && wish < have ? wish : have; };
  granted.max_entries = take(desired->max_entries, ours.max_entries);
  granted.max_unexpected_headers = take(desired->max_unexpected_headers, ours.max_unexpected_headers);
  granted.max_mds = take(desired->max_mds, ours.max_mds);
  granted.max_cts = take(desired->max_cts, ours.max_cts);
  granted.max_eqs = take(desired->max_eqs, ours.max_eqs);
  granted.max_pt_index = take(desired->max_pt_index, ours.max_pt_index);
  granted.max_list_size = take(desired->max_list_size, ours.max_list_size);
  granted.max_iovecs = take(desired->max_iovecs, ours.max_iovecs);
  granted.max_triggered_ops = take(desired->max_triggered_ops, ours.max_triggered_ops);
  granted.max_msg_size = take(desired->max_msg_size, ours.max_msg_size);
  granted.max_atomic_size = take(desired->max_atomic_size, ours.max_atomic_size);
  granted.max_fetch_atomic_size = take(desired->max_fetch_atomic_size, ours.max_fetch_atomic_size);
  granted.max_volatile_size = take(desired->max_volatile_size, ours.max_volatile_size);
  granted.features = desired->features & ours.features;
  return granted;
}

// Result of looking at a waited-for object: ready, or the earliest time at
// which something already on its way will land.
struct Readiness {
  bool ready = false;
  double next_landing = kForever;
};

// What is left of the poll period in which `end` falls, the periods counted
// from `start`: a blocked poll stands for polls, each of which costs a
// period. (Nothing when less than SimGrid's resolution is left: it cannot
// sleep that, and warns.)
double rest_of_poll_period(double start, double end, double period)
{
  const double blocked = end - start;
  const double extra = std::ceil(blocked / period) * period - blocked;
  return extra > kTimeResolution ? extra : 0.0;
}

// A blocked poll's periods: when it ends on a landing, it ends at the end of
// that landing's period, in one sleep instead of a sleep to the landing and
// another to the period's end (each sleep is a scheduling round of the
// engine).
struct PollPeriods {
  double start = 0.0;
  double period = 0.0;
  bool ended_on_period = false; // set when the block ended at a period's end
};

// Blocks the calling proxy until `check` says ready or `deadline` passes.
// A PtlAbort ends the wait early (false; the caller tells it by aborted()).
template <class Check>
bool block_until(RankPortals& rank, double deadline, Check check, PollPeriods* periods = nullptr)
{
  std::unique_lock lock(*rank.mutex);
  while (true) {
    if (aborted(rank))
      return false;
    Readiness r = check();
    if (r.ready)
      return true;
    double now = s4u::Engine::get_clock();
    if (now >= deadline - kTimeResolution)
      return false; // (a residue below SimGrid's resolution is no time left)
    double wake = std::min(r.next_landing, deadline);
    rank.expect_long_wait();
    if (periods != nullptr)
      periods->ended_on_period = false;
    if (std::isinf(r.next_landing)) {
      // Nothing on its way yet: whatever comes notifies us (up to the deadline).
      if (std::isinf(deadline))
        rank.changed->wait(lock);
      else
        rank.changed->wait_until(lock, deadline);
    } else {
      // Something lands at `wake` at the latest (landings are in arrival
      // order): a plain sleep is cheaper than a condition wait with timeout.
      // (At least twice SimGrid's resolution: a landing a rounding error away
      // would otherwise be a sleep SimGrid cannot do.)
      double until = std::max(wake, now + 2 * kTimeResolution);
      const bool rounded = periods != nullptr && periods->period > 0 && until < deadline;
      if (rounded)
        until += rest_of_poll_period(periods->start, until, periods->period);
      lock.unlock();
      s4u::this_actor::sleep_until(until);
      lock.lock();
      if (periods != nullptr)
        periods->ended_on_period = rounded;
    }
  }
}

// Whether a queue has an event landed at `at` (by default now).
Readiness eq_readiness(EventQueue* queue, double at = -1)
{
  if (queue == nullptr)
    return {true, kForever}; // freed meanwhile: let the caller report it
  if (queue->events.empty())
    return {false, kForever};
  double landing = queue->events.front().visible_at;
  return {landing <= (at < 0 ? s4u::Engine::get_clock() : at), landing};
}

Readiness ct_readiness(CountingEvent* counter, uint64_t test)
{
  if (counter == nullptr)
    return {true, kForever};
  const auto& value = counter->at(s4u::Engine::get_clock());
  if (value.success + value.failure >= test)
    return {true, kForever};
  return {false, counter->pending.empty() ? kForever : counter->pending.front().visible_at};
}

// Frees the EQ or CT named by `handle`; its waiters must see that it is gone.
template <class T>
Reply freed(RankPortals& rank, ipc::Handle handle, HandleKind kind, SlotTable<T> NetworkInterface::*table)
{
  NetworkInterface* ni = nullptr;
  if (find_object(rank, handle, kind, table, &ni) == nullptr)
    return status(Status::ArgInvalid);
  (ni->*table).erase(decode_handle(handle)->index);
  rank.notify();
  return status(Status::Ok);
}

// Polls over several objects: the first ready one (its index in `found`), or
// the earliest landing among those with something on its way.
template <class ReadinessOf> Readiness first_ready(size_t count, int& found, ReadinessOf readiness_of)
{
  Readiness overall{false, kForever};
  for (size_t i = 0; i < count; ++i) {
    Readiness r = readiness_of(i);
    if (r.ready) {
      found = static_cast<int>(i);
      return r;
    }
    overall.next_landing = std::min(overall.next_landing, r.next_landing);
  }
  return overall;
}

Reply pop_event(EventQueue& queue)
{
  Reply reply{};
  reply.result.event = queue.events.front().event;
  queue.events.pop_front();
  reply.status = queue.dropped ? Status::EqDropped : Status::Ok;
  queue.dropped = false;
  return reply;
}

// Accounts for the time `rank` spent blocked since `start`: waiting (a wait
// call, a poll with a timeout, a sleep) or polling (empty polls).

double deadline_after_ms(int64_t timeout_ms)
{
  return timeout_ms < 0 ? kForever : s4u::Engine::get_clock() + static_cast<double>(timeout_ms) * 1e-3;
}

// A logical NI's map: at most this many entries (PTL_NO_SPACE beyond: the
// server would have to hold them), each a ptl_process_t, 8 bytes in every ABI
// (a few more allowed for padding).
constexpr uint64_t kMaxMapEntries = 1U << 24;
constexpr uint64_t kMaxMapEntrySize = 64;

// Reads an array of handles from the rank (PtlEQPoll/PtlCTPoll): the low 32
// bits of each element are the handle in every ABI we serve.
bool read_handles(const RankPortals& rank, const ipc::PollArgs& args, std::vector<ipc::Handle>& out)
{
  if (args.handle_size != 4 && args.handle_size != 8)
    return false;
  // No more handles than the rank's NIs can have objects: a larger size is
  // a wrong argument, not an allocation to attempt.
  uint64_t objects = 0;
  for (const auto& ni : rank.nis)
    if (ni)
      objects += static_cast<uint64_t>(std::max(ni->limits.max_eqs, 0)) +
                 static_cast<uint64_t>(std::max(ni->limits.max_cts, 0));
  if (args.size > objects)
    return false;
  std::vector<unsigned char> raw(static_cast<size_t>(args.size) * args.handle_size);
  if (not job::read_rank_memory(rank.os_pid, args.handles_address, raw.data(), raw.size()))
    return false;
  out.resize(args.size);
  for (uint32_t i = 0; i < args.size; ++i) {
    uint64_t value = 0;
    std::memcpy(&value, raw.data() + static_cast<size_t>(i) * args.handle_size, args.handle_size);
    out[i] = static_cast<ipc::Handle>(value);
  }
  return true;
}

} // namespace

void Api::charge_blocked(RankPortals& rank, trace::Kind kind, double start, const char* what)
{
  charge_blocked(rank, kind, start, s4u::Engine::get_clock(), what);
}

void Api::charge_blocked(RankPortals& rank, trace::Kind kind, double start, double end, const char* what)
{
  if (end <= start)
    return;
  (kind == trace::Kind::Poll ? rank.stats.poll_s : rank.stats.wait_s) += end - start;
  if (trace::active != nullptr)
    trace::active->record({.kind = kind,
                           .node = rank.node,
                           .rank = static_cast<int>(rank.rank),
                           .start = start,
                           .end = end,
                           .what = what});
}

const char* Api::call_name(ipc::Op op)
{
  switch (op) {
    case ipc::Op::Hello: return "startup";
    case ipc::Op::Exit: return "exit";
    case ipc::Op::Noop: return "no-op";
    case ipc::Op::Sync: return "running without calls";
    case ipc::Op::Sleep: return "sleep";
    case ipc::Op::Init: return "PtlInit";
    case ipc::Op::Fini: return "PtlFini";
    case ipc::Op::NIInit: return "PtlNIInit";
    case ipc::Op::NIFini: return "PtlNIFini";
    case ipc::Op::NIStatus: return "PtlNIStatus";
    case ipc::Op::GetId: return "PtlGetId";
    case ipc::Op::GetPhysId: return "PtlGetPhysId";
    case ipc::Op::GetUid: return "PtlGetUid";
    case ipc::Op::SetMap: return "PtlSetMap";
    case ipc::Op::GetMap: return "PtlGetMap";
    case ipc::Op::PTAlloc: return "PtlPTAlloc";
    case ipc::Op::PTFree: return "PtlPTFree";
    case ipc::Op::PTEnable: return "PtlPTEnable";
    case ipc::Op::PTDisable: return "PtlPTDisable";
    case ipc::Op::MDBind: return "PtlMDBind";
    case ipc::Op::MDRelease: return "PtlMDRelease";
    case ipc::Op::Append: return "PtlMEAppend/PtlLEAppend";
    case ipc::Op::Unlink: return "PtlMEUnlink/PtlLEUnlink";
    case ipc::Op::EQAlloc: return "PtlEQAlloc";
    case ipc::Op::EQFree: return "PtlEQFree";
    case ipc::Op::EQGet: return "PtlEQGet";
    case ipc::Op::EQWait: return "PtlEQWait";
    case ipc::Op::EQPoll: return "PtlEQPoll";
    case ipc::Op::CTAlloc: return "PtlCTAlloc";
    case ipc::Op::CTFree: return "PtlCTFree";
    case ipc::Op::CTGet: return "PtlCTGet";
    case ipc::Op::CTWait: return "PtlCTWait";
    case ipc::Op::CTPoll: return "PtlCTPoll";
    case ipc::Op::CTSet: return "PtlCTSet";
    case ipc::Op::CTInc: return "PtlCTInc";
    case ipc::Op::Put: return "PtlPut";
    case ipc::Op::Get: return "PtlGet";
    case ipc::Op::NIHandle: return "PtlNIHandle";
    case ipc::Op::Atomic: return "PtlAtomic";
    case ipc::Op::FetchAtomic: return "PtlFetchAtomic";
    case ipc::Op::Swap: return "PtlSwap";
    case ipc::Op::AtomicSync: return "PtlAtomicSync";
    case ipc::Op::TriggeredPut: return "PtlTriggeredPut";
    case ipc::Op::TriggeredGet: return "PtlTriggeredGet";
    case ipc::Op::TriggeredAtomic: return "PtlTriggeredAtomic";
    case ipc::Op::TriggeredFetchAtomic: return "PtlTriggeredFetchAtomic";
    case ipc::Op::TriggeredSwap: return "PtlTriggeredSwap";
    case ipc::Op::TriggeredCTInc: return "PtlTriggeredCTInc";
    case ipc::Op::TriggeredCTSet: return "PtlTriggeredCTSet";
    case ipc::Op::CTCancelTriggered: return "PtlCTCancelTriggered";
    case ipc::Op::Search: return "PtlMESearch/PtlLESearch";
    case ipc::Op::StartBundle: return "PtlStartBundle";
    case ipc::Op::EndBundle: return "PtlEndBundle";
    case ipc::Op::Count_: break;
  }
  return "unknown call";
}

Reply Api::handle(RankPortals& rank, const ipc::Request& request)
{
  const double start = s4u::Engine::get_clock();
  Reply reply = handle_call(rank, request);
  // One line a call (--log=s4bxi_portals.thres:verbose): the sequence of calls
  // a program makes, what each returned and the simulated time it took.
  XBT_VERB("rank %u %s -> status %d, event %d, %.0f ns", rank.rank, call_name(request.op),
            static_cast<int>(reply.status), static_cast<int>(reply.result.event.type),
            (s4u::Engine::get_clock() - start) * 1e9);
  return reply;
}

Reply Api::handle_call(RankPortals& rank, const ipc::Request& request)
{
  const bool poll = request.op == ipc::Op::EQGet || request.op == ipc::Op::EQPoll || request.op == ipc::Op::CTGet ||
                    request.op == ipc::Op::CTPoll;
  // Blocking on a poll streak stands for polls that only poll: any other call,
  // or real work between two polls, means the program does more than poll.
  // The few microseconds of CPU a progress loop spends around each poll (and
  // the noise of measuring them) are not work.
  // Compute is no progress for the deadlock count, though: it changes
  // nothing that any rank polls (and a loaded machine makes a few of a
  // progress loop's gaps exceed the threshold: resetting the count on them
  // kept a 3,000-poll deadlock from being reported for minutes).
  if (not poll)
    end_poll_streak(rank);
  else if (request.compute_ns > ipc::kWorkBetweenPollsNs)
    end_poll_streak(rank, false);
  // The calls PtlAbort ends (portals/abort_watch.hpp).
  if (request.op == ipc::Op::EQWait || request.op == ipc::Op::EQPoll || request.op == ipc::Op::CTWait ||
      request.op == ipc::Op::CTPoll) {
    const bool poll = request.op == ipc::Op::EQPoll || request.op == ipc::Op::CTPoll;
    const bool deadline = poll && request.args.poll.timeout_ms > 0; // (negative: forever)
    const bool blocks = not poll || request.args.poll.timeout_ms != 0;
    abort_watch_.began(rank, request.abort_epoch, blocks, deadline);
    if (rank.abort_counted)
      poll_sentinel_.arm();
    Reply reply = aborted(rank) ? status(Status::Aborted) : dispatch(rank, request);
    abort_watch_.ended(rank);
    return reply;
  }
  return dispatch(rank, request);
}

Reply Api::dispatch(RankPortals& rank, const ipc::Request& request)
{
  const auto& a = request.args;
  switch (request.op) {
    case ipc::Op::Noop: return status(Status::Ok);
    case ipc::Op::Sync: return status(Status::Ok); // its compute was injected by the proxy
    case ipc::Op::Sleep: return sleep(rank, a.sleep);
    case ipc::Op::Init:
      rank.init_count++;
      return status(Status::Ok);
    case ipc::Op::Fini:
      if (rank.init_count > 0 && --rank.init_count == 0)
        for (auto& ni : rank.nis)
          ni.reset();
      return status(Status::Ok);
    default: break;
  }
  if (rank.init_count == 0)
    return status(Status::NoInit);
  switch (request.op) {
    case ipc::Op::NIInit: return ni_init(rank, a.ni_init);
    case ipc::Op::NIFini: return ni_fini(rank, a.handle.handle);
    case ipc::Op::NIStatus: return ni_status(rank, a.ni_status);
    case ipc::Op::GetId: return get_id(rank, a.handle.handle, false);
    case ipc::Op::GetPhysId: return get_id(rank, a.handle.handle, true);
    case ipc::Op::GetUid: {
      if (find_ni(rank, a.handle.handle) == nullptr)
        return status(Status::ArgInvalid);
      Reply reply = status(Status::Ok);
      reply.result.value = rank.uid;
      return reply;
    }
    case ipc::Op::SetMap: return set_map(rank, a.map);
    case ipc::Op::GetMap: return get_map(rank, a.map);
    case ipc::Op::PTAlloc: return pt_alloc(rank, a.pt_alloc);
    case ipc::Op::PTFree: return pt_free(rank, a.pt);
    case ipc::Op::PTEnable: return pt_enable(rank, a.pt, true);
    case ipc::Op::PTDisable: return pt_enable(rank, a.pt, false);
    case ipc::Op::MDBind: return md_bind(rank, a.md_bind);
    case ipc::Op::MDRelease: return md_release(rank, a.handle.handle);
    case ipc::Op::Append: return append(rank, a.append);
    case ipc::Op::Unlink: return unlink(rank, a.handle.handle);
    case ipc::Op::EQAlloc: return eq_alloc(rank, a.eq_alloc);
    case ipc::Op::EQFree: return eq_free(rank, a.handle.handle);
    case ipc::Op::EQGet: return eq_get(rank, a.handle.handle, false);
    case ipc::Op::EQWait: return eq_get(rank, a.handle.handle, true);
    case ipc::Op::EQPoll: return eq_poll(rank, a.poll);
    case ipc::Op::CTAlloc: return ct_alloc(rank, a.handle.handle);
    case ipc::Op::CTFree: return ct_free(rank, a.handle.handle);
    case ipc::Op::CTGet: return ct_get(rank, a.handle.handle);
    case ipc::Op::CTWait: return ct_wait(rank, a.ct_wait);
    case ipc::Op::CTPoll: return ct_poll(rank, a.poll);
    case ipc::Op::CTSet: return ct_update(rank, a.ct_update, false);
    case ipc::Op::CTInc: return ct_update(rank, a.ct_update, true);
    case ipc::Op::Put: return put(rank, a.put);
    case ipc::Op::Get: return get(rank, a.get);
    case ipc::Op::Atomic: return atomic(rank, a.atomic, Operation::Atomic, false);
    case ipc::Op::FetchAtomic: return atomic(rank, a.atomic, Operation::FetchAtomic, false);
    case ipc::Op::Swap: return atomic(rank, a.atomic, Operation::FetchAtomic, true);
    case ipc::Op::AtomicSync:
      // Every atomic operation is applied by the server in one go while no
      // rank runs (serialized execution), straight into the rank's memory:
      // there is never a NIC-side cached value for the host to wait for.
      return status(Status::Ok);
    case ipc::Op::TriggeredPut: return triggered_put(rank, a.triggered_put);
    case ipc::Op::TriggeredGet: return triggered_get(rank, a.triggered_get);
    case ipc::Op::TriggeredAtomic: return triggered_atomic(rank, a.triggered_atomic, Operation::Atomic, false);
    case ipc::Op::TriggeredFetchAtomic:
      return triggered_atomic(rank, a.triggered_atomic, Operation::FetchAtomic, false);
    case ipc::Op::TriggeredSwap: return triggered_atomic(rank, a.triggered_atomic, Operation::FetchAtomic, true);
    case ipc::Op::TriggeredCTInc: return triggered_ct(rank, a.triggered_ct, true);
    case ipc::Op::TriggeredCTSet: return triggered_ct(rank, a.triggered_ct, false);
    case ipc::Op::CTCancelTriggered: return ct_cancel_triggered(rank, a.handle.handle);
    case ipc::Op::Search: return search(rank, a.search);
    case ipc::Op::StartBundle:
    case ipc::Op::EndBundle:
      // A hint that operations come in a burst: the model has no per-command
      // fence to save, so only the NI is checked.
      return status(find_ni(rank, a.handle.handle) != nullptr ? Status::Ok : Status::ArgInvalid);
    case ipc::Op::NIHandle: {
      auto decoded = decode_handle(a.handle.handle);
      if (not decoded || rank.ni(decoded->ni) == nullptr)
        return status(Status::ArgInvalid);
      Reply reply = status(Status::Ok);
      reply.result.handle = encode_handle(HandleKind::NI, decoded->ni, 0);
      return reply;
    }
    default: return status(Status::ArgInvalid);
  }
}

Reply Api::sleep(RankPortals& rank, const ipc::SleepArgs& args)
{
  const double start = s4u::Engine::get_clock();
  // (not_before went through the caller's nanosecond clock: a difference of
  // that rounding is no difference.)
  double end = start + args.seconds;
  if (args.not_before > end + 2 * kTimeResolution)
    end = args.not_before;
  if (end - start > kTimeResolution) {
    rank.expect_long_wait();
    s4u::this_actor::sleep_until(end);
    charge_blocked(rank, trace::Kind::Wait, start, "sleep");
  }
  return status(Status::Ok);
}

Reply Api::ni_init(RankPortals& rank, const ipc::NIInitArgs& args)
{
  if (args.iface != 0 && args.iface != 0xFFFFFFFFU)
    return status(Status::ArgInvalid);
  const bool matching = (args.options & kNIMatching) != 0;
  const bool logical = (args.options & kNILogical) != 0;
  const uint32_t slot = slot_of(matching, logical);
  if (args.requested_pid != kPidAny && args.requested_pid != rank.pid) {
    // Another Portals pid on this node: take it if nobody has it.
    if (world_.find(rank.nid(), args.requested_pid) != nullptr)
      return status(Status::PidInUse);
    world_.by_address.erase({rank.nid(), rank.pid});
    rank.pid = args.requested_pid;
    world_.by_address[{rank.nid(), rank.pid}] = rank.rank;
  }
  auto& ni = rank.nis[slot];
  if (not ni) {
    ni = std::make_unique<NetworkInterface>();
    ni->slot = slot;
    ni->matching = matching;
    ni->logical = logical;
    ni->nic = world_.nics[rank.node].get();
    ni->limits = granted_limits(args.has_desired ? &args.desired : nullptr, *ni->nic, matching);
    ni->portal_table.resize(static_cast<size_t>(ni->limits.max_pt_index) + 1);
    ni->eqs.set_capacity(static_cast<uint32_t>(ni->limits.max_eqs));
    ni->cts.set_capacity(static_cast<uint32_t>(ni->limits.max_cts));
    ni->mds.set_capacity(static_cast<uint32_t>(ni->limits.max_mds));
    ni->entries.set_capacity(static_cast<uint32_t>(ni->limits.max_entries));
    if (logical) // the runtime installs the job's map (PtlSetMap may replace it)
      for (const auto& peer : world_.ranks)
        ni->map.push_back({peer.nid(), peer.pid});
  }
  ni->references++;
  Reply reply = status(Status::Ok);
  reply.result.limits = ni->limits;
  reply.which = encode_handle(HandleKind::NI, slot, 0);
  return reply;
}

Reply Api::ni_fini(RankPortals& rank, ipc::Handle handle)
{
  NetworkInterface* ni = find_ni(rank, handle);
  if (ni == nullptr)
    return status(Status::ArgInvalid);
  if (--ni->references == 0)
    rank.nis[ni->slot].reset();
  return status(Status::Ok);
}

Reply Api::ni_status(RankPortals& rank, const ipc::NIStatusArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.register_index > 2)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  reply.result.value = args.register_index == 0 ? ni->drop_count : 0;
  return reply;
}

Reply Api::get_id(RankPortals& rank, ipc::Handle handle, bool physical)
{
  NetworkInterface* ni = find_ni(rank, handle);
  if (ni == nullptr)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  if (ni->logical && not physical)
    reply.result.id = {rank.rank, 0};
  else
    reply.result.id = {rank.nid(), rank.pid};
  return reply;
}

Reply Api::set_map(RankPortals& rank, const ipc::MapArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not ni->logical || args.count == 0 || args.entry_size < 8 || args.entry_size > kMaxMapEntrySize)
    return status(Status::ArgInvalid);
  if (args.count > kMaxMapEntries)
    return status(Status::NoSpace);
  std::vector<unsigned char> raw(args.count * args.entry_size);
  if (not job::read_rank_memory(rank.os_pid, args.address, raw.data(), raw.size()))
    return status(Status::ArgInvalid);
  ni->map.resize(args.count);
  for (uint64_t i = 0; i < args.count; ++i) {
    std::memcpy(&ni->map[i].rank_or_nid, raw.data() + i * args.entry_size, 4);
    std::memcpy(&ni->map[i].pid, raw.data() + i * args.entry_size + 4, 4);
  }
  return status(Status::Ok);
}

Reply Api::get_map(RankPortals& rank, const ipc::MapArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not ni->logical || args.entry_size < 8 || args.entry_size > kMaxMapEntrySize)
    return status(Status::ArgInvalid);
  if (ni->map.empty())
    return status(Status::NoSpace);
  const uint64_t copied = std::min<uint64_t>(args.count, ni->map.size());
  if (copied > 0) {
    std::vector<unsigned char> raw(copied * args.entry_size, 0);
    for (uint64_t i = 0; i < copied; ++i) {
      std::memcpy(raw.data() + i * args.entry_size, &ni->map[i].rank_or_nid, 4);
      std::memcpy(raw.data() + i * args.entry_size + 4, &ni->map[i].pid, 4);
    }
    if (not job::write_rank_memory(rank.os_pid, args.address, raw.data(), raw.size()))
      return status(Status::ArgInvalid);
  }
  Reply reply = status(Status::Ok);
  reply.result.value = ni->map.size();
  return reply;
}

Reply Api::pt_alloc(RankPortals& rank, const ipc::PTAllocArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not valid_optional(rank, args.eq, HandleKind::EQ, ni->slot))
    return status(Status::ArgInvalid);
  if ((args.options & kPTFlowControl) != 0 && args.eq == ipc::kHandleNone)
    return status(Status::PtEqNeeded);
  uint32_t index = args.requested_index;
  if (index == ipc::kAnyPtIndex) {
    auto free_entry = std::find_if(ni->portal_table.begin(), ni->portal_table.end(),
                                   [](const PortalTableEntry& pt) { return not pt.allocated; });
    if (free_entry == ni->portal_table.end())
      return status(Status::PtFull);
    index = static_cast<uint32_t>(free_entry - ni->portal_table.begin());
  } else if (index >= ni->portal_table.size()) {
    return status(Status::ArgInvalid);
  } else if (ni->portal_table[index].allocated) {
    return status(Status::PtInUse);
  }
  auto& pt = ni->portal_table[index];
  pt = PortalTableEntry{};
  pt.allocated = true;
  // PTL_PT_ALLOC_DISABLED: disabled until PtlPTEnable; meanwhile a message
  // fails as at any disabled entry (PTL_NI_PT_DISABLED, no event here).
  pt.enabled = (args.options & kPTAllocDisabled) == 0;
  pt.options = args.options;
  pt.eq = args.eq;
  Reply reply = status(Status::Ok);
  reply.result.value = index;
  return reply;
}

Reply Api::pt_free(RankPortals& rank, const ipc::PTArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.pt_index >= ni->portal_table.size() || not ni->portal_table[args.pt_index].allocated)
    return status(Status::ArgInvalid);
  auto& pt = ni->portal_table[args.pt_index];
  if (not pt.priority.empty() || not pt.overflow.empty())
    return status(Status::PtInUse);
  ni->unexpected_headers -= std::min<uint64_t>(ni->unexpected_headers, pt.unexpected.size());
  pt = PortalTableEntry{};
  return status(Status::Ok);
}

Reply Api::pt_enable(RankPortals& rank, const ipc::PTArgs& args, bool enable)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.pt_index >= ni->portal_table.size() || not ni->portal_table[args.pt_index].allocated)
    return status(Status::ArgInvalid);
  ni->portal_table[args.pt_index].enabled = enable;
  return status(Status::Ok);
}

Reply Api::md_bind(RankPortals& rank, const ipc::MDBindArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not valid_optional(rank, args.md.eq, HandleKind::EQ, ni->slot) ||
      not valid_optional(rank, args.md.ct, HandleKind::CT, ni->slot))
    return status(Status::ArgInvalid);
  MemoryDescriptor md;
  md.md = args.md;
  if ((args.md.options & kIovec) != 0) {
    // The vector is read once, now (the specification lets the
    // implementation copy it); the MD is then its segments end to end.
    auto region = load_vector(rank, *ni, args.md.start, args.md.length);
    if (not region)
      return status(Status::ArgInvalid);
    md.region = std::move(*region);
    md.md.length = md.region.length();
  } else {
    md.region = MemoryRegion::contiguous(args.md.start, args.md.length);
  }
  return created(ni->mds, std::move(md), HandleKind::MD, ni->slot);
}

std::optional<MemoryRegion> Api::load_vector(RankPortals& rank, const NetworkInterface& ni, uint64_t address,
                                             uint64_t count)
{
  if (count > static_cast<uint64_t>(ni.limits.max_iovecs))
    return std::nullopt;
  return load_iovec(rank.os_pid, address, count);
}

Reply Api::md_release(RankPortals& rank, ipc::Handle handle)
{
  NetworkInterface* ni = nullptr;
  MemoryDescriptor* md = find_object(rank, handle, HandleKind::MD, &NetworkInterface::mds, &ni);
  if (md == nullptr)
    return status(Status::ArgInvalid);
  if (md->operations_in_flight > 0)
    return status(Status::InUse);
  ni->mds.erase(decode_handle(handle)->index);
  return status(Status::Ok);
}

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

Api::PollStreak& Api::streak_of(const RankPortals& rank)
{
  if (poll_streaks_.size() < world_.ranks.size())
    poll_streaks_.resize(world_.ranks.size());
  return poll_streaks_[rank.rank];
}

void Api::end_poll_streak(RankPortals& rank, bool progress)
{
  constexpr size_t kEarlierKept = ipc::kMaxEarlierPolled; // all of them fit a reply
  if (progress)
    poll_sentinel_.progress();
  PollStreak& streak = streak_of(rank);
  auto earlier = std::move(streak.earlier);
  for (const auto& watched : streak.watched) {
    std::pair<HandleKind, ipc::Handle> object{watched.kind, watched.handle};
    std::erase(earlier, object);
    earlier.insert(earlier.begin(), object);
  }
  if (earlier.size() > kEarlierKept)
    earlier.resize(kEarlierKept);
  streak = PollStreak{};
  streak.earlier = std::move(earlier);
}

bool Api::counter_changed_in_streak(RankPortals& rank, ipc::Handle handle)
{
  CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts);
  if (counter == nullptr)
    return true;
  const auto& value = counter->at(s4u::Engine::get_clock());
  for (const auto& watched : streak_of(rank).watched)
    if (watched.kind == HandleKind::CT && watched.handle == handle)
      return value.success != watched.seen.success || value.failure != watched.seen.failure;
  return false;
}

void Api::count_empty_poll(RankPortals& rank, HandleKind kind, std::span<const ipc::Handle> handles)
{
  PollStreak& streak = streak_of(rank);
  const double now = s4u::Engine::get_clock();
  bool grew = false;
  for (ipc::Handle handle : handles) {
    auto same = [&](const PollStreak::Watched& w) { return w.kind == kind && w.handle == handle; };
    if (std::find_if(streak.watched.begin(), streak.watched.end(), same) != streak.watched.end())
      continue;
    PollStreak::Watched watched{kind, handle, {}, 0};
    if (kind == HandleKind::CT)
      if (CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts))
        watched.seen = counter->at(now);
    streak.watched.push_back(watched);
    grew = true;
  }
  // A program's progress loop may poll some objects only every few rounds
  // (OpenMPI's low-priority progress callbacks run one call in 8): count the
  // polls since the last object new to the streak, so that the program's
  // whole loop is watched before it blocks.
  streak.count = grew ? 1 : streak.count + 1;
}

bool Api::landed_in_any(RankPortals& rank, std::span<const ipc::Handle> queues, double at)
{
  for (ipc::Handle handle : queues)
    if (EventQueue* queue = find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs);
        eq_readiness(queue, at).ready) {
      describe_landing(queue, at);
      return true;
    }
  return false;
}

void Api::describe_landing(const EventQueue* queue, double poll_end)
{
  mismatch_detail_.clear();
  if (queue == nullptr || queue->events.empty())
    return;
  char text[160];
  std::snprintf(text, sizeof text, " (event type %d landed at %.12g s, written at %.12g s; the poll ended at %.12g s)",
                static_cast<int>(queue->events.front().event.type), queue->events.front().visible_at,
                queue->events.front().written_at, poll_end);
  mismatch_detail_ = text;
}

namespace {

// The queues a step polled: its bits index the report's list of queues.
size_t polled_queues(const ipc::LocalPollStep& step, const ipc::LocalPolls& polls, ipc::Handle* polled)
{
  const uint32_t queues = std::min<uint32_t>(polls.queue_count, ipc::kMaxLocalPollQueues);
  size_t polled_count = 0;
  for (uint32_t i = 0; i < queues; ++i)
    if ((step.polled >> i) & 1U)
      polled[polled_count++] = polls.queues[i];
  return polled_count;
}

} // namespace

size_t Api::begin_local_step(RankPortals& rank, const ipc::LocalPollStep& step, const ipc::LocalPolls& polls,
                             ipc::Handle* polled)
{
  const size_t polled_count = polled_queues(step, polls, polled);
  if (polled_count == 0)
    return 0;
  rank.stats.portals_calls++;
  rank.stats.answered_in_process++;
  // Compute between two polls is work, as between two calls (Api::handle).
  if (step.compute_ns > ipc::kWorkBetweenPollsNs)
    end_poll_streak(rank, false);
  return polled_count;
}

const char* Api::replay_empty_polls(RankPortals& rank, std::span<const ipc::LocalPollStep> steps,
                                    const ipc::LocalPolls& polls)
{
  // The streak as the polls one by one would leave it.
  for (const ipc::LocalPollStep& step : steps) {
    if (step.kind != ipc::LocalPollStep::Empty)
      return "a poll of another kind among empty ones";
    ipc::Handle polled[ipc::kMaxLocalPollQueues];
    const size_t polled_count = begin_local_step(rank, step, polls, polled);
    if (polled_count == 0)
      return "a poll of no queue";
    count_empty_poll(rank, HandleKind::EQ, std::span(polled, polled_count));
  }
  // One sleep to where the polls' own sleeps would have ended, each a poll
  // cost after the one before (the same additions, so the same time).
  const double cost = options::poll_cost_s();
  const double start = s4u::Engine::get_clock();
  double end = start;
  if (cost > 0) {
    for (size_t i = 0; i < steps.size(); ++i)
      end += cost;
    s4u::this_actor::sleep_until(end);
  }
  // Each poll found nothing at its own end: no polled queue had an event
  // landed by then (a later landing was written after it, or lands later).
  double poll_end = start;
  for (const ipc::LocalPollStep& step : steps) {
    const double poll_start = poll_end;
    if (cost > 0)
      poll_end += cost;
    charge_blocked(rank, trace::Kind::Poll, poll_start, poll_end, "empty poll answered by the process");
    ipc::Handle polled[ipc::kMaxLocalPollQueues];
    const size_t polled_count = polled_queues(step, polls, polled);
    if (landed_in_any(rank, std::span(polled, polled_count), poll_end))
      return "an empty poll found an event";
  }
  XBT_VERB("rank %u: %zu empty polls answered by the process", rank.rank, steps.size());
  return nullptr;
}

const char* Api::replay_local_poll(RankPortals& rank, const ipc::LocalPollStep& step, const ipc::LocalPolls& polls)
{
  const uint32_t queues = std::min<uint32_t>(polls.queue_count, ipc::kMaxLocalPollQueues);
  ipc::Handle polled[ipc::kMaxLocalPollQueues];
  const size_t polled_count = begin_local_step(rank, step, polls, polled);
  if (polled_count == 0)
    return "a poll of no queue";
  if (step.kind == ipc::LocalPollStep::Empty || step.kind == ipc::LocalPollStep::FoundAfterCost) {
    const double start = s4u::Engine::get_clock();
    count_empty_poll(rank, HandleKind::EQ, std::span(polled, polled_count));
    // (The process answers no poll that would block here, but one at whose
    // end an event has landed: its block would have ended at once.)
    if (const double cost = options::poll_cost_s(); cost > 0)
      s4u::this_actor::sleep_for(cost);
    charge_blocked(rank, trace::Kind::Poll, start, "empty poll answered by the process");
  }
  auto none_ready = [&] {
    return not landed_in_any(rank, std::span(polled, polled_count), s4u::Engine::get_clock());
  };
  if (step.kind == ipc::LocalPollStep::Empty) {
    // The process found nothing at the end of the period: neither may the
    // server (an event landed meanwhile: the process misjudged its horizon).
    if (not none_ready())
      return "an empty poll found an event";
    XBT_VERB("rank %u: empty poll answered by the process", rank.rank);
    return nullptr;
  }
  if (step.kind == ipc::LocalPollStep::FoundAfterBlock || step.kind == ipc::LocalPollStep::EmptyAfterBlock) {
    // The process saw in its mirror when the block would end: it blocks
    // here as it would have, and must end as the process said.
    if (const EmptyPoll ended = charge_empty_poll(rank, HandleKind::EQ, std::span(polled, polled_count));
        ended != EmptyPoll::BlockedUntilChange)
      return ended == EmptyPoll::Charged ? "a blocked poll did not block" : "a blocked poll was released";
    if (step.kind == ipc::LocalPollStep::EmptyAfterBlock) {
      if (not none_ready())
        return "a blocked poll found an event";
      XBT_VERB("rank %u: blocked poll answered by the process (nothing polled changed)", rank.rank);
      return nullptr;
    }
  } else if (step.kind != ipc::LocalPollStep::FoundAtOnce && step.kind != ipc::LocalPollStep::FoundAfterCost) {
    return "a poll of no known kind";
  }
  // The event the process took: the first of that queue, landed by now.
  if (step.taken >= queues || ((step.polled >> step.taken) & 1U) == 0)
    return "an event taken from a queue it did not poll";
  EventQueue* queue = find_object(rank, polls.queues[step.taken], HandleKind::EQ, &NetworkInterface::eqs);
  if (queue == nullptr || not eq_readiness(queue).ready || queue->dropped)
    return "an event taken before it landed";
  XBT_VERB("rank %u: event %d taken by the process%s", rank.rank, static_cast<int>(queue->events.front().event.type),
           step.kind == ipc::LocalPollStep::FoundAfterBlock ? " (after a blocked poll)" : "");
  pop_event(*queue);
  end_poll_streak(rank);
  return nullptr;
}

ipc::PollStreakState Api::poll_streak_state(const RankPortals& rank)
{
  const PollStreak& streak = streak_of(rank);
  ipc::PollStreakState state;
  state.count = static_cast<uint32_t>(streak.count);
  state.watched_count = static_cast<uint32_t>(streak.watched.size());
  for (size_t i = 0; i < streak.watched.size() && i < ipc::kMaxLocalPollQueues; ++i)
    state.watched[i] = streak.watched[i].handle;
  state.earlier_count = static_cast<uint32_t>(streak.earlier.size());
  for (size_t i = 0; i < streak.earlier.size() && i < ipc::kMaxEarlierPolled; ++i)
    state.earlier[i] = streak.earlier[i].second;
  return state;
}

Api::EmptyPoll Api::charge_empty_poll(RankPortals& rank, HandleKind kind, std::span<const ipc::Handle> handles)
{
  const double now = s4u::Engine::get_clock();
  count_empty_poll(rank, kind, handles);
  PollStreak& streak = streak_of(rank);
  const double cost = options::poll_cost_s();
  if (cost > 0) {
    s4u::this_actor::sleep_for(cost);
    charge_blocked(rank, trace::Kind::Poll, now, "empty poll");
  }
  const int limit = options::poll_block_after();
  if (limit <= 0 || streak.count < limit)
    return EmptyPoll::Charged;
  // The program only polls: let simulated time run until something it polls
  // changes, instead of one round trip per poll period; when nothing else can
  // happen any more, the poll sentinel lets it poll once more instead.
  const double start = s4u::Engine::get_clock();
  std::vector<PollStreak::Watched> watching = streak.watched;
  for (const auto& [object_kind, handle] : streak.earlier) {
    auto same = [&](const PollStreak::Watched& w) { return w.kind == object_kind && w.handle == handle; };
    if (std::find_if(watching.begin(), watching.end(), same) != watching.end())
      continue;
    PollStreak::Watched watched{object_kind, handle, {}, 0};
    if (object_kind == HandleKind::CT) {
      CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts);
      if (counter == nullptr)
        continue; // freed since
      watched.seen = counter->at(start);
    } else if (EventQueue* queue = find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs)) {
      // Events the program left there are no change: wait for a new one.
      watched.events_seen = queue->events.size();
    } else {
      continue;
    }
    watching.push_back(watched);
  }
  auto changed = [&] {
    Readiness overall{false, kForever};
    for (const auto& watched : watching) {
      Readiness r;
      if (watched.kind == HandleKind::EQ) {
        EventQueue* queue = find_object(rank, watched.handle, HandleKind::EQ, &NetworkInterface::eqs);
        if (queue == nullptr)
          return Readiness{true, kForever}; // freed: the next poll reports it
        if (queue->events.size() > watched.events_seen) {
          const double landing = queue->events[watched.events_seen].visible_at;
          r = Readiness{landing <= s4u::Engine::get_clock(), landing};
        } else if (queue->events.size() < watched.events_seen) {
          r = Readiness{true, kForever}; // read meanwhile (another thread): poll again
        }
      } else {
        CountingEvent* counter = find_object(rank, watched.handle, HandleKind::CT, &NetworkInterface::cts);
        if (counter == nullptr)
          return Readiness{true, kForever}; // freed: the next poll reports it
        const auto& value = counter->at(s4u::Engine::get_clock());
        r.ready = value.success != watched.seen.success || value.failure != watched.seen.failure;
        r.next_landing = counter->pending.empty() ? kForever : counter->pending.front().visible_at;
      }
      if (r.ready)
        return r;
      overall.next_landing = std::min(overall.next_landing, r.next_landing);
    }
    return overall;
  };
  bool released = false;
  PollPeriods periods{.start = start, .period = cost};
  if (const Readiness now = changed(); now.ready || now.next_landing < kForever) {
    // Something already on its way ends the block, and nothing can land
    // before it (landings come in the order of their writes): not a stretch
    // in which nothing else can happen, whatever the sentinel would find
    // while this proxy is between two steps of its wait. (So the process,
    // which sees the landing in its mirror, can tell how the block ends:
    // preload/local_polls.cpp.)
    block_until(rank, kForever, changed, &periods);
    poll_sentinel_.progress();
  } else {
    poll_sentinel_.blocked(rank);
    block_until(rank, kForever, [&] { return rank.poll_released ? Readiness{true, kForever} : changed(); },
                &periods);
    released = rank.poll_released;
    poll_sentinel_.unblocked(rank);
  }
  // Round the blocked time up to whole poll periods, as the polls would have
  // (a block that ended on a landing already slept to its period's end).
  if (cost > 0 && not periods.ended_on_period)
    if (const double extra = rest_of_poll_period(start, s4u::Engine::get_clock(), cost); extra > 0)
      s4u::this_actor::sleep_for(extra);
  charge_blocked(rank, trace::Kind::Poll, start, "polling (blocked until a polled object changes)");
  // Released to poll once more: the next empty poll blocks again.
  streak.count = released ? limit - 1 : 0;
  return released ? EmptyPoll::Released : EmptyPoll::BlockedUntilChange;
}

Reply Api::eq_get(RankPortals& rank, ipc::Handle handle, bool wait)
{
  auto find = [&] { return find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs); };
  if (find() == nullptr)
    return status(Status::ArgInvalid);
  if (wait) {
    const double start = s4u::Engine::get_clock();
    block_until(rank, kForever, [&] { return eq_readiness(find()); });
    charge_blocked(rank, trace::Kind::Wait, start, "PtlEQWait");
    if (aborted(rank))
      return status(Status::Aborted);
  } else if (not eq_readiness(find()).ready) {
    charge_empty_poll(rank, HandleKind::EQ, std::span(&handle, 1));
    if (not eq_readiness(find()).ready)
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
  int found = -1;
  auto check = [&] {
    return first_ready(handles.size(), found, [&](size_t i) {
      return eq_readiness(find_object(rank, handles[i], HandleKind::EQ, &NetworkInterface::eqs));
    });
  };
  const double start = s4u::Engine::get_clock();
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
  reply.result.ct = counter->at(s4u::Engine::get_clock());
  return reply;
}

Reply Api::ct_wait(RankPortals& rank, const ipc::CTWaitArgs& args)
{
  auto find = [&] { return find_object(rank, args.ct, HandleKind::CT, &NetworkInterface::cts); };
  if (find() == nullptr)
    return status(Status::ArgInvalid);
  const double start = s4u::Engine::get_clock();
  block_until(rank, kForever, [&] { return ct_readiness(find(), args.test); });
  charge_blocked(rank, trace::Kind::Wait, start, "PtlCTWait");
  if (aborted(rank))
    return status(Status::Aborted);
  CountingEvent* counter = find();
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  reply.result.ct = counter->at(s4u::Engine::get_clock());
  return reply;
}

Reply Api::ct_poll(RankPortals& rank, const ipc::PollArgs& args)
{
  std::vector<ipc::Handle> handles;
  if (args.size == 0 || not read_handles(rank, args, handles))
    return status(Status::ArgInvalid);
  std::vector<uint64_t> tests(args.size);
  if (not job::read_rank_memory(rank.os_pid, args.tests_address, tests.data(), tests.size() * sizeof(uint64_t)))
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
  const double start = s4u::Engine::get_clock();
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
  reply.result.ct = counter->at(s4u::Engine::get_clock());
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
  auto& value = const_cast<ipc::CTEvent&>(counter->at(s4u::Engine::get_clock()));
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
