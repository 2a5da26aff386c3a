// Library and network-interface calls: initialisation, NI setup, identity,
// logical map.
#include "export.hpp"
#include "ni_addressing.hpp"
#include "portals_api_forward.hpp"
#include "queued_puts.hpp"
#include "queued_unlinks.hpp"

using namespace s4bxi;
using namespace s4bxi::preload;
using ipc::Op;

extern "C" {

S4BXI_EXPORT int PtlInit(void)
{
  if (not client::attached()) {
    client::explain_not_attached();
    return PTL_FAIL; // the only failure PtlInit can report
  }
  ipc::Request request = api::request_for(Op::Init);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  return rc == PTL_NO_INIT ? PTL_FAIL : rc;
}

S4BXI_EXPORT void PtlFini(void)
{
  // Library destructors commonly call PtlFini, possibly after this library
  // told the server the process exits: nothing is left to finalize then.
  if (client::state() == client::State::Exited)
    return;
  if (not client::attached()) {
    client::explain_not_attached();
    return;
  }
  queued_puts::forget_all();
  queued_unlinks::forget_all();
  ipc::Request request = api::request_for(Op::Fini);
  ipc::Reply reply;
  api::forward(request, reply);
}

#ifdef S4BXI_ABI_SANDIA_CURRENT
// Only the current generation of Sandia's ABI declares it. No round trip for
// the caller: the waits it ends learn it from the shared segment, and the
// server from the notice (rank_client.cpp).
S4BXI_EXPORT void PtlAbort(void)
{
  client::abort_waits();
}
#endif

S4BXI_EXPORT int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid, const ptl_ni_limits_t* desired,
                           ptl_ni_limits_t* actual, ptl_handle_ni_t* ni_handle)
{
  if (not client::attached())
    return api::not_attached();
  auto wire_options = abi::ni_options_to_wire(options);
  if (ni_handle == nullptr or not wire_options)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::NIInit);
  auto& args = request.args.ni_init;
  args.iface = iface;
  args.options = *wire_options;
  args.requested_pid = abi::pid_to_wire(pid);
  args.has_desired = desired != nullptr ? 1 : 0;
  if (desired != nullptr)
    args.desired = abi::limits_to_wire(*desired);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK) {
    // The reply's result holds the limits; the NI handle comes in `which`.
    *ni_handle = abi::handle_from_wire(reply.which);
    ni_addressing::remember(reply.which, (*wire_options & ipc::option::kNILogical) != 0);
    queued_puts::note_ni(reply.which, *wire_options, reply.result.limits);
    if (actual != nullptr)
      *actual = abi::limits_from_wire(reply.result.limits);
  }
  return rc;
}

S4BXI_EXPORT int PtlNIFini(ptl_handle_ni_t ni_handle)
{
  queued_puts::forget_ni(abi::handle_to_wire(ni_handle)); // the Puts on it go to the server from now on
  queued_unlinks::forget_ni(abi::handle_to_wire(ni_handle)); // its entries are gone with it
  return api::forward_handle(Op::NIFini, abi::handle_to_wire(ni_handle));
}

S4BXI_EXPORT int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register, ptl_sr_value_t* status)
{
  if (not client::attached())
    return api::not_attached();
  if (status == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::NIStatus);
  request.args.ni_status.ni = abi::handle_to_wire(ni_handle);
  // The register indices are the specification's (drop count, permission
  // violations, operation violations), in both ABIs.
  request.args.ni_status.register_index = static_cast<uint32_t>(status_register);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *status = static_cast<ptl_sr_value_t>(reply.result.value);
  return rc;
}

namespace {

int get_id(Op op, ptl_handle_ni_t ni_handle, ptl_process_t* id)
{
  if (not client::attached())
    return api::not_attached();
  if (id == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(op);
  request.args.handle.handle = abi::handle_to_wire(ni_handle);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *id = abi::process_from_wire(reply.result.id);
  return rc;
}

} // namespace

S4BXI_EXPORT int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t* id)
{
  return get_id(Op::GetId, ni_handle, id);
}

S4BXI_EXPORT int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t* id)
{
  return get_id(Op::GetPhysId, ni_handle, id);
}

S4BXI_EXPORT int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t* ni_handle)
{
  if (not client::attached())
    return api::not_attached();
  if (ni_handle == nullptr)
    return PTL_ARG_INVALID;
  ipc::Reply reply;
  int rc = api::forward_handle(Op::NIHandle, abi::handle_to_wire(handle), &reply);
  if (rc == PTL_OK)
    *ni_handle = abi::handle_from_wire(reply.result.handle);
  return rc;
}

S4BXI_EXPORT int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t* uid)
{
  if (not client::attached())
    return api::not_attached();
  if (uid == nullptr)
    return PTL_ARG_INVALID;
  ipc::Reply reply;
  int rc = api::forward_handle(Op::GetUid, abi::handle_to_wire(ni_handle), &reply);
  if (rc == PTL_OK)
    *uid = static_cast<ptl_uid_t>(reply.result.value);
  return rc;
}

// The map stays in the program's memory: the server reads or writes the
// array in place, entry by entry of the ABI's size.
S4BXI_EXPORT int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, const ptl_process_t* mapping)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(Op::SetMap);
  auto& args = request.args.map;
  args.ni = abi::handle_to_wire(ni_handle);
  args.count = map_size;
  args.address = abi::address_of(mapping);
  args.entry_size = sizeof(ptl_process_t);
  // (Unknown meanwhile: another thread's Put goes to the server.)
  queued_puts::forget_map(args.ni);
  ipc::Reply reply;
  const int status = api::forward(request, reply);
  if (status == PTL_OK)
    queued_puts::note_map(args.ni, args.count, args.address, args.entry_size);
  return status;
}

S4BXI_EXPORT int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size, ptl_process_t* mapping,
                           ptl_size_t* actual_map_size)
{
  if (not client::attached())
    return api::not_attached();
  if (actual_map_size == nullptr)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::GetMap);
  auto& args = request.args.map;
  args.ni = abi::handle_to_wire(ni_handle);
  args.count = map_size;
  args.address = abi::address_of(mapping);
  args.entry_size = sizeof(ptl_process_t);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *actual_map_size = reply.result.value;
  return rc;
}

// Handles are plain values: comparing them needs no server, and works even in
// a process that is not attached. The specification's text reads as if equal
// handles gave PTL_OK (zero), but both real implementations (Sandia's and
// BXI's) return a true value for equal handles and 0 otherwise, and programs
// rely on that: OpenMPI's Portals components test `!PtlHandleIsEqual(h,
// PTL_INVALID_HANDLE)` before freeing h. Binaries follow the implementations.
S4BXI_EXPORT int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2)
{
  return handle1 == handle2 ? 1 : 0;
}

// Bundles are a hint (the model has no per-command fence to save); the
// server still checks the NI.
S4BXI_EXPORT int PtlStartBundle(ptl_handle_ni_t ni_handle)
{
  return api::forward_handle(Op::StartBundle, abi::handle_to_wire(ni_handle));
}

S4BXI_EXPORT int PtlEndBundle(ptl_handle_ni_t ni_handle)
{
  return api::forward_handle(Op::EndBundle, abi::handle_to_wire(ni_handle));
}

} // extern "C"
