// What every Portals call does around its own encoding: refuse when the
// process is not a rank of the run, send, and translate the return code.
#pragma once

#include "abi_convert.hpp"
#include "rank_client.hpp"

namespace s4bxi::preload::api {

inline ipc::Request request_for(ipc::Op op)
{
  ipc::Request request;
  request.op = op;
  return request;
}

// The return code of any call made by a process that is not attached.
inline int not_attached()
{
  client::explain_not_attached();
  return PTL_NO_INIT;
}

// Sends the request and returns the ABI's code for the server's answer.
// `reply` is meaningful when the call was sent, i.e. unless PTL_NO_INIT comes
// from not_attached() (another thread may have sent Exit since the caller's
// own check).
inline int forward(ipc::Request& request, ipc::Reply& reply)
{
  if (not client::call(request, reply))
    return not_attached();
  return abi::status_from_wire(reply.status);
}

// For the calls whose only argument is a handle; `reply`, when given, receives
// the server's answer (meaningful when the call returns PTL_OK).
inline int forward_handle(ipc::Op op, ipc::Handle handle, ipc::Reply* reply = nullptr)
{
  if (not client::attached())
    return not_attached();
  ipc::Request request = request_for(op);
  request.args.handle.handle = handle;
  ipc::Reply local;
  return forward(request, reply != nullptr ? *reply : local);
}

} // namespace s4bxi::preload::api
