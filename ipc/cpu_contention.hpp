// Whether other processes want this process's CPU, learned from its own
// sched_yield calls.
//
// A waiter that spins and yields now and then (ipc::wait_for_ring) wins when
// the machine has a free CPU: its peer's answer comes within microseconds and
// costs no wake-up. When every CPU is busy with other work (other jobs, CPU
// hogs), each yield hands the CPU over for a whole scheduler slice (0.7 ms and
// more), and an answer that comes meanwhile waits for the slice to end: a
// spinning waiter is not woken, whereas one asleep in FUTEX_WAIT is, at once.
// Under two busy processes on two cores this made a 16-rank MPI allreduce
// loop take 31-35 s instead of 1.6-1.8 s with sleeping waiters.
//
// So a yield that took long (another process, ours or not, had the CPU for a
// while) marks the process as contended for a while, during which its waiters
// sleep at once instead of spinning. Once the while is over, the next wait
// spins again: that probe costs one slice when the load is still there.
// Real time decides only how fast an answer comes, never what it is.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::ipc {

// A cheap, monotonic tick count: the time-stamp counter on x86 (no system
// call, and not the C library's clock_gettime, which a rank's preload answers
// in simulated time), nanoseconds elsewhere. Only differences are used, with
// bounds loose enough for any TSC rate between 1 and 5 GHz.
inline uint64_t contention_ticks()
{
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  timespec now{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(now.tv_nsec);
#endif
}

class CpuContention {
public:
  // A yield longer than this gave the CPU away for a slice: 40 to 200 us. A
  // yield with nothing else to run takes about a microsecond.
  static constexpr uint64_t kSlowYieldTicks = 200'000;
  // How long the process stays contended after a slow yield: 20 to 100 ms,
  // so that the probe's slice is a few percent of the time at most.
  static constexpr uint64_t kContendedTicks = 100'000'000;

  // Whether spinning may pay now: no slow yield seen lately.
  static bool spinning_pays()
  {
    return not detecting_.load(std::memory_order_relaxed) ||
           contention_ticks() >= contended_until_.load(std::memory_order_relaxed);
  }

  // sched_yield, timed. Returns false when it took long: another process had
  // the CPU, and the process is marked contended.
  static bool yield()
  {
    const uint64_t before = contention_ticks();
    sched_yield();
    const uint64_t after = contention_ticks();
    if (after - before < kSlowYieldTicks || not detecting_.load(std::memory_order_relaxed))
      return true;
    mark_contended(after);
    return false;
  }

  static void mark_contended(uint64_t now = contention_ticks())
  {
    contended_until_.store(now + kContendedTicks, std::memory_order_relaxed);
  }

  // Tests of the spinning itself, whose outcome must not depend on the
  // machine's load: off, the process is never contended.
  static void set_detection(bool on)
  {
    detecting_.store(on, std::memory_order_relaxed);
    contended_until_.store(0, std::memory_order_relaxed);
  }

private:
  // One per process (per loaded image that includes this header: the server,
  // libportals), shared by all its waiters.
  static inline std::atomic<uint64_t> contended_until_{0};
  static inline std::atomic<bool> detecting_{true};
};

} // namespace s4bxi::ipc
