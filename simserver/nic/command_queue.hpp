// A NIC command queue: FIFO with a bounded depth. Pushing into a full queue
// blocks the pushing actor in simulated time, as a CPU stalls when the NIC's
// queues are full. The queue may be split into lanes, one per TX engine of
// the virtual network: the depth is shared, each lane keeps its own order,
// and each lane has one consumer (its TX actor).
//
// The counts are plain numbers: actors run one at a time and this code makes
// no simcall between reading a count and changing it. A semaphore is touched
// only when an actor must block (a full queue, an empty lane) or be woken:
// each semaphore operation is a simcall, and taking or giving back a slot
// that is there anyway cost four of them per command (8 per MPI message of
// a 2-rank ping-pong, of about 45).
#pragma once

#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <vector>

namespace s4bxi::nic {

template <class T> class CommandQueue {
public:
  explicit CommandQueue(int depth, int lanes = 1)
      : free_slots_(depth), slot_handed_over_(simgrid::s4u::Semaphore::create(0)), lanes_(static_cast<size_t>(lanes))
  {
    for (auto& lane : lanes_)
      lane.item_arrived = simgrid::s4u::Semaphore::create(0);
  }

  void push(T item, int lane = 0)
  {
    take_slot();
    push_unbounded(std::move(item), lane);
  }

  // The first half of push(): takes a slot, and may block for one.
  void take_slot()
  {
    if (free_slots_ > 0 && blocked_pushers_ == 0) {
      free_slots_--;
    } else {
      // Full: wait for a slot, handed over by release_slot() in the order
      // the pushers came (SimGrid wakes a semaphore's waiters first come,
      // first served).
      blocked_pushers_++;
      slot_handed_over_->acquire();
    }
  }

  // Queues an item that does not take one of the depth's slots (work the NIC
  // creates itself); whoever pops it must not call release_slot() for it.
  void push_unbounded(T item, int lane = 0)
  {
    auto& l = lanes_[static_cast<size_t>(lane)];
    l.queue.push_back(std::move(item));
    wake_consumer(l);
  }

  // Whether the lane's consumer waits for an item with none queued, and no
  // one else holds the lane: an item pushed now would be its at once.
  [[nodiscard]] bool consumer_idle(int lane) const
  {
    const auto& l = lanes_[static_cast<size_t>(lane)];
    return l.consumer_waits && l.queue.empty() && not l.held;
  }
  // Someone else works on the lane's next item meanwhile (the NIC, in
  // maestro): what is pushed waits for it, and the consumer is not woken.
  void hold(int lane) { lanes_[static_cast<size_t>(lane)].held = true; }
  // That is done; `item`, if given, goes first (it is the consumer's after all).
  void release_hold(int lane, T* item = nullptr)
  {
    auto& l = lanes_[static_cast<size_t>(lane)];
    l.held = false;
    if (item != nullptr)
      l.queue.push_front(std::move(*item));
    wake_consumer(l);
  }

  // Takes the oldest command of the lane; its slot stays used until release_slot().
  T pop(int lane = 0)
  {
    auto& l = lanes_[static_cast<size_t>(lane)];
    while (l.queue.empty()) {
      l.consumer_waits = true;
      l.item_arrived->acquire();
    }
    T item = std::move(l.queue.front());
    l.queue.pop_front();
    return item;
  }

  void release_slot()
  {
    if (blocked_pushers_ > 0) {
      blocked_pushers_--;
      slot_handed_over_->release();
    } else {
      free_slots_++;
    }
  }

  // Slots free now.
  [[nodiscard]] int free_slots() const { return free_slots_; }
  // Whether push() would block now (no free slot, or others wait for one).
  [[nodiscard]] bool push_blocks() const { return free_slots_ == 0 || blocked_pushers_ > 0; }

private:
  struct Lane {
    simgrid::s4u::SemaphorePtr item_arrived; // released only while the consumer waits
    bool consumer_waits = false;
    bool held = false;
    std::deque<T> queue;
  };
  void wake_consumer(Lane& l)
  {
    if (l.consumer_waits && not l.held && not l.queue.empty()) {
      l.consumer_waits = false;
      l.item_arrived->release();
    }
  }
  int free_slots_;
  int blocked_pushers_ = 0;
  simgrid::s4u::SemaphorePtr slot_handed_over_;
  std::vector<Lane> lanes_;
};

} // namespace s4bxi::nic
