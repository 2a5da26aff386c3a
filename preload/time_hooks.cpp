// The libc time and sleep functions, on simulated time.
//
// Time queries are answered locally from the simulated clock (no round trip);
// sleeps are forwarded, and the server lets simulated time pass. poll() and
// select() on no descriptor at all, with a timeout, are sleeps too (an old
// idiom for sub-second sleeps); with descriptors they are real waits (if they
// block, the simulation goes on without the rank: rank_proxy.cpp). CPU-time
// clocks stay real: they measure the work the program really does, which is
// also what the emulator injects as compute. A process that is not a rank of
// the run (started by hand, forked by a rank) sees the real functions.
#include "export.hpp"
#include "rank_client.hpp"
#include "real_functions.hpp"
#include "sim_clock.hpp"

#include <cerrno>
#include <ctime>
#include <sys/time.h>
#include <unistd.h>

namespace s4bxi::preload {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;

enum class SimClock { None, Realtime, Monotonic };

SimClock simulated_clock(clockid_t clock)
{
  switch (clock) {
  case CLOCK_REALTIME:
  case CLOCK_REALTIME_COARSE:
  case CLOCK_REALTIME_ALARM:
  case CLOCK_TAI:
    return SimClock::Realtime;
  case CLOCK_MONOTONIC:
  case CLOCK_MONOTONIC_RAW:
  case CLOCK_MONOTONIC_COARSE:
  case CLOCK_BOOTTIME:
  case CLOCK_BOOTTIME_ALARM:
    return SimClock::Monotonic;
  default: // CPU-time clocks (including the negative per-pid and per-thread ids), invalid ids
    return SimClock::None;
  }
}

// After Exit the clock still reads simulated time (the last destructors must
// not see time jump back to the host's), but nothing can be forwarded anymore.
bool on_simulated_time()
{
  auto state = client::state();
  return state == client::State::Attached or state == client::State::Exited;
}

int64_t read_ns(SimClock clock)
{
  client::resync_if_stale();
  int64_t now = sim_clock::now_ns();
  const ipc::ClockConfig& config = client::clock_config();
  return now + (clock == SimClock::Realtime ? config.realtime_epoch_ns : config.monotonic_origin_ns);
}

timespec to_timespec(int64_t ns)
{
  int64_t sec = ns / kNsPerSecond;
  int64_t nsec = ns % kNsPerSecond;
  if (nsec < 0) { // before 1970 with a negative epoch: keep tv_nsec in [0, 1e9)
    nsec += kNsPerSecond;
    --sec;
  }
  return timespec{static_cast<time_t>(sec), static_cast<long>(nsec)};
}

// libc declares some pointer arguments nonnull, which would let the compiler
// drop our checks; programs still pass NULL (gettimeofday(NULL, &tz) is old
// practice), so the check must survive. The empty asm hides what the compiler
// believes about the pointer.
template <typename T> bool is_null(T* pointer)
{
  asm("" : "+r"(pointer));
  return pointer == nullptr;
}

bool valid(const timespec& ts)
{
  return ts.tv_sec >= 0 and ts.tv_nsec >= 0 and ts.tv_nsec < kNsPerSecond;
}

// Sleeping is a call like any other: even a zero sleep lets the server inject
// the compute done so far, which is what makes a sleep-polling loop progress.
void sleep_for(double seconds)
{
  ipc::Request request;
  request.op = ipc::Op::Sleep;
  request.args.sleep.seconds = seconds > 0 ? seconds : 0.0;
  request.args.sleep.not_before = static_cast<double>(sim_clock::now_ns()) * 1e-9 + request.args.sleep.seconds;
  ipc::Reply reply;
  client::call(request, reply);
}

double seconds_of(const timespec& ts)
{
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Seconds from now until the absolute time `target` on `clock`, computed as a
// difference of seconds and of nanoseconds so that far-away targets cannot
// overflow a nanosecond count.
double seconds_until(SimClock clock, const timespec& target)
{
  timespec now = to_timespec(read_ns(clock));
  return static_cast<double>(target.tv_sec - now.tv_sec) + static_cast<double>(target.tv_nsec - now.tv_nsec) * 1e-9;
}

} // namespace
} // namespace s4bxi::preload

using namespace s4bxi::preload;

extern "C" {

S4BXI_EXPORT int clock_gettime(clockid_t clock, struct timespec* ts) noexcept
{
  SimClock kind = simulated_clock(clock);
  if (kind == SimClock::None or not on_simulated_time())
    return real::clock_gettime(clock, ts);
  if (is_null(ts)) {
    errno = EFAULT;
    return -1;
  }
  *ts = to_timespec(read_ns(kind));
  return 0;
}

S4BXI_EXPORT int gettimeofday(struct timeval* tv, void* tz) noexcept
{
  if (not on_simulated_time())
    return real::gettimeofday(tv, tz);
  if (not is_null(tv)) {
    timespec ts = to_timespec(read_ns(SimClock::Realtime));
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = static_cast<suseconds_t>(ts.tv_nsec / 1000);
  }
  if (tz != nullptr) { // obsolete; libc reports UTC with no DST too
    auto* zone = static_cast<struct timezone*>(tz);
    zone->tz_minuteswest = 0;
    zone->tz_dsttime = 0;
  }
  return 0;
}

S4BXI_EXPORT time_t time(time_t* out) noexcept
{
  if (not on_simulated_time())
    return real::time(out);
  time_t now = to_timespec(read_ns(SimClock::Realtime)).tv_sec;
  if (out != nullptr)
    *out = now;
  return now;
}

S4BXI_EXPORT int nanosleep(const struct timespec* request, struct timespec* remaining)
{
  if (not on_simulated_time())
    return real::nanosleep(request, remaining);
  if (request == nullptr) {
    errno = EFAULT;
    return -1;
  }
  if (not valid(*request)) {
    errno = EINVAL;
    return -1;
  }
  // A simulated sleep is never interrupted, so `remaining` is left alone, as
  // libc does when the sleep completes.
  sleep_for(seconds_of(*request));
  return 0;
}

S4BXI_EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec* request,
                                 struct timespec* remaining)
{
  SimClock kind = SimClock::None;
  switch (clock) { // the clocks libc can sleep on without special privileges
  case CLOCK_REALTIME:
  case CLOCK_TAI:
    kind = SimClock::Realtime;
    break;
  case CLOCK_MONOTONIC:
  case CLOCK_BOOTTIME:
    kind = SimClock::Monotonic;
    break;
  default:
    break;
  }
  // Other clocks: CPU-time sleeps are real, invalid ones get libc's error.
  if (kind == SimClock::None or not on_simulated_time())
    return real::clock_nanosleep(clock, flags, request, remaining);
  if (request == nullptr)
    return EFAULT;
  if (not valid(*request))
    return EINVAL;
  sleep_for((flags & TIMER_ABSTIME) != 0 ? seconds_until(kind, *request) : seconds_of(*request));
  return 0;
}

S4BXI_EXPORT int usleep(useconds_t microseconds)
{
  if (not on_simulated_time())
    return real::usleep(microseconds);
  sleep_for(static_cast<double>(microseconds) * 1e-6);
  return 0;
}

S4BXI_EXPORT unsigned int sleep(unsigned int seconds)
{
  if (not on_simulated_time())
    return real::sleep(seconds);
  sleep_for(static_cast<double>(seconds));
  return 0;
}

S4BXI_EXPORT int poll(struct pollfd* fds, nfds_t count, int timeout_ms)
{
  if (count != 0 or timeout_ms < 0 or not on_simulated_time())
    return real::poll(fds, count, timeout_ms);
  sleep_for(static_cast<double>(timeout_ms) * 1e-3);
  return 0; // the timeout expired
}

S4BXI_EXPORT int select(int count, fd_set* read, fd_set* write, fd_set* except, struct timeval* timeout)
{
  if (count != 0 or timeout == nullptr or not on_simulated_time())
    return real::select(count, read, write, except, timeout);
  if (timeout->tv_sec < 0 or timeout->tv_usec < 0 or timeout->tv_usec >= 1000000) {
    errno = EINVAL;
    return -1;
  }
  sleep_for(static_cast<double>(timeout->tv_sec) + static_cast<double>(timeout->tv_usec) * 1e-6);
  // Linux reports the time left, which is none.
  timeout->tv_sec = 0;
  timeout->tv_usec = 0;
  return 0;
}

} // extern "C"
