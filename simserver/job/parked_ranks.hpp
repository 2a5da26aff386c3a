// Ranks blocked in the kernel outside any emulated call: reading a pipe or a
// socket, in waitpid, poll or a futex of their own.
//
// Such a rank makes no call, so its proxy would hold the whole simulation
// while it waits for its next one, and what the rank waits for (another
// rank's write) may need the simulation to go on: a deadlock that is not one.
// So after s4bxi/park-after real seconds of the rank asleep in the kernel, its
// proxy parks it: the proxy waits in the simulation instead of on the rank's
// doorbell, and the simulation goes on without the rank. Its next call, PMI
// command or end reaches the simulation through the rank watcher
// (Channel::parked, kNoticeCallTag, its PMI socket, its pidfd), and its clock
// resumes at the simulated time the simulation has then reached, or the
// latest any rank's clock showed if later (latest_clock_read): the blocked
// time is a wait, not compute. Whatever a parked rank does next is served:
// the threshold decides how fast the simulation goes on, never whether.
//
// When nothing else can happen in the simulation, it waits in real time for
// a parked rank that can still be woken (portals/outside_holder.hpp); a rank
// that reads a pipe only the job's ranks hold, while no rank runs, never will:
// a deadlock.
#pragma once

#include "../world.hpp"
#include "stall_notice.hpp"

namespace s4bxi::job {

// The parked rank's process made a call (its doorbell moved past
// parked_bell), wrote to its PMI socket (a PMI-1 command, which its proxy
// serves as it serves calls), or ended.
bool rang_or_ended(const RankPortals& rank);

// Whether a parked caller goes on: rang_or_ended, or for a dormant lane
// (RankPortals::dormant), its call or its process's end as the simulation
// knows it (not the rank watcher's word, which comes at a moment of real time).
bool released_from_park(const RankPortals& caller);

// The threads of the process that make the calls of `caller`: a lane's
// own thread; for the rank, all but those with lanes of their own and the one
// in a call (which may spin waiting for its answer).
ThreadSet threads_of(const World& world, const RankPortals& caller);

// A thread of the caller (threads_of) runs: it may still call, or write to a pipe.
bool runs_outside_its_call(const World& world, const RankPortals& caller);

// Wakes (in the simulation) the parked ranks whose process made a call or
// ended. Returns whether there was any.
bool release_parked(World& world);

// The latest simulated time any rank's process read from its clock
// (ipc::Channel::latest_clock_ns), 0 if none did. A parked rank that wakes
// resumes no sooner: what woke it (another rank's write) may have come right
// after such a reading, at a time the simulation has not reached yet (a rank
// that computes is ahead of it, answers ahead too). The latest of all ranks,
// since which one woke it is unknown: a parked rank may resume a little late,
// never before its cause.
double latest_clock_read(const World& world);

// Why a parked rank may still be woken, said ("parked rank 3 waits for
// something outside the job"), or empty when none may: its process runs
// again, it waits for something outside the job (a terminal, a socket, a
// child), or another rank's process runs (it may write to the pipe the
// parked rank reads), or one of its threads took a lane not open yet (its
// call comes).
std::string why_parked_may_wake(const World& world);

// What a parked rank waits for: "read(fd 5: pipe:[1234]), outside any
// emulated call".
std::string kernel_wait_of(const RankPortals& rank);

} // namespace s4bxi::job
