// The arrays of a PtlEQPoll or PtlCTPoll in its request (ipc::PollArgs).
//
// Programs poll one or a few objects. Their handles (and a PtlCTPoll's tests)
// then travel in the request, so that the server, whose time every rank
// waits for, need not read the rank's memory (a system call) at each poll.
// The process reads them so that an unreadable array cannot fault it
// (process_vm_readv of its own memory, as queued_puts captures a payload), or
// passes the handles it already read to try to answer an event queue poll
// itself (plain loads, as any Portals library reads the array it is given:
// reusing them costs no system call and adds no way to fail).
// A longer array, or one it cannot read, goes by address as before: the
// server reads it, and answers PTL_ARG_INVALID where it cannot.
#pragma once

#include "protocol.hpp"

namespace s4bxi::preload::poll_arrays {

// What the server takes as the handle in an element of an array it reads:
// the low 32 bits, whatever the ABI's handle size.
inline ipc::Handle wire_handle(uint64_t element_bits)
{
  return static_cast<ipc::Handle>(element_bits);
}

// Fills the arrays of `args`, whose `size` and `handle_size` are set: a
// PtlEQPoll's `handles`, or a PtlCTPoll's `handles` and `tests`.
void set(ipc::PollArgs& args, const void* handles);
void set(ipc::PollArgs& args, const void* handles, const uint64_t* tests);

// The same for a PtlEQPoll whose `args.size` handles the process already
// read (`read`, each by wire_handle): they go in the request. Those are the
// queues it may answer a poll of itself (local_polls.hpp): they all fit.
static_assert(ipc::kMaxLocalPollQueues <= ipc::kMaxInlinePollHandles);
void set_read(ipc::PollArgs& args, const ipc::Handle* read);

} // namespace s4bxi::preload::poll_arrays
