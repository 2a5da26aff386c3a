// What a rank's callers wait on until one of its event queues or counters may
// have changed (portals/api_waits.hpp), shared by the rank and its threads'
// lanes. Each waiter waits on a semaphore of its own, which a notification
// releases: a wait is one simcall, where a condition variable took three
// (its mutex taken, the wait, the mutex given back), and the mutex, taken
// before the wait, let other actors run between the check of what the caller
// waits for and its wait. Actors run one at a time and only a simcall lets
// others run, so a check and the wait that follows it cannot miss a
// notification.
#pragma once

#include <simgrid/s4u/Semaphore.hpp>

#include <vector>

namespace s4bxi {

class ChangeSignal {
public:
  // Blocks the calling actor until notify_all(), or until `deadline` comes
  // (infinity: no deadline). Returns whether it was notified.
  bool wait_until(double deadline);
  // Wakes every actor that waits.
  void notify_all();
  [[nodiscard]] bool waited_for() const { return not waiters_.empty(); }

private:
  std::vector<simgrid::s4u::SemaphorePtr> waiters_;
};

} // namespace s4bxi
