// Lazy resolution of the real libc functions behind the hooks.
//
// dlsym(RTLD_NEXT) is asked on first use rather than in a constructor: a hook
// can run before this library's constructors (another preloaded library's
// constructor may ask the time). If dlsym itself ends up in a hook (an
// interposed malloc that reads the clock), the nested call uses the raw system
// call instead of recursing.
#include "real_functions.hpp"

#include <atomic>
#include <cerrno>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::preload::real {
namespace {

thread_local bool resolving = false;

template <typename Fn> Fn* resolve(std::atomic<Fn*>& slot, const char* name)
{
  Fn* fn = slot.load(std::memory_order_acquire);
  if (fn != nullptr or resolving)
    return fn;
  resolving = true;
  fn = reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name));
  resolving = false;
  slot.store(fn, std::memory_order_release);
  return fn;
}

using ClockGettimeFn = int(clockid_t, timespec*);
using GettimeofdayFn = int(timeval*, void*);
using TimeFn = time_t(time_t*);
using NanosleepFn = int(const timespec*, timespec*);
using ClockNanosleepFn = int(clockid_t, int, const timespec*, timespec*);
using UsleepFn = int(useconds_t);
using SleepFn = unsigned int(unsigned int);
using PthreadCreateFn = int(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
using PollFn = int(pollfd*, nfds_t, int);
using SelectFn = int(int, fd_set*, fd_set*, fd_set*, timeval*);

std::atomic<ClockGettimeFn*> clock_gettime_fn{nullptr};
std::atomic<GettimeofdayFn*> gettimeofday_fn{nullptr};
std::atomic<TimeFn*> time_fn{nullptr};
std::atomic<NanosleepFn*> nanosleep_fn{nullptr};
std::atomic<ClockNanosleepFn*> clock_nanosleep_fn{nullptr};
std::atomic<UsleepFn*> usleep_fn{nullptr};
std::atomic<SleepFn*> sleep_fn{nullptr};
std::atomic<PthreadCreateFn*> pthread_create_fn{nullptr};
std::atomic<PollFn*> poll_fn{nullptr};
std::atomic<SelectFn*> select_fn{nullptr};

} // namespace

int clock_gettime(clockid_t clock, timespec* ts)
{
  if (auto* fn = resolve(clock_gettime_fn, "clock_gettime"))
    return fn(clock, ts);
  return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

int gettimeofday(timeval* tv, void* tz)
{
  if (auto* fn = resolve(gettimeofday_fn, "gettimeofday"))
    return fn(tv, tz);
  return static_cast<int>(syscall(SYS_gettimeofday, tv, tz));
}

time_t time(time_t* out)
{
  if (auto* fn = resolve(time_fn, "time"))
    return fn(out);
  timespec ts{};
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
  if (out != nullptr)
    *out = ts.tv_sec;
  return ts.tv_sec;
}

int nanosleep(const timespec* request, timespec* remaining)
{
  if (auto* fn = resolve(nanosleep_fn, "nanosleep"))
    return fn(request, remaining);
  return static_cast<int>(syscall(SYS_nanosleep, request, remaining));
}

int poll(pollfd* fds, nfds_t count, int timeout_ms)
{
  if (auto* fn = resolve(poll_fn, "poll"))
    return fn(fds, count, timeout_ms);
  return static_cast<int>(syscall(SYS_poll, fds, count, timeout_ms));
}

int select(int count, fd_set* read, fd_set* write, fd_set* except, timeval* timeout)
{
  if (auto* fn = resolve(select_fn, "select"))
    return fn(count, read, write, except, timeout);
  return static_cast<int>(syscall(SYS_select, count, read, write, except, timeout));
}

int clock_nanosleep(clockid_t clock, int flags, const timespec* request, timespec* remaining)
{
  if (auto* fn = resolve(clock_nanosleep_fn, "clock_nanosleep"))
    return fn(clock, flags, request, remaining);
  // The libc function returns the error number instead of setting errno.
  int saved = errno;
  long rc = syscall(SYS_clock_nanosleep, clock, flags, request, remaining);
  int error = rc == -1 ? errno : 0;
  errno = saved;
  return error;
}

int usleep(useconds_t microseconds)
{
  if (auto* fn = resolve(usleep_fn, "usleep"))
    return fn(microseconds);
  timespec ts{static_cast<time_t>(microseconds / 1000000), static_cast<long>(microseconds % 1000000) * 1000};
  return real::nanosleep(&ts, nullptr);
}

unsigned int sleep(unsigned int seconds)
{
  if (auto* fn = resolve(sleep_fn, "sleep"))
    return fn(seconds);
  timespec ts{static_cast<time_t>(seconds), 0};
  timespec left{};
  if (real::nanosleep(&ts, &left) == 0)
    return 0;
  return static_cast<unsigned int>(left.tv_sec) + (left.tv_nsec > 0 ? 1 : 0);
}

unsigned long long thread_cpu_ns()
{
  timespec ts{};
  real::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<unsigned long long>(ts.tv_sec) * 1000000000ULL + static_cast<unsigned long long>(ts.tv_nsec);
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*start)(void*), void* argument)
{
  auto* fn = resolve(pthread_create_fn, "pthread_create");
  return fn != nullptr ? fn(thread, attributes, start, argument) : EAGAIN;
}

} // namespace s4bxi::preload::real
