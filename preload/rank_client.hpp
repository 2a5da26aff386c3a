// The process side of a rank's channel to the server.
//
// A process is attached when it was started by s4bxi-run as one of the ranks:
// its environment names the run's segment and its rank, and the rank's channel
// was reserved for its pid (a program the rank exec's keeps that pid, and so
// is the rank too). Any other process (started by hand, forked by a rank) is
// not attached: the time hooks then behave like libc and the Portals calls
// fail, with a sentence that says why.
#pragma once

#include "local_polls.hpp"
#include "queued_puts.hpp"
#include "protocol.hpp"
#include "segment.hpp"

#include <span>

namespace s4bxi::preload::client {

enum class State {
  NotLaunched, // no s4bxi-run environment
  NotTheRank,  // the environment is there, but the channel belongs to another process
  Attached,
  Exited, // Op::Exit was sent: the server no longer serves this process
};

State state();

inline bool attached()
{
  return state() == State::Attached;
}

// Sends `request` (after filling its compute_ns) and waits for the reply.
// Returns false, without sending, when the process is not attached. Calls from
// several threads are serialized; errno is preserved.
bool call(ipc::Request& request, ipc::Reply& reply);

// A poll of `queues` (a wait: `wait`), answered by the process itself when
// the latest reply settles it (local_polls.hpp); Answer::ServerMust when the
// call must go to the server.
local_polls::Answer answer_poll_locally(std::span<const ipc::Handle> queues, bool wait);

// A PtlPut that the process answers itself (queued_puts.hpp): true when it
// is queued for the server (the caller returns PTL_OK), false when the call
// must go to the server. `args` must have its payload room free.
bool queue_put(ipc::PutArgs& args);

// A PtlMEUnlink/PtlLEUnlink that the process answers itself
// (queued_unlinks.hpp): true when it is queued for the server (the caller
// returns PTL_OK), false when the call must go to the server.
bool queue_unlink(ipc::Handle entry);

// A PtlMEAppend/PtlLEAppend that the process answers itself
// (queued_appends.hpp): the entry's handle when it is queued for the server
// (the caller returns PTL_OK with it), kHandleInvalid when the call must go
// to the server.
ipc::Handle queue_append(const ipc::AppendArgs& args);

// PtlAbort: ends, with Status::Aborted, every wait or poll (EQWait, EQPoll,
// CTWait, CTPoll) that a thread of this process is in or queued for, the one
// the server serves included. Waits that begin afterwards are not affected.
// Does nothing when no thread waits (as Sandia's implementation).
void abort_waits();

// The program starts a thread (thread_hooks.cpp): a lane taken for it before
// it starts (-1: not attached, or no lane free, and the thread calls through
// the channel), opened once it runs, at the calling thread's simulated time
// (Op::LaneOpen), or given back when it could not be started. The thread
// adopts it when it starts, with `born_ns` (its creator's clock) as its clock.
int claim_lane_for_new_thread();
void open_lane_of_new_thread(int index);
void release_unborn_lane(int index);
void adopt_lane(int index, int64_t born_ns);

// The program started a thread (thread_hooks.cpp): from now on one thread
// may end another's wait with PtlAbort, so the server must not take such a
// wait for a deadlock while another thread runs.
void note_thread_created();

// The clock is stale: the server parked this rank while it slept in the
// kernel (a pipe, a socket, waitpid) and the simulation went on, or its last
// call was answered before its simulated end (a PtlPut answered before the
// PCIe write of its command). Before the clock is read, a Sync brings it to
// the simulated time of the rank. Does nothing otherwise (two relaxed loads),
// or when another thread holds the channel (its call does the same).
void resync_if_stale();

// For the sync timer (sync_timer.cpp): a Sync exchange from its signal
// handler, unless this thread is in an exchange already or another thread
// holds the channel (false then).
bool sync_from_signal_handler();
// Whether the calling thread's CPU-timer syncs are left out: it is the main thread,
// which the server runs ahead of (ipc::ClockConfig::main_thread_runs_ahead),
// no other thread has a lane of its own, and no debugger runs it.
// Async-signal-safe.
bool runs_ahead_without_syncs();

// What the server told this process when it attached. Meaningful only when
// attached.
const ipc::HelloResult& identity();

// How to turn simulated time into clock readings. Meaningful only when attached.
const ipc::ClockConfig& clock_config();

// Prints, once per process, the sentence that explains why the Portals calls
// fail in this process.
void explain_not_attached();

} // namespace s4bxi::preload::client
