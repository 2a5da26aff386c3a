// Futex wakes that the server hands to the warm rank.
//
// With more ranks than cores, a rank that waits for its answer sleeps in
// FUTEX_WAIT (ipc/doorbell.hpp), and the answer's ring wakes it. On a VM a
// FUTEX_WAKE aimed at another CPU costs its caller 7 us (an inter-processor
// interrupt is a hypervisor exit), about a sixth of the server's time in a
// 32-rank alltoall, and the sleeper answers 20 us later; made on the CPU
// where the sleeper runs, the same wake costs 1.3 us and the sleeper answers
// 4.5 us later (bench/futex_pingpong, its "wake from" lines).
//
// One rank is spinning anyway on the CPU where ranks run: the warm rank
// (SharedScheduling::warm_rank). So while a warm rank is the relay
// (`helper`), the server does not wake a sleeping rank itself: it appends
// the offset of the rank's doorbell word in the channel area to `requests`,
// and the relay wakes it at its next turn, from its own CPU. Ranks map the
// other ranks' channels read-only for that (a futex wake only reads).
//
// This page is one every rank writes, so nothing here is trusted: the relay
// checks every offset before it wakes, and the server, which keeps its own
// count of requests, wakes the rank itself when the answer is not taken
// soon (RankProxy::wait_for_request). A wrong or repeated wake is only a
// spurious wake-up, which every waiter absorbs.
#pragma once

#include "futex.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace s4bxi::ipc {

inline constexpr uint32_t kNoWakeRelay = UINT32_MAX;
inline constexpr uint32_t kWakeRelaySlots = 64;

struct WakeRelay {
  // The rank that relays wakes now (kNoWakeRelay: none; the server wakes).
  alignas(64) std::atomic<uint32_t> helper{kNoWakeRelay};
  // Requests the server appended (its count) and the relay took (theirs).
  alignas(64) std::atomic<uint32_t> appended{0};
  alignas(64) std::atomic<uint32_t> taken{0};
  // Offsets, in the channel area, of the doorbell words to wake.
  std::atomic<uint32_t> requests[kWakeRelaySlots];
};

// The server's side: hands the wake of the word at `offset` to the relay,
// whose rank it returns in `relayed_to`. False when there is no relay, when
// the relay is the rank to wake, or when the requests are full: the caller
// wakes it itself (a wake the relay makes as well is harmless). `appended`
// is the server's own count.
inline bool relay_wake(WakeRelay& relay, uint32_t& appended, uint32_t offset, uint32_t rank_to_wake,
                       uint32_t& relayed_to)
{
  const uint32_t helper = relay.helper.load(std::memory_order_seq_cst);
  relayed_to = helper;
  if (helper == kNoWakeRelay || helper == rank_to_wake)
    return false;
  if (appended - relay.taken.load(std::memory_order_acquire) >= kWakeRelaySlots)
    return false; // full, or a count the program wrote: wake it ourselves
  relay.requests[appended % kWakeRelaySlots].store(offset, std::memory_order_relaxed);
  appended++;
  relay.appended.store(appended, std::memory_order_seq_cst);
  // (Both sides use sequentially consistent operations: either a relay,
  // leaving, finds this request when it drains, or this sees no relay.)
  return relay.helper.load(std::memory_order_seq_cst) != kNoWakeRelay;
}

// The server's side, when a relay did not make a wake in time (stopped by a
// debugger, or a signal): no more wakes go to it, until a warm rank takes
// the role again.
inline void drop_relay(WakeRelay& relay, uint32_t helper)
{
  relay.helper.compare_exchange_strong(helper, kNoWakeRelay, std::memory_order_seq_cst);
}

// The relay's side: wakes what was requested, each request once (a relay
// that is leaving and the one taking its place may both drain).
inline void serve_wake_requests(WakeRelay& relay, const char* channels, std::size_t channels_length)
{
  // (Bounded: a program that keeps writing over the counts cannot hold the
  // relay here.)
  for (uint32_t turn = 0; turn < 2 * kWakeRelaySlots; ++turn) {
    uint32_t taken = relay.taken.load(std::memory_order_acquire);
    const uint32_t appended = relay.appended.load(std::memory_order_seq_cst);
    if (taken == appended)
      return;
    if (appended - taken > kWakeRelaySlots) { // not the server's count: drop what is there
      relay.taken.compare_exchange_strong(taken, appended, std::memory_order_acq_rel);
      return;
    }
    const uint32_t offset = relay.requests[taken % kWakeRelaySlots].load(std::memory_order_relaxed);
    if (not relay.taken.compare_exchange_strong(taken, taken + 1, std::memory_order_acq_rel))
      continue; // another relay took it
    if (offset % alignof(std::atomic<uint32_t>) == 0 && offset + sizeof(uint32_t) <= channels_length)
      futex_wake_all(reinterpret_cast<std::atomic<uint32_t>*>(const_cast<char*>(channels + offset)));
  }
}

// A waiter's part as a relay (ipc::SpinCondition::relay).
struct WakeRelayRole {
  WakeRelay* relay = nullptr;
  const char* channels = nullptr; // the channel area, mapped read-only at least
  std::size_t channels_length = 0;
  uint32_t rank = kNoWakeRelay;

  void take() const { relay->helper.store(rank, std::memory_order_seq_cst); }
  void serve() const { serve_wake_requests(*relay, channels, channels_length); }
  // Gives the role up (unless another took it since), then wakes what was
  // requested meanwhile.
  void leave() const
  {
    uint32_t mine = rank;
    relay->helper.compare_exchange_strong(mine, kNoWakeRelay, std::memory_order_seq_cst);
    serve();
  }
};

} // namespace s4bxi::ipc
