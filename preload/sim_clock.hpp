// The process's simulated clock, answered locally between two round trips.
//
// Every reply carries the simulated time at which the call returns. Until the
// next reply, the clock advances by the thread CPU time the caller consumes,
// scaled by the run's CPU factor: the same compute that the server will inject
// when the next call arrives. So a time query needs no round trip, and the
// simulated time it shows agrees with what the server will account.
#pragma once

#include <atomic>
#include <cmath>
#include <cstdint>

namespace s4bxi::ipc {
struct LibraryTotals;
}

namespace s4bxi::preload::sim_clock {

// Compute enters simulated time as thread CPU time x factor, when a burst
// reaches the threshold (seconds, after the factor).
void set_compute_model(double factor, double threshold_s);

// Where the server publishes the simulated time of releases that are not
// replies (PMI answers); the clock never shows less than the latest one.
void watch_releases(const std::atomic<uint32_t>* generation, const double* now);

// Where the process tells the server the latest time its clock showed
// (ipc::Channel::latest_clock_ns).
void publish_readings_to(std::atomic<int64_t>* latest_clock_ns);

// Thread CPU time (ns) the calling thread consumed since its previous reply:
// the compute the server injects before it handles the call being sent.
uint64_t compute_since_reply(uint64_t thread_cpu_now_ns);

// The calling thread's CPU time (ns) that counts as compute (its time inside
// the communication library left out, see library_enter), or 0 when compute
// is not simulated.
uint64_t thread_cpu_if_measured();

// The calling thread is about to measure its compute for a call: its
// compute stops counting for the server (LibraryTotals::counting_since_cpu_ns)
// until the answer, so that the bound of its clock (s4bxi/run-ahead) never
// reads CPU time spent preparing the call, after the measure.
void call_begins();

// Records a reply received by the calling thread.
void on_reply(double now_seconds, uint64_t thread_cpu_now_ns);

// Simulated seconds as the process's nanoseconds (rounded to the nearest).
inline int64_t to_ns(double seconds)
{
  return static_cast<int64_t>(std::llround(seconds * 1e9));
}

// Simulated nanoseconds since the simulated epoch, never smaller than a value
// already returned to any thread of the process.
int64_t now_ns();

// A call the process answers itself (local_polls.hpp), planned from the
// compute since the thread's last reply or local step: it starts at
// `start_ns`. Possible only for the thread that received the latest reply,
// while the clock shows nothing the server does not know of (no release by a
// PMI answer since, no later reading by another thread). `burst_cpu_ns` is
// the thread CPU time of that compute, `counted` whether it reached the
// threshold (and is simulated time, which the server must inject).
struct LocalStep {
  bool possible = false;
  int64_t start_ns = 0;
  bool counted = false;
  uint64_t burst_cpu_ns = 0;
  uint64_t cpu_ns = 0;
};
LocalStep plan_local_step();
// Takes a planned step that ends at `end_ns`: the clock moves on to it, and
// the next request's compute starts from here.
void take_local_step(const LocalStep& step, int64_t end_ns);
// After a step: the CPU time the thread spent since its reading was the
// emulator's (a system call of the call it answered): its compute and its
// clock go on from now.
void leave_out_own_work();

// The calling thread takes a lane of its own (ipc::Lane): from now on its
// clock follows its own replies only, starting from `now` (nanoseconds).
void start_own_timeline(int64_t now);

// Calls into the communication library (preload/mpi_hooks: the MPI functions
// the program calls). What the library does between two Portals calls (its
// progress loop, its bookkeeping, and what the emulator adds to it: local
// answers, caches cold after each switch to the server) is not the program's
// compute: with `exclude_cpu` (s4bxi/library-compute:modelled), the thread's
// CPU clock stands still from its outermost library_enter to the matching
// library_leave, and the library costs what the Portals model charges for
// its calls. `totals` (in the channel, read by the server for the report)
// counts the calls, the simulated time spent inside them and the CPU time
// they took. Calls nest (a library function calling another); only the
// outermost counts.
void set_library_accounting(bool exclude_cpu, ipc::LibraryTotals* totals);

// The emulator's own work on a program's thread outside any call (the
// preemption timer's signal handler): the thread's CPU clock stands still
// meanwhile, as inside the library, whatever s4bxi/library-compute says.
// Not nested: one handler at a time on a thread. Not while the thread
// enters or leaves the library either (may_pause_compute): a handler that
// paused and resumed the clock in the middle of library_enter published the
// clock as counting for the whole library call, and the server, running the
// simulation ahead of a computing rank (s4bxi/run-ahead), counted the
// library's time as compute.
bool may_pause_compute();
void pause_compute();
void resume_compute();
void library_enter();
void library_leave();
// Whether the calling thread is inside a call into the library.
bool inside_library();

} // namespace s4bxi::preload::sim_clock
