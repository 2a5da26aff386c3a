// Whether processes other than the job's want the CPUs: what tells the
// server's long waits apart (ipc::CpuContention::explain_with).
//
// A waiter of the server kept off its CPU for a scheduler slice (a long
// yield, a ring noticed late, the copy helper waited for) marks the job
// contended: every waiter then sleeps at once for 30 to 400 ms, and the
// server gives up a CPU of its own. That is right when other processes want
// the CPUs, and wrong when the job's own ranks took them: at start-up, a rank
// spends milliseconds at a time in MPI_Init between two calls, and the server,
// waiting for the other rank's call, loses its CPU to it. Marked then, a
// 2-rank MPI bandwidth sweep ran its first sizes at 65 to 115 us per message
// instead of 21 to 25 while the mark lasted.
//
// Telling "a rank of the job was out running its own code" is not enough:
// beside CPU hogs, a rank is out as long because it waits for a CPU, and a
// 16-rank alltoall beside two hogs ran a tenth slower when the server's waits
// counted so little. So the machine is asked: how many tasks are runnable on
// it now (/proc/loadavg), against how many of the job's are (the ranks' main
// threads, every thread of the server). More on the machine than in the job
// at each of kLooks looks: other load, the wait counts. (A task that sleeps
// now and then is counted runnable a moment after it slept, and some of the
// job's tasks do at start-up: with two such processes of its own, a count
// before and one after reading the job's found more on the machine than in
// the job 5% of the time, three looks in a row 0.5%; beside a CPU hog, three
// looks found it 96% of the time, and the next long wait looks again.) Those
// looks still found more on the machine in 4 of 10 sweeps at start-up (the
// ranks' other threads are the machine's count only), so a wait counts only
// once a process outside the job is seen runnable too, every process of the
// machine read one by one (ipc/other_processes.hpp). Real time decides only how
// fast answers come, never what they are.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>

namespace s4bxi::job {

// The runnable tasks in /proc/loadavg's text ("0.52 0.58 0.59 3/201 4321":
// 3), or nothing when it does not read so.
std::optional<unsigned> runnable_in_loadavg(std::string_view text);

// Whether every task that is runnable on the machine now is one of the job's
// (at one of kLooks looks): the main threads of `ranks` (their pids), every
// thread of `server`. False when the machine cannot be read, or when it
// would take reading more than kMostRanksRead ranks to tell.
inline constexpr std::size_t kMostRanksRead = 512;
inline constexpr int kLooks = 3;
bool only_the_job_runs(pid_t server, std::span<const pid_t> ranks);

} // namespace s4bxi::job
