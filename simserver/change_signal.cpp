#include "change_signal.hpp"
#include "engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>

namespace s4u = simgrid::s4u;

namespace s4bxi {

namespace {

// The semaphore an actor waits on: made at its first wait, freed with it.
struct Waiter {
  s4u::SemaphorePtr bell = s4u::Semaphore::create(0);
};

simgrid::xbt::Extension<s4u::Actor, Waiter> waiter_of_actor()
{
  static const auto id = s4u::Actor::extension_create<Waiter>();
  return id;
}

} // namespace

bool ChangeSignal::wait_until(double deadline)
{
  s4u::Actor* self = s4u::Actor::self();
  Waiter* waiter = self->extension(waiter_of_actor());
  if (waiter == nullptr) {
    waiter = new Waiter;
    self->extension_set(waiter_of_actor(), waiter);
  }
  const s4u::SemaphorePtr bell = waiter->bell;
  waiters_.push_back(bell);
  // A waiter that leaves without a notification (its deadline came, or it
  // was killed in its wait: SimGrid kills the actors left once the ranks have
  // ended) takes itself off the list, which a later notification would
  // otherwise release.
  struct Leave {
    std::vector<s4u::SemaphorePtr>& waiters;
    const s4u::SemaphorePtr& bell;
    bool listed() const { return std::find(waiters.begin(), waiters.end(), bell) != waiters.end(); }
    ~Leave()
    {
      if (auto found = std::find(waiters.begin(), waiters.end(), bell); found != waiters.end())
        waiters.erase(found);
    }
  } leave{waiters_, bell};
  if (std::isinf(deadline)) {
    bell->acquire();
    return true;
  }
  if (not bell->acquire_timeout(deadline - sim_now()))
    return true;
  // The deadline came; a notification at the same instant, after it, still
  // released the semaphore: taken here, so that the next wait waits.
  if (not leave.listed()) {
    bell->acquire();
    return true;
  }
  return false;
}

void ChangeSignal::notify_all()
{
  if (waiters_.empty())
    return;
  const std::vector<s4u::SemaphorePtr> waiting = std::move(waiters_);
  waiters_.clear();
  for (const auto& bell : waiting)
    bell->release();
}

} // namespace s4bxi
