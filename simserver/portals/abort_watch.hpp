// PtlAbort (the current generation of Sandia's ABI): ends every wait or poll
// that a thread of the calling process is in.
//
// The call needs no round trip, and cannot have one: the thread that waits
// holds the rank's channel. The preload increments Channel::abort_generation
// and writes a notice to the run's crash pipe; the rank watcher's thread posts
// it here; the simulation's thread delivers it: every rank whose wait began
// under an older generation is notified, and its wait ends with
// Status::Aborted, at the simulated time the simulation has reached then (the
// aborting thread runs outside simulated time, like any thread between calls).
//
// A wait with nothing on its way is not a deadlock while another thread of
// the same process still runs: that thread may call PtlAbort. When the
// simulation has nothing else to do, it waits for that thread in real time
// (hold_while_threads_run), as it waits for a rank that computes.
#pragma once

#include "../world.hpp"

#include <atomic>
#include <functional>

namespace s4bxi::portals {

// The rank is in an abortable call and a PtlAbort came since it began.
inline bool aborted(const RankPortals& rank)
{
  return rank.abortable_since.has_value() && rank.channel != nullptr &&
         rank.channel->abort_generation.load(std::memory_order_acquire) != *rank.abortable_since;
}

class AbortWatch {
public:
  explicit AbortWatch(World& world) : world_(world) {}

  // From the rank watcher's thread: some rank called PtlAbort.
  void post() { pending_.store(true, std::memory_order_release); }

  // From the simulation's thread: wakes the ranks whose waits were aborted.
  // Returns whether there was any.
  bool deliver();
  // The same, only if a notice was posted (cheap: called at every wake-up of
  // a proxy that waits for its rank).
  void deliver_posted()
  {
    if (pending_.load(std::memory_order_acquire))
      deliver();
  }

  // A rank enters / leaves an abortable call (PtlEQWait, PtlEQPoll,
  // PtlCTWait, PtlCTPoll) that began under `epoch`.
  void began(RankPortals& rank, uint32_t epoch);
  void ended(RankPortals& rank);
  // Ranks in such a call whose process has started threads of its own: the
  // only ones another thread can abort.
  [[nodiscard]] unsigned threaded_waiters() const { return threaded_waiters_; }

  // The simulation has nothing left to do: while a waiting rank has another
  // thread running, wait for an abort (real time). Returns true once one was
  // delivered (the simulation goes on), false when no such thread runs
  // anymore (a deadlock, if nothing else).
  bool hold_while_threads_run();

  // Called while holding (Ctrl-C must still end the run).
  std::function<void()> on_hold_tick;

private:
  World& world_;
  std::atomic<bool> pending_{false};
  unsigned threaded_waiters_ = 0;
};

} // namespace s4bxi::portals
