// Event queues and counting events. Waits and polls block in the server, in
// simulated time; the preload only waits for the reply, except for an event
// queue poll that the latest reply settles (local_polls.hpp).
#include "abi_convert_atomics.hpp"
#include "export.hpp"
#include "poll_arrays.hpp"
#include "portals_api_forward.hpp"

using namespace s4bxi;
using namespace s4bxi::preload;
using ipc::Op;

namespace {

// PTL_EQ_DROPPED also delivers an event (the one after the lost ones).
bool carries_event(int rc)
{
  return rc == PTL_OK or rc == PTL_EQ_DROPPED;
}

// A poll answered by the process itself (local_polls.hpp).
int answered_locally(const local_polls::Answer& local, ptl_event_t* event, unsigned int* which)
{
  if (local.kind == local_polls::Answer::Empty)
    return PTL_EQ_EMPTY;
  *event = abi::event_with_atomics_from_wire(local.event);
  if (which != nullptr)
    *which = local.which;
  return PTL_OK;
}

int eq_get(Op op, ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  if (not client::attached())
    return api::not_attached();
  if (event == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(op);
  request.args.handle.handle = abi::eq_to_wire(eq_handle);
  const auto local = client::answer_poll_locally(std::span(&request.args.handle.handle, 1), op == Op::EQWait);
  if (local.kind != local_polls::Answer::ServerMust)
    return answered_locally(local, event, nullptr);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (carries_event(rc))
    *event = abi::event_with_atomics_from_wire(reply.result.event);
  return rc;
}

// A PtlEQPoll of a few queues, answered by the process if it can. Otherwise
// the handles it read for that (`handles_read`, as the server would take
// them) go in the request (poll_arrays.hpp); `was_read`: it read them.
local_polls::Answer poll_answered_locally(const ptl_handle_eq_t* eq_handles, unsigned int size, bool wait,
                                          ipc::Handle (&handles_read)[ipc::kMaxLocalPollQueues], bool& was_read)
{
  was_read = false;
  if (eq_handles == nullptr or size == 0 or size > ipc::kMaxLocalPollQueues)
    return {};
  ipc::Handle queues[ipc::kMaxLocalPollQueues];
  for (unsigned i = 0; i < size; ++i) {
    const ptl_handle_eq_t handle = eq_handles[i];
    queues[i] = abi::eq_to_wire(handle);
    handles_read[i] = poll_arrays::wire_handle(abi::handle_bits(handle));
  }
  was_read = true;
  return client::answer_poll_locally(std::span(queues, size), wait);
}

} // namespace

extern "C" {

S4BXI_EXPORT int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count, ptl_handle_eq_t* eq_handle)
{
  if (not client::attached())
    return api::not_attached();
  if (eq_handle == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::EQAlloc);
  request.args.eq_alloc.ni = abi::handle_to_wire(ni_handle);
  request.args.eq_alloc.count = count;
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *eq_handle = abi::handle_from_wire(reply.result.handle, PTL_EQ_NONE);
  return rc;
}

S4BXI_EXPORT int PtlEQFree(ptl_handle_eq_t eq_handle)
{
  return api::forward_handle(Op::EQFree, abi::eq_to_wire(eq_handle));
}

S4BXI_EXPORT int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return eq_get(Op::EQGet, eq_handle, event);
}

S4BXI_EXPORT int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t* event)
{
  return eq_get(Op::EQWait, eq_handle, event);
}

// A few handles travel in the request; a longer array stays in the
// program's memory and the server reads it (poll_arrays.hpp).
S4BXI_EXPORT int PtlEQPoll(const ptl_handle_eq_t* eq_handles, unsigned int size, ptl_time_t timeout,
                           ptl_event_t* event, unsigned int* which)
{
  if (not client::attached())
    return api::not_attached();
  if (event == nullptr or which == nullptr)
    return PTL_ARG_INVALID;
  ipc::Handle handles_read[ipc::kMaxLocalPollQueues];
  bool was_read = false;
  const auto local = poll_answered_locally(eq_handles, size, timeout != 0, handles_read, was_read);
  if (local.kind != local_polls::Answer::ServerMust)
    return answered_locally(local, event, which);
  ipc::Request request = api::request_for(Op::EQPoll);
  auto& args = request.args.poll;
  args.size = size;
  args.handle_size = sizeof(ptl_handle_eq_t);
  args.timeout_ms = abi::timeout_to_wire(timeout);
  if (was_read)
    poll_arrays::set_read(args, handles_read);
  else
    poll_arrays::set(args, eq_handles);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (carries_event(rc)) {
    *event = abi::event_with_atomics_from_wire(reply.result.event);
    *which = reply.which;
  }
  return rc;
}

S4BXI_EXPORT int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t* ct_handle)
{
  if (not client::attached())
    return api::not_attached();
  if (ct_handle == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::CTAlloc);
  request.args.handle.handle = abi::handle_to_wire(ni_handle);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *ct_handle = abi::handle_from_wire(reply.result.handle, PTL_CT_NONE);
  return rc;
}

S4BXI_EXPORT int PtlCTFree(ptl_handle_ct_t ct_handle)
{
  return api::forward_handle(Op::CTFree, abi::ct_to_wire(ct_handle));
}

S4BXI_EXPORT int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t* event)
{
  if (not client::attached())
    return api::not_attached();
  if (event == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::CTGet);
  request.args.handle.handle = abi::ct_to_wire(ct_handle);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *event = abi::ct_event_from_wire(reply.result.ct);
  return rc;
}

S4BXI_EXPORT int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test, ptl_ct_event_t* event)
{
  if (not client::attached())
    return api::not_attached();
  if (event == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::CTWait);
  request.args.ct_wait.ct = abi::ct_to_wire(ct_handle);
  request.args.ct_wait.test = test;
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *event = abi::ct_event_from_wire(reply.result.ct);
  return rc;
}

// A few handles and tests travel in the request; longer arrays stay in the
// program's memory and the server reads them (poll_arrays.hpp).
S4BXI_EXPORT int PtlCTPoll(const ptl_handle_ct_t* ct_handles, const ptl_size_t* tests, unsigned int size,
                           ptl_time_t timeout, ptl_ct_event_t* event, unsigned int* which)
{
  if (not client::attached())
    return api::not_attached();
  if (event == nullptr or which == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::CTPoll);
  auto& args = request.args.poll;
  args.size = size;
  args.handle_size = sizeof(ptl_handle_ct_t);
  args.timeout_ms = abi::timeout_to_wire(timeout);
  static_assert(sizeof(ptl_size_t) == sizeof(uint64_t));
  poll_arrays::set(args, ct_handles, reinterpret_cast<const uint64_t*>(tests));
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK) {
    *event = abi::ct_event_from_wire(reply.result.ct);
    *which = reply.which;
  }
  return rc;
}

namespace {

int ct_update(Op op, ptl_handle_ct_t ct_handle, const ptl_ct_event_t& value)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(op);
  request.args.ct_update.ct = abi::ct_to_wire(ct_handle);
  request.args.ct_update.value = abi::ct_event_to_wire(value);
  ipc::Reply reply;
  return api::forward(request, reply);
}

} // namespace

S4BXI_EXPORT int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct)
{
  return ct_update(Op::CTSet, ct_handle, new_ct);
}

S4BXI_EXPORT int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment)
{
  return ct_update(Op::CTInc, ct_handle, increment);
}

namespace {

int triggered_ct_update(Op op, ptl_handle_ct_t ct_handle, const ptl_ct_event_t& value, ptl_handle_ct_t trig_ct_handle,
                        ptl_size_t threshold)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(op);
  request.args.triggered_ct.update.ct = abi::ct_to_wire(ct_handle);
  request.args.triggered_ct.update.value = abi::ct_event_to_wire(value);
  request.args.triggered_ct.trigger = {abi::ct_to_wire(trig_ct_handle), 0, threshold};
  ipc::Reply reply;
  return api::forward(request, reply);
}

} // namespace

// The NIC keeps these with trig_ct_handle and applies them when its count
// reaches the threshold.
S4BXI_EXPORT int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment, ptl_handle_ct_t trig_ct_handle,
                                   ptl_size_t threshold)
{
  return triggered_ct_update(Op::TriggeredCTInc, ct_handle, increment, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct, ptl_handle_ct_t trig_ct_handle,
                                   ptl_size_t threshold)
{
  return triggered_ct_update(Op::TriggeredCTSet, ct_handle, new_ct, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle)
{
  return api::forward_handle(Op::CTCancelTriggered, abi::ct_to_wire(ct_handle));
}

} // extern "C"
