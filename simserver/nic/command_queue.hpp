// A NIC command queue: FIFO with a bounded depth. Pushing into a full queue
// blocks the pushing actor in simulated time, as a CPU stalls when the NIC's
// queues are full.
#pragma once

#include <simgrid/s4u/Semaphore.hpp>

#include <deque>

namespace s4bxi::nic {

template <class T> class CommandQueue {
public:
  explicit CommandQueue(int depth)
      : free_slots_(simgrid::s4u::Semaphore::create(depth)), items_(simgrid::s4u::Semaphore::create(0))
  {
  }

  void push(T item)
  {
    free_slots_->acquire();
    queue_.push_back(std::move(item));
    items_->release();
  }

  // Queues an item that does not take one of the depth's slots (work the NIC
  // creates itself); whoever pops it must not call release_slot() for it.
  void push_unbounded(T item)
  {
    queue_.push_back(std::move(item));
    items_->release();
  }

  // Takes the oldest command; its slot stays used until release_slot().
  T pop()
  {
    items_->acquire();
    T item = std::move(queue_.front());
    queue_.pop_front();
    return item;
  }

  void release_slot() { free_slots_->release(); }

private:
  simgrid::s4u::SemaphorePtr free_slots_;
  simgrid::s4u::SemaphorePtr items_;
  std::deque<T> queue_;
};

} // namespace s4bxi::nic
