// Whether other processes want this process's CPU, learned from how late its
// spinning waiters notice their rings.
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
// So a waiter watches its yields: one that kept it off its CPU for a slice
// with no ring meanwhile, or a ring it notices long after it was made, tells
// that other processes want its CPU. The job is then marked contended for a
// while, during which every waiter of every process of the job sleeps at once
// instead of spinning. A yield that only let the peer run (a rank on the
// server's core) is no sign of it: the peer rings, then gives the CPU back at
// once. Nor, in the server, is a long wait while no process but the job's
// wants a CPU (the job's own ranks took it: they start, or compute;
// simserver/job/other_load.hpp). Once the while is over, the next wait spins
// again: that probe costs one slice when the load is still there.
// Real time decides only how fast an answer comes, never what it is.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <ctime>
#include <functional>
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
  // A waiter off its CPU this long had it taken for a scheduler slice: 0.5
  // to 2.5 ms. A spinning waiter that has its CPU notices a ring within a
  // microsecond, and a yield with nothing else to run returns within one;
  // one that let the job's own processes run (a rank's compute, the server's
  // simulation between two answers) mostly returns within a few hundred.
  static constexpr uint64_t kLateTicks = 2'500'000;
  // How long the job stays contended once it was seen: 20 to 100 ms, so that
  // the probe's slice is a few percent of the time at most. Seen again within
  // as long after that while ended, the load persists: the while doubles, to
  // at most 4 times its length (80 to 400 ms), so that probes become rarer under lasting load
  // (each probe of every waiter that spins costs a slice); seen later, it
  // starts over. (At most 16 times: no better with one busy process, and the
  // 2-rank ping-pong slower with two.)
  static constexpr uint64_t kContendedTicks = 100'000'000;
  static constexpr uint64_t kMaxLengthening = 2;

  // Where the job keeps the mark: a word of the shared segment that the
  // server and every rank map (SharedScheduling), so that one process's
  // finding spares the others their own probe; nullptr: this process's own.
  static void share(std::atomic<uint64_t>* word) { word_.store(word != nullptr ? word : &own_); }
  // A rank's marks count only while `*held` is zero (SharedScheduling::
  // server_cpu_held); nullptr: always (the server's, and by default).
  static void ignore_marks_while(const std::atomic<uint32_t>* held) { ignore_while_.store(held); }

  // Whether the job's own processes explain that a waiter was kept off its
  // CPU from `since` to `now` (ticks): a process that can tell (the server)
  // says so; nullptr (the ranks'): never. Called on the waiter's thread,
  // once per long wait; the object must outlive its use (explain_with(nullptr)
  // before it goes).
  using OwnLoad = std::function<bool(uint64_t since, uint64_t now)>;
  static void explain_with(const OwnLoad* own_load) { own_load_.store(own_load); }

  // Whether spinning may pay now: no sign of contention lately.
  static bool spinning_pays()
  {
    return not detecting_.load(std::memory_order_relaxed) ||
           contention_ticks() >= until(word_.load(std::memory_order_relaxed)->load(std::memory_order_relaxed));
  }

  // A waiter that began to spin at `spinning_since` noticed a ring made at
  // `rung_at` (both contention_ticks). A ring made before the wait began (the
  // waiter was busy elsewhere) is late from the wait's start only.
  static void noticed_while_spinning(uint64_t spinning_since, uint64_t rung_at)
  {
    const uint64_t now = contention_ticks();
    const uint64_t since = rung_at > spinning_since ? rung_at : spinning_since;
    if (now > since && now - since >= kLateTicks)
      kept_off_cpu(since, now);
  }

  // sched_yield, timed: returns whether it kept the caller off its CPU for
  // a slice (what that means is the caller's to tell: was it rung meanwhile?),
  // and when it began in `*since` (when given).
  static bool yield_was_long(uint64_t* since = nullptr)
  {
    const uint64_t before = contention_ticks();
    sched_yield();
    if (since != nullptr)
      *since = before;
    return contention_ticks() - before >= kLateTicks;
  }

  // A waiter was kept off its CPU from `since` to `now` (a slice or more):
  // the job is marked contended, unless its own processes explain it.
  // (Asked only when a mark would be made: the question reads /proc.)
  static void kept_off_cpu(uint64_t since, uint64_t now = contention_ticks())
  {
    if (not would_mark(now))
      return;
    if (const OwnLoad* own_load = own_load_.load(std::memory_order_relaxed);
        own_load != nullptr && (*own_load)(since, now))
      return;
    mark_contended(now);
  }

  static void mark_contended(uint64_t now = contention_ticks())
  {
    if (not would_mark(now))
      return;
    std::atomic<uint64_t>& word = *word_.load(std::memory_order_relaxed);
    const uint64_t mark = word.load(std::memory_order_relaxed);
    uint64_t lengthening = mark & kLengtheningBits;
    const bool lasting = mark != 0 && now - until(mark) < (kContendedTicks << lengthening);
    lengthening = lasting ? std::min(lengthening + 1, kMaxLengthening) : 0;
    word.store(((now + (kContendedTicks << lengthening)) & ~kLengtheningBits) | lengthening,
               std::memory_order_relaxed);
  }

  // Tests of the spinning itself, whose outcome must not depend on the
  // machine's load: off, the process is never contended.
  static void set_detection(bool on)
  {
    detecting_.store(on, std::memory_order_relaxed);
    word_.load(std::memory_order_relaxed)->store(0, std::memory_order_relaxed);
  }

private:
  // The mark is one word: until when (ticks; its low bits dropped) and, in
  // those bits, how many times the while was doubled.
  static constexpr uint64_t kLengtheningBits = 7;
  static uint64_t until(uint64_t mark) { return mark & ~kLengtheningBits; }
  // Whether a mark made at `now` would count: detection on, this process's
  // marks not ignored now, and the job not marked meanwhile by another waiter.
  static bool would_mark(uint64_t now)
  {
    if (not detecting_.load(std::memory_order_relaxed))
      return false;
    if (const auto* held = ignore_while_.load(std::memory_order_relaxed);
        held != nullptr && held->load(std::memory_order_relaxed) != 0)
      return false;
    return now >= until(word_.load(std::memory_order_relaxed)->load(std::memory_order_relaxed));
  }

  static inline std::atomic<uint64_t> own_{0};
  static inline std::atomic<std::atomic<uint64_t>*> word_{&own_};
  static inline std::atomic<bool> detecting_{true};
  static inline std::atomic<const std::atomic<uint32_t>*> ignore_while_{nullptr};
  static inline std::atomic<const OwnLoad*> own_load_{nullptr};
};

} // namespace s4bxi::ipc
