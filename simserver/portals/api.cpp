// The server side of a call as a whole: the entry point of every request
// (Api::handle), the poll streak ended by any other call, the calls PtlAbort
// ends, the dispatch to the calls of each object family (api_ni.cpp,
// api_pt.cpp, api_md.cpp, api_lists.cpp, api_eq.cpp, api_ct.cpp, api_data.cpp,
// api_triggered.cpp), the calls that need no object, and the accounting of
// blocked time.
#include "api.hpp"

#include "../actor_sleep.hpp"
#include "../trace/recorder.hpp"
#include "api_internal.hpp"
#include "api_waits.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_portals, "Portals calls handled by the server");

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;

using detail::find_ni;
using detail::kTimeResolution;
using detail::status;

void Api::charge_blocked(RankPortals& rank, trace::Kind kind, double start, const char* what)
{
  charge_blocked(rank, kind, start, sim_now(), what);
}

void Api::charge_blocked(RankPortals& rank, trace::Kind kind, double start, double end, const char* what)
{
  if (end <= start)
    return;
  (kind == trace::Kind::Poll ? rank.stats.poll_s : rank.stats.wait_s) += end - start;
  if (rank.call_inside_library)
    rank.stats.library_waits_s += end - start;
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
    case ipc::Op::LaneOpen: return "pthread_create";
    case ipc::Op::LaneClose: return "thread end";
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
  const double start = rank.time();
  Reply reply = handle_call(rank, request);
  // One line a call (--log=s4bxi_portals.thres:verbose): the sequence of calls
  // a program makes, what each returned and the simulated time it took.
  XBT_VERB("rank %u %s -> status %d, event %d, %.0f ns", rank.rank, call_name(request.op),
            static_cast<int>(reply.status), static_cast<int>(reply.result.event.type),
            (sim_now() - start) * 1e9);
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
      rank.process().init_count++;
      return status(Status::Ok);
    case ipc::Op::Fini:
      if (rank.process().init_count > 0 && --rank.process().init_count == 0)
        for (auto& ni : rank.process().nis)
          ni.reset();
      return status(Status::Ok);
    default: break;
  }
  if (rank.process().init_count == 0)
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
  const double start = sim_now();
  // (not_before went through the caller's nanosecond clock: a difference of
  // that rounding is no difference.)
  double end = start + args.seconds;
  if (args.not_before > end + 2 * kTimeResolution)
    end = args.not_before;
  if (end - start > kTimeResolution) {
    rank.expect_long_wait();
    s4bxi::sleep_until(end);
    charge_blocked(rank, trace::Kind::Wait, start, "sleep");
  }
  return status(Status::Ok);
}

} // namespace s4bxi::portals
