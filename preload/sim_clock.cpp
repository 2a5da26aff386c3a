// Threads: a reply received by one thread moves the clock of every thread on
// the same timeline. The threads that call through the rank's channel share
// the process's timeline; a thread with a lane of its own (ipc::Lane) has its
// own, which its replies alone move. A thread that did not make the call
// restarts its local extrapolation from that reply, taking its own CPU time
// at the moment it notices the reply as origin; CPU time is per thread, so
// the replying thread's CPU reading means nothing to it.
#include "sim_clock.hpp"

#include "real_functions.hpp"

#include "segment.hpp"

#include <atomic>
#include <cmath>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::preload::sim_clock {
namespace {

std::atomic<double> cpu_factor{0.0};
std::atomic<double> cpu_threshold_ns{0.0};
// The CPU time one reading of the thread's CPU clock costs (a system call on
// many machines: 0.3 us and more on a VM). Each burst spans one reading of
// ours, which is the emulator's work, not the program's: it is not compute.
std::atomic<uint64_t> reading_cost_ns{0};

// Releases by the server other than replies (PMI answers), in the channel.
const std::atomic<uint32_t>* release_generation = nullptr;
const double* release_now = nullptr;
thread_local uint32_t release_seen = 0;

// Raises `word` to `value` if it holds less; returns what it held before.
int64_t raise_to(std::atomic<int64_t>& word, int64_t value)
{
  int64_t held = word.load(std::memory_order_relaxed);
  while (value > held && not word.compare_exchange_weak(held, value, std::memory_order_relaxed)) {
  }
  return held;
}

// ipc::Channel::latest_clock_ns: the largest value the clock returned to
// any thread of the process, timelines of their own included. (Relaxed:
// whatever the thread does next that may wake another process, a system
// call, orders it; the server reads it after it saw that wake.)
std::atomic<int64_t>* published_reading = nullptr;

struct Timeline {
  // Latest reply of any thread on it. `generation` is published after
  // `reply_ns`, so a thread that sees a generation also sees that reply's
  // time (or a later one).
  std::atomic<int64_t> reply_ns{0};
  std::atomic<uint64_t> generation{0};
  // Largest value returned so far: the clamp that keeps the clock monotonic
  // across threads and across the rounding of CPU readings.
  std::atomic<int64_t> latest_returned_ns{0};
};
Timeline process_timeline;
thread_local Timeline own_timeline; // a thread's with a lane of its own
thread_local Timeline* timeline = &process_timeline;

struct ThreadClock {
  uint64_t seen_generation = 0; // reply the extrapolation below starts from
  uint64_t own_generation = 0;  // the latest reply this thread received itself
  uint32_t releases_at_reply = 0;
  int64_t base_ns = 0;
  uint64_t base_cpu_ns = 0;
  uint64_t compute_mark_ns = 0; // thread CPU time at this thread's own last reply
};
thread_local ThreadClock self;

// The thread's visit to the communication library (library_enter).
struct LibraryVisit {
  int depth = 0;
  int64_t entry_sim_ns = 0;
  uint64_t entry_cpu_ns = 0; // the real thread CPU clock at the outermost entry
  // While inside with exclude_library_cpu: the compute clock stands at this.
  bool frozen = false;
  uint64_t frozen_at_ns = 0;
  uint64_t excluded_ns = 0; // CPU time spent inside so far: never compute
  // The real thread CPU clock when the last outermost call returned (0:
  // none yet): the program's own segment since then ends at the next entry.
  uint64_t left_at_cpu_ns = 0;
  uint64_t excluded_at_leave_ns = 0;
  // Frozen by pause_compute (the clock was running): resume_compute restarts it.
  bool paused = false;

  // The compute clock stops at the real reading `cpu_ns`...
  void freeze(uint64_t cpu_ns)
  {
    frozen_at_ns = cpu_ns - excluded_ns;
    frozen = true;
  }
  // ... and goes on from where it stood: everything since, up to the
  // reading `cpu_ns`, is left out.
  void thaw(uint64_t cpu_ns)
  {
    excluded_ns = cpu_ns - frozen_at_ns;
    frozen = false;
  }
};
thread_local LibraryVisit library;
// The thread is in library_enter or library_leave, which change the clock's
// state step by step: a signal handler that paused and resumed the clock
// there would leave it half changed (sync_timer.cpp asks may_pause_compute).
thread_local bool visit_changing = false;
struct VisitChange {
  VisitChange()
  {
    visit_changing = true;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~VisitChange()
  {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    visit_changing = false;
  }
  VisitChange(const VisitChange&) = delete;
  VisitChange& operator=(const VisitChange&) = delete;
};
std::atomic<bool> exclude_library_cpu{false};
ipc::LibraryTotals* library_totals = nullptr;

// Tells the server from when the main thread's compute surely counts
// (LibraryTotals::counting_since_cpu_ns).
void publish_counting(uint64_t raw_cpu_ns)
{
  static const pid_t main_tid = getpid();
  thread_local const bool is_main = static_cast<pid_t>(syscall(SYS_gettid)) == main_tid;
  // (Sequentially consistent: a count stopped is seen before any CPU time
  // the thread spends after it, which the server reads in /proc.)
  if (library_totals != nullptr && is_main)
    library_totals->counting_since_cpu_ns.store(raw_cpu_ns, std::memory_order_seq_cst);
}

} // namespace

void watch_releases(const std::atomic<uint32_t>* generation, const double* now)
{
  release_now = now;
  release_generation = generation;
}

void publish_readings_to(std::atomic<int64_t>* latest_clock_ns)
{
  published_reading = latest_clock_ns;
}

// CPU consumed between two readings, less the cost of one reading.
uint64_t consumed_between(uint64_t before_ns, uint64_t after_ns)
{
  const uint64_t cost = reading_cost_ns.load(std::memory_order_relaxed);
  return after_ns > before_ns + cost ? after_ns - before_ns - cost : 0;
}

void set_compute_model(double factor, double threshold_s)
{
  cpu_factor.store(factor, std::memory_order_relaxed);
  cpu_threshold_ns.store(threshold_s * 1e9, std::memory_order_relaxed);
  if (factor <= 0)
    return;
  // The cheapest of a few back-to-back readings: what a reading costs
  // when nothing else interferes.
  uint64_t cheapest = UINT64_MAX;
  uint64_t previous = real::thread_cpu_ns();
  for (int i = 0; i < 32; ++i) {
    const uint64_t now = real::thread_cpu_ns();
    cheapest = std::min(cheapest, now - previous);
    previous = now;
  }
  reading_cost_ns.store(cheapest, std::memory_order_relaxed);
}

uint64_t compute_since_reply(uint64_t thread_cpu_now_ns)
{
  return consumed_between(self.compute_mark_ns, thread_cpu_now_ns);
}

void call_begins()
{
  if (cpu_factor.load(std::memory_order_relaxed) > 0)
    publish_counting(0);
}

void on_reply(double now_seconds, uint64_t thread_cpu_now_ns)
{
  int64_t ns = to_ns(now_seconds);
  timeline->reply_ns.store(ns, std::memory_order_relaxed);
  uint64_t gen = timeline->generation.fetch_add(1, std::memory_order_release) + 1;
  self.seen_generation = gen;
  self.own_generation = gen;
  self.releases_at_reply =
      release_generation != nullptr ? release_generation->load(std::memory_order_acquire) : 0;
  self.base_ns = ns;
  self.base_cpu_ns = thread_cpu_now_ns;
  self.compute_mark_ns = thread_cpu_now_ns;
  if (cpu_factor.load(std::memory_order_relaxed) > 0)
    publish_counting(library.frozen ? 0 : thread_cpu_now_ns + library.excluded_ns);
}

uint64_t thread_cpu_if_measured()
{
  // Reading a thread's CPU time is a system call (no vDSO): skip it when the
  // run does not simulate compute (s4bxi/compute:none gives a factor of 0),
  // and inside the library, where the clock stands still.
  if (cpu_factor.load(std::memory_order_relaxed) <= 0)
    return 0;
  if (library.frozen)
    return library.frozen_at_ns;
  return real::thread_cpu_ns() - library.excluded_ns;
}

int64_t now_ns()
{
  uint64_t cpu = thread_cpu_if_measured();
  uint64_t gen = timeline->generation.load(std::memory_order_acquire);
  if (gen != self.seen_generation) {
    self.seen_generation = gen;
    self.base_ns = timeline->reply_ns.load(std::memory_order_relaxed);
    self.base_cpu_ns = cpu;
  }
  double factor = cpu_factor.load(std::memory_order_relaxed);
  uint64_t consumed = consumed_between(self.base_cpu_ns, cpu);
  double compute_ns = static_cast<double>(consumed) * factor;
  // The server ignores bursts under the threshold; so does the clock, or it
  // would show time that the simulation never accounts.
  if (compute_ns < cpu_threshold_ns.load(std::memory_order_relaxed))
    compute_ns = 0;
  int64_t now = self.base_ns + static_cast<int64_t>(compute_ns);
  // Released at a later simulated time by a PMI answer (a barrier that the
  // other ranks reached later): the clock restarts from there.
  if (release_generation != nullptr) {
    uint32_t generation_now = release_generation->load(std::memory_order_acquire);
    if (generation_now != release_seen) {
      release_seen = generation_now;
      int64_t released = to_ns(*release_now);
      if (released > now) {
        self.base_ns = released;
        self.base_cpu_ns = cpu;
        now = released;
      }
    }
  }

  if (const int64_t latest = raise_to(timeline->latest_returned_ns, now); now <= latest)
    return latest;
  if (published_reading != nullptr)
    raise_to(*published_reading, now);
  return now;
}

LocalStep plan_local_step()
{
  if (self.own_generation != timeline->generation.load(std::memory_order_acquire))
    return {};
  if (release_generation != nullptr &&
      release_generation->load(std::memory_order_acquire) != self.releases_at_reply)
    return {};
  const uint64_t cpu = thread_cpu_if_measured();
  const uint64_t burst = consumed_between(self.compute_mark_ns, cpu);
  // The burst, thresholded as the server does for the compute of a call.
  double compute_ns = static_cast<double>(burst) * cpu_factor.load(std::memory_order_relaxed);
  if (compute_ns < cpu_threshold_ns.load(std::memory_order_relaxed))
    compute_ns = 0;
  const int64_t start = self.base_ns + static_cast<int64_t>(compute_ns);
  if (start < timeline->latest_returned_ns.load(std::memory_order_relaxed))
    return {};
  return {true, start, compute_ns > 0, burst, cpu};
}

void take_local_step(const LocalStep& step, int64_t end_ns)
{
  self.base_ns = end_ns;
  self.base_cpu_ns = step.cpu_ns;
  self.compute_mark_ns = step.cpu_ns;
}

void leave_out_own_work()
{
  const uint64_t cpu = thread_cpu_if_measured();
  if (cpu == 0)
    return;
  self.base_cpu_ns = cpu;
  self.compute_mark_ns = cpu;
}

void start_own_timeline(int64_t now)
{
  const uint64_t cpu = thread_cpu_if_measured();
  own_timeline.reply_ns.store(now, std::memory_order_relaxed);
  own_timeline.latest_returned_ns.store(now, std::memory_order_relaxed);
  own_timeline.generation.store(1, std::memory_order_release);
  timeline = &own_timeline;
  self.seen_generation = 1;
  self.own_generation = 1;
  self.base_ns = now;
  self.base_cpu_ns = cpu;
  self.compute_mark_ns = cpu;
}

void set_library_accounting(bool exclude_cpu, ipc::LibraryTotals* totals)
{
  exclude_library_cpu.store(exclude_cpu, std::memory_order_relaxed);
  library_totals = totals;
}

bool inside_library()
{
  return library.depth > 0;
}

bool may_pause_compute()
{
  return not visit_changing;
}

void pause_compute()
{
  if (cpu_factor.load(std::memory_order_relaxed) <= 0 or library.frozen)
    return;
  library.freeze(real::thread_cpu_ns());
  library.paused = true;
  publish_counting(0);
}

void resume_compute()
{
  if (not library.paused)
    return;
  library.paused = false;
  const uint64_t now = real::thread_cpu_ns();
  library.thaw(now);
  publish_counting(now);
}

void library_enter()
{
  const VisitChange changing;
  if (library.depth++ > 0)
    return;
  publish_counting(0);
  if (const double factor = cpu_factor.load(std::memory_order_relaxed); factor > 0) {
    library.entry_cpu_ns = real::thread_cpu_ns();
    if (exclude_library_cpu.load(std::memory_order_relaxed)) {
      // The program's segment since its previous MPI call, when it is
      // under the threshold, is not compute either (as SMPI's
      // smpi/cpu-threshold, per segment between two MPI calls): here such
      // a segment is mostly the emulator's (the end of one wrapper, the
      // start of the next, their clock readings), run with caches that the
      // other ranks' processes keep cold, 0.5 to 2 us of CPU where a real
      // node spends tens of ns; summed over a progress loop of MPI_Test
      // calls, or a barrier and a collective, they passed for compute.
      if (library.left_at_cpu_ns != 0) {
        const uint64_t segment = consumed_between(library.left_at_cpu_ns, library.entry_cpu_ns);
        // (The clock then stands where the call returned, whatever was
        // left out meanwhile: a signal handler's time, say.)
        if (static_cast<double>(segment) * factor < cpu_threshold_ns.load(std::memory_order_relaxed))
          library.excluded_ns = library.excluded_at_leave_ns + (library.entry_cpu_ns - library.left_at_cpu_ns);
      }
      library.freeze(library.entry_cpu_ns);
    }
  }
  library.entry_sim_ns = now_ns(); // (frozen: no second reading)
}

void library_leave()
{
  const VisitChange changing;
  // (An unmatched leave: a call that was already running when the process
  // attached, or one left by a longjmp.)
  if (library.depth == 0 or --library.depth > 0)
    return;
  const int64_t left_at = now_ns(); // before the clock runs again
  uint64_t cpu_inside = 0;
  if (cpu_factor.load(std::memory_order_relaxed) > 0) {
    const uint64_t cpu_now = real::thread_cpu_ns();
    library.left_at_cpu_ns = cpu_now;
    cpu_inside = consumed_between(library.entry_cpu_ns, cpu_now);
    if (library.frozen) // everything since the entry, the readings included, is the library's
      library.thaw(cpu_now);
    library.excluded_at_leave_ns = library.excluded_ns;
    publish_counting(cpu_now);
  }
  if (library_totals != nullptr) {
    library_totals->calls.fetch_add(1, std::memory_order_relaxed);
    if (left_at > library.entry_sim_ns)
      library_totals->simulated_ns.fetch_add(static_cast<uint64_t>(left_at - library.entry_sim_ns),
                                             std::memory_order_relaxed);
    library_totals->cpu_ns.fetch_add(cpu_inside, std::memory_order_relaxed);
  }
}

} // namespace s4bxi::preload::sim_clock
