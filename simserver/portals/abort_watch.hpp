// PtlAbort (the current generation of Sandia's ABI): ends every wait or poll
// that a thread of the calling process is in.
//
// The call needs no round trip, and cannot have one: the thread that waits
// holds the rank's channel. The preload increments Channel::abort_generation
// and writes a notice to the run's crash pipe; the rank watcher's thread sets
// World::outside_notice and wakes the simulation's thread, which delivers it
// (deliver()): every rank whose wait began under an older generation is
// notified, and its wait ends with Status::Aborted, at the simulated time the
// simulation has reached then (the aborting thread runs outside simulated
// time, like any thread between calls).
//
// While a rank blocks in such a call, another thread of the same process
// that runs may still call PtlAbort: a wait with nothing on its way must not
// be taken for a deadlock, and simulated time must not run past a poll's
// deadline meanwhile (it would time out instead). So the outside holder
// (outside_holder.hpp) holds the simulation, in real time, while that thread
// runs (thread_may_abort()): when nothing else can happen, or, for a poll
// with a deadline, before time moves on at all, as the simulation waits for a
// rank that computes.
#pragma once

#include "../world.hpp"

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

  // Wakes the ranks whose waits were aborted. Returns whether there was any.
  bool deliver();

  // A rank enters / leaves an abortable call (PtlEQWait, PtlEQPoll,
  // PtlCTWait, PtlCTPoll) that began under `epoch`; `blocks`: a wait, or a
  // poll with a timeout (zero-timeout polls only return, or block as a poll
  // streak, which the poll sentinel handles); `deadline`: a poll with a
  // finite timeout.
  void began(RankPortals& rank, uint32_t epoch, bool blocks, bool deadline);
  void ended(RankPortals& rank);
  // Ranks in such a call whose process has started threads of its own: the
  // only ones another thread can abort.
  [[nodiscard]] unsigned threaded_waiters() const { return threaded_waiters_; }
  // Those of them in a poll with a finite timeout.
  [[nodiscard]] unsigned deadline_waiters() const { return deadline_waiters_; }

  // A rank waits while another of its threads runs (it may call PtlAbort).
  [[nodiscard]] bool thread_may_abort() const { return waiter_another_thread_may_abort() >= 0; }
  // That rank (-1: none).
  [[nodiscard]] int waiter_another_thread_may_abort() const;

private:
  World& world_;
  unsigned threaded_waiters_ = 0;
  unsigned deadline_waiters_ = 0;
};

} // namespace s4bxi::portals
