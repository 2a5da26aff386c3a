// A one-direction notification between two processes: the writer publishes a
// message then rings; the reader waits until the sequence number moves.
//
// Waiting spins for a short, adaptive while before sleeping in FUTEX_WAIT:
// with serialized execution the peer usually answers within a few microseconds,
// and a futex sleep/wake pair costs more than that. The ringer only pays for
// FUTEX_WAKE when the waiter has announced that it sleeps. While other
// processes want the CPU (ipc::CpuContention), the waiter sleeps at once.
#pragma once

#include "cpu_contention.hpp"
#include "futex.hpp"
#include "wake_relay.hpp"

#include <atomic>
#include <cstdint>
#include <ctime>
#include <sched.h>

namespace s4bxi::ipc {

inline void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

struct alignas(64) Doorbell {
  std::atomic<uint32_t> sequence{0};
  // How many waiters sleep in FUTEX_WAIT (or are about to): the ringer wakes
  // them only when some do. A count, not a flag: a waiter that leaves late
  // must not take back the word of one that came after it on the same bell
  // (a thread's lane, taken by a new thread while the one before was still
  // on its way out of its last wait: the new one's answer woke nobody).
  std::atomic<uint32_t> sleeping{0};
  // Set by the ringer when the answer will take long (it waits for other
  // processes to run first): the waiter spins briefly, then sleeps, leaving
  // the CPU to the processes it waits for; unless it is the one waiter that
  // stays warm (SpinCondition::warm), which the answer reaches soonest.
  std::atomic<uint32_t> sleep_hint{0};
  // When the latest ring was made (contention_ticks): a waiter that notices it
  // late learns that other processes want its CPU (CpuContention).
  std::atomic<uint64_t> rung_at{0};

  // Publishes everything written before the call and wakes the waiter.
  void ring()
  {
    if (publish())
      wake();
  }
  // Publishes everything written before the call, and tells whether a
  // waiter sleeps: then whoever calls has it woken (wake(), or a relay:
  // ipc/wake_relay.hpp).
  bool publish()
  {
    rung_at.store(contention_ticks(), std::memory_order_relaxed);
    sequence.fetch_add(1, std::memory_order_seq_cst);
    return sleeping.load(std::memory_order_seq_cst) != 0;
  }
  void wake() { futex_wake_all(&sequence); }

  [[nodiscard]] uint32_t current() const { return sequence.load(std::memory_order_acquire); }

  // A waiter goes to sleep, and is done sleeping.
  void announce_sleep() { sleeping.fetch_add(1, std::memory_order_seq_cst); }
  void withdraw_sleep() { sleeping.fetch_sub(1, std::memory_order_relaxed); }
};

// Per-waiter spin budget: grows when answers come while spinning, shrinks when
// they do not (e.g. the peer computes for a long time, or only one core is free).
class SpinBudget {
public:
  static constexpr unsigned kMin = 2048;
  static constexpr unsigned kMax = 1U << 14;
  [[nodiscard]] unsigned iterations() const { return iterations_; }
  void answered_while_spinning() { iterations_ = iterations_ * 2 > kMax ? kMax : iterations_ * 2; }
  void had_to_sleep() { iterations_ = iterations_ / 2 < kMin ? kMin : iterations_ / 2; }

private:
  unsigned iterations_ = 4096;
};

inline constexpr unsigned kYieldPeriod = 64;

// Waits until bell.sequence != seen, or until `*interrupt` (when given) is
// non-zero: another party flagged something and woke the bell's futex without
// ringing (see wake_without_ringing). Returns false if `timeout` elapsed first
// (nullptr: no timeout). Spurious futex wake-ups are absorbed here.
// Spinning pays only while `*word == value` (e.g. while the server serves
// this very waiter); otherwise the waiter sleeps at once.
struct SpinCondition {
  const std::atomic<uint32_t>* word;
  uint32_t value;
  // When given: a waiter that stops being served takes this word and goes on
  // spinning, yielding at every turn, until another waiter takes it (or its
  // budget runs out), then sleeps. At most one such waiter at a time keeps its
  // CPU from going idle (SegmentHeader::warm_rank).
  std::atomic<uint32_t>* warm = nullptr;
  // When given: the warm waiter also wakes, from its CPU, the sleepers whose
  // wake the server handed over (ipc/wake_relay.hpp), until it stops being warm.
  const WakeRelayRole* relay = nullptr;
  [[nodiscard]] bool holds() const { return word->load(std::memory_order_relaxed) == value; }
};

// Yields the CPU while waiting for `bell` to move from `seen`. Returns false
// when the waiter should stop spinning: the yield kept it off its CPU for a
// slice and nobody rang meanwhile, so another process had the CPU (it is
// marked: ipc::CpuContention). A long yield after which the bell has moved
// only let the peer run and answer; how late the answer is noticed tells the rest.
inline bool yield_to_the_peer(const Doorbell& bell, uint32_t seen)
{
  uint64_t since = 0;
  if (not CpuContention::yield_was_long(&since) || bell.sequence.load(std::memory_order_acquire) != seen)
    return true;
  CpuContention::kept_off_cpu(since);
  return false;
}

inline bool wait_for_ring(Doorbell& bell, uint32_t seen, SpinBudget& budget, const timespec* timeout,
                          const std::atomic<uint32_t>* interrupt = nullptr, const SpinCondition* spin_while = nullptr)
{
  auto interrupted = [interrupt] { return interrupt != nullptr && interrupt->load(std::memory_order_acquire) != 0; };
  bool warm_taken = false;
  // The relay role goes with the warm slot, and is given up before sleeping.
  struct RelayHeld {
    const WakeRelayRole* role = nullptr;
    void take(const WakeRelayRole* r)
    {
      role = r;
      role->take();
    }
    void leave()
    {
      if (role != nullptr)
        role->leave();
      role = nullptr;
    }
    ~RelayHeld() { leave(); }
  } relay_held;
  unsigned long_wait_spins = 0;
  // While other processes want the CPU, an answer comes sooner to a sleeper,
  // which its ringer wakes at once, than to a spinner off its CPU.
  const bool spin = CpuContention::spinning_pays();
  const uint64_t spinning_since = spin ? contention_ticks() : 0;
  for (unsigned i = 0; spin && i < budget.iterations(); ++i) {
    if (bell.sequence.load(std::memory_order_acquire) != seen || interrupted()) {
      budget.answered_while_spinning();
      CpuContention::noticed_while_spinning(spinning_since, bell.rung_at.load(std::memory_order_relaxed));
      return true;
    }
    const bool long_wait = bell.sleep_hint.load(std::memory_order_relaxed) != 0;
    if (long_wait && (spin_while == nullptr || spin_while->warm == nullptr))
      break;
    if (spin_while != nullptr && not spin_while->holds()) {
      if (spin_while->warm == nullptr)
        break;
      if (not warm_taken) { // the latest waiter to stop being served
        spin_while->warm->store(spin_while->value, std::memory_order_relaxed);
        warm_taken = true;
        if (spin_while->relay != nullptr)
          relay_held.take(spin_while->relay);
      }
      if (spin_while->warm->load(std::memory_order_relaxed) != spin_while->value)
        break;
      if (relay_held.role != nullptr)
        relay_held.role->serve();
      // (Not served, it waits for the other ranks too: a long yield is their
      // turn, not a sign of contention. Except in a long wait, which only
      // keeps warm to be quick when the answer comes: a yield that kept it
      // off its CPU for a whole slice says other load holds the CPUs, and
      // that its turn is better spent asleep.)
      if (long_wait) {
        if (not yield_to_the_peer(bell, seen))
          break;
      } else {
        sched_yield();
      }
      continue;
    }
    // A long wait that is still being served (the server has not answered
    // anybody else yet) spins a little, as any served wait does, then
    // sleeps; if the server serves another waiter first, it may take the
    // warm slot above.
    // Sleeping at once cost a futex wake per answer: some 20 us each on a
    // VM (bench/futex_pingpong), twice per message of a 2-rank ping-pong.
    // Yielding at every turn instead gave the CPU to other load for a whole
    // slice.
    if (long_wait && ++long_wait_spins > SpinBudget::kMin)
      break;
    // On a loaded machine the peer may be waiting for our very CPU: give it
    // now and then, so that spinning never delays the answer it waits for.
    if (i % kYieldPeriod == kYieldPeriod - 1) {
      if (not yield_to_the_peer(bell, seen))
        break;
    } else {
      cpu_relax();
    }
  }
  relay_held.leave();
  if (spin && bell.sleep_hint.load(std::memory_order_relaxed) == 0 && (spin_while == nullptr || spin_while->holds()))
    budget.had_to_sleep();
  while (true) {
    bell.announce_sleep();
    if (bell.sequence.load(std::memory_order_seq_cst) != seen || interrupted()) {
      bell.withdraw_sleep();
      return true;
    }
    bool not_timed_out = futex_wait(&bell.sequence, seen, timeout);
    bell.withdraw_sleep();
    if (bell.sequence.load(std::memory_order_acquire) != seen || interrupted())
      return true;
    if (not not_timed_out)
      return false;
  }
}

// Sets `bits` in `flags` and wakes whoever waits on `bell` with it as interrupt.
inline void wake_without_ringing(Doorbell& bell, std::atomic<uint32_t>& flags, uint32_t bits)
{
  flags.fetch_or(bits, std::memory_order_seq_cst);
  if (bell.sleeping.load(std::memory_order_seq_cst) != 0)
    futex_wake_all(&bell.sequence);
}

} // namespace s4bxi::ipc
