#include "sync_timer.hpp"

#include "rank_client.hpp"
#include "real_functions.hpp"
#include "sim_clock.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <ctime>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::preload::sync_timer {

namespace {

// A real-time signal, three below the last: the program's own uses of the
// first ones (and glibc's internal ones) stay untouched. Both timers use it;
// their sigev_value tells them apart.
int timer_signal()
{
  return SIGRTMAX - 3;
}

constexpr int kCpuTimer = 0;
constexpr int kWallTimer = 1;
// Wall-clock syncs after an answer, before the CPU timer alone takes over:
// a spin on a flag that a call just requested is seen within a quantum, and
// a long compute pays a round trip per tick, not per quantum (a round trip
// that wakes a sleeping server costs ~100 us here: 10% at one per ms).
constexpr int kWallSyncs = 3;

int64_t quantum = 0;   // 0: no preemption in this process
bool installed = false; // the handler is ours

// The calling thread's timers, deleted when the thread ends.
struct ThreadTimers {
  timer_t cpu{};
  timer_t wall{};
  bool cpu_created = false;
  bool wall_created = false;
  bool wall_armed = false;
  int wall_syncs = 0; // syncs made by the wall-clock timer since the last call's answer
  uint64_t cpu_at_wall_arm = 0; // the thread's CPU time when the wall timer was armed
  ~ThreadTimers()
  {
    if (cpu_created)
      timer_delete(cpu);
    if (wall_created)
      timer_delete(wall);
  }
};
thread_local ThreadTimers timers;

bool create_timer(clockid_t clock, int which, timer_t& id)
{
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = timer_signal();
  event.sigev_value.sival_int = which;
  event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  return timer_create(clock, &event, &id) == 0;
}

itimerspec after(int64_t ns, bool periodic)
{
  itimerspec value{};
  value.it_value.tv_sec = ns / 1'000'000'000;
  value.it_value.tv_nsec = ns % 1'000'000'000;
  if (periodic)
    value.it_interval = value.it_value;
  return value;
}

void arm_for_this_thread()
{
  if (not create_timer(CLOCK_THREAD_CPUTIME_ID, kCpuTimer, timers.cpu))
    return;
  timers.cpu_created = true;
  const itimerspec period = after(quantum, true);
  timer_settime(timers.cpu, 0, &period, nullptr);
  // Created now, started only from the handler (timer_create is not
  // async-signal-safe; timer_settime is).
  timers.wall_created = create_timer(CLOCK_MONOTONIC, kWallTimer, timers.wall);
}

// One shot, `ns` of wall-clock time from now (timer_settime is
// async-signal-safe).
void arm_wall_timer(int64_t ns, uint64_t cpu_now)
{
  const itimerspec once = after(ns, false);
  timers.cpu_at_wall_arm = cpu_now;
  timers.wall_armed = timer_settime(timers.wall, 0, &once, nullptr) == 0;
}

void on_tick(int, siginfo_t* info, void*)
{
  const int saved_errno = errno;
  if (not sim_clock::may_pause_compute()) {
    // Entering or leaving the library: a look again shortly (the CPU
    // timer comes again by itself; the wall-clock one was a single shot).
    if (info->si_value.sival_int == kWallTimer)
      arm_wall_timer(std::max<int64_t>(quantum / 20, 10'000), sim_clock::thread_cpu_if_measured());
    errno = saved_errno;
    return;
  }
  // The CPU timer of a thread the server runs ahead of (the wall-clock syncs
  // after an answer still come: a spin on a flag its call just requested is
  // seen within a quantum, not when /proc tells the server its CPU time).
  if (info->si_value.sival_int == kCpuTimer && client::runs_ahead_without_syncs()) {
    errno = saved_errno;
    return;
  }
  // The handler's own CPU time is the emulator's, not the program's (a tick
  // that lands between two MPI calls made that short stretch pass for compute).
  sim_clock::pause_compute();
  struct Resume {
    ~Resume() { sim_clock::resume_compute(); }
  } resume;
  // The server enables preemption only when compute is measured, so the
  // thread's CPU clock is.
  const uint64_t cpu_now = sim_clock::thread_cpu_if_measured();
  const uint64_t since_reply = sim_clock::compute_since_reply(cpu_now);
  if (info->si_value.sival_int == kWallTimer) {
    timers.wall_armed = false;
    // It did not run since the timer was armed: it sleeps (in a wait, or in
    // the kernel). Left disarmed until its next answer. (A thread that runs
    // but gets little CPU, on a loaded machine, keeps its timer: its syncs
    // still come every quantum of its CPU time.)
    if (cpu_now - timers.cpu_at_wall_arm < static_cast<uint64_t>(quantum) / 50) {
      errno = saved_errno;
      return;
    }
    // It runs: a sync once it has run most of a quantum since its answer
    // (the period is wall-clock time, of which it got most), else a look
    // again when it will have.
    if (since_reply < static_cast<uint64_t>(quantum) / 2) {
      arm_wall_timer(quantum - static_cast<int64_t>(since_reply), cpu_now);
    } else if (timers.wall_syncs < kWallSyncs) {
      timers.wall_syncs++; // (before the sync: its answer re-arms the timer)
      if (not client::sync_from_signal_handler())
        arm_wall_timer(quantum, cpu_now);
    }
    errno = saved_errno;
    return;
  }
  // A whole quantum of this thread's CPU time since its last reply (the
  // kernel's tick may make it more).
  if (since_reply >= static_cast<uint64_t>(quantum))
    client::sync_from_signal_handler();
  errno = saved_errno;
}

} // namespace

void start(int64_t quantum_ns)
{
  if (quantum_ns <= 0)
    return;
  struct sigaction current {};
  if (sigaction(timer_signal(), nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
    return;
  struct sigaction action {};
  action.sa_sigaction = on_tick;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(timer_signal(), &action, nullptr);
  quantum = quantum_ns;
  installed = true;
  arm_for_this_thread();
}

void start_for_new_thread()
{
  if (not installed)
    return;
  arm_for_this_thread();
  // As if it had just got an answer: it may spin from its first instruction.
  if (timers.wall_created)
    arm_wall_timer(quantum, real::thread_cpu_ns());
}

void after_reply(uint64_t thread_cpu_ns, bool sync)
{
  if (not sync)
    timers.wall_syncs = 0;
  // An answer inside an MPI call: the library calls again until the call
  // returns, so the wall-clock timer has no spin to catch (the CPU timer still
  // catches one after the call). Its signal would only cost: delivered when a
  // rank that the other ranks kept from running for a quantum gets its CPU
  // back, between two MPI calls, its kernel time there passed for compute
  // (2 us more per 16-rank alltoall, against 8.3 for the network alone).
  if (sim_clock::inside_library())
    return;
  if (quantum > 0 and timers.wall_created and not timers.wall_armed and timers.wall_syncs < kWallSyncs)
    arm_wall_timer(quantum, thread_cpu_ns);
}

} // namespace s4bxi::preload::sync_timer
