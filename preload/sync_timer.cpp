#include "sync_timer.hpp"

#include "rank_client.hpp"
#include "sim_clock.hpp"

#include <cerrno>
#include <csignal>
#include <ctime>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::preload::sync_timer {

namespace {

// A real-time signal, three below the last: the program's own uses of the
// first ones (and glibc's internal ones) stay untouched.
int timer_signal()
{
  return SIGRTMAX - 3;
}

int64_t quantum = 0;   // 0: no preemption in this process
bool installed = false; // the handler is ours

// The calling thread's timer, deleted when the thread ends.
struct ThreadTimer {
  timer_t id{};
  bool armed = false;
  ~ThreadTimer()
  {
    if (armed)
      timer_delete(id);
  }
};
thread_local ThreadTimer thread_timer;

void arm_for_this_thread()
{
  sigevent event {};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = timer_signal();
  event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &thread_timer.id) != 0)
    return;
  thread_timer.armed = true;
  itimerspec period {};
  period.it_value.tv_sec = quantum / 1'000'000'000;
  period.it_value.tv_nsec = quantum % 1'000'000'000;
  period.it_interval = period.it_value;
  timer_settime(thread_timer.id, 0, &period, nullptr);
}

void on_tick(int, siginfo_t*, void*)
{
  const int saved_errno = errno;
  // A whole quantum of this thread's CPU time since its last reply. The
  // server enables the timer only when compute is measured, so the clock is.
  if (sim_clock::compute_since_reply(sim_clock::thread_cpu_if_measured()) >= static_cast<uint64_t>(quantum))
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
  if (installed)
    arm_for_this_thread();
}

} // namespace s4bxi::preload::sync_timer
