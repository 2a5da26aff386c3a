// A NIC command queue: FIFO with a bounded depth. Pushing into a full queue
// blocks the pushing actor in simulated time, as a CPU stalls when the NIC's
// queues are full. The queue may be split into lanes, one per TX engine of
// the virtual network: the depth is shared, each lane keeps its own order.
#pragma once

#include <simgrid/s4u/Semaphore.hpp>

#include <deque>
#include <vector>

namespace s4bxi::nic {

template <class T> class CommandQueue {
public:
  explicit CommandQueue(int depth, int lanes = 1)
      : free_slots_(simgrid::s4u::Semaphore::create(depth)), lanes_(static_cast<size_t>(lanes))
  {
    for (auto& lane : lanes_)
      lane.items = simgrid::s4u::Semaphore::create(0);
  }

  void push(T item, int lane = 0)
  {
    free_slots_->acquire();
    push_unbounded(std::move(item), lane);
  }

  // Queues an item that does not take one of the depth's slots (work the NIC
  // creates itself); whoever pops it must not call release_slot() for it.
  void push_unbounded(T item, int lane = 0)
  {
    auto& l = lanes_[static_cast<size_t>(lane)];
    l.queue.push_back(std::move(item));
    l.items->release();
  }

  // Takes the oldest command of the lane; its slot stays used until release_slot().
  T pop(int lane = 0)
  {
    auto& l = lanes_[static_cast<size_t>(lane)];
    l.items->acquire();
    T item = std::move(l.queue.front());
    l.queue.pop_front();
    return item;
  }

  void release_slot() { free_slots_->release(); }

  // Slots free now (no simcall).
  [[nodiscard]] int free_slots() const { return free_slots_->get_capacity(); }

private:
  struct Lane {
    simgrid::s4u::SemaphorePtr items;
    std::deque<T> queue;
  };
  simgrid::s4u::SemaphorePtr free_slots_;
  std::vector<Lane> lanes_;
};

} // namespace s4bxi::nic
