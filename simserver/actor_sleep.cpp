#include "actor_sleep.hpp"
#include "engine_clock.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <xbt/asserts.h>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace s4u = simgrid::s4u;

namespace s4bxi {

namespace {

// What an actor waits on while it sleeps. Made at its first sleep, freed
// with it; while it sleeps, its wake date's group holds it.
struct Alarm {
  s4u::SemaphorePtr bell = s4u::Semaphore::create(0);
  double date = 0;
  bool asleep = false;
};

// The actors that wake at one date, and the timer that wakes them: one timer
// per date rather than per actor (ranks answered side by side sleep to the
// same ends).
struct Group {
  simgrid::kernel::timer::Timer* timer = nullptr;
  Alarm* first = nullptr; // most dates have one sleeper: no vector to allocate
  std::vector<Alarm*> others;
  std::vector<std::pair<CallHandle, std::function<void()>>> calls; // call_at's, in the order they were made
  [[nodiscard]] bool empty() const { return first == nullptr && others.empty() && calls.empty(); }
};

std::vector<std::function<void()>>& wake_up_callbacks()
{
  static std::vector<std::function<void()>> all;
  return all;
}

std::map<double, Group>& groups()
{
  static std::map<double, Group> all;
  return all;
}

// The date of each call_at not made yet.
std::unordered_map<CallHandle, double>& call_dates()
{
  static std::unordered_map<CallHandle, double> all;
  return all;
}

void wake(std::map<double, Group>::iterator group)
{
  Alarm* first = group->second.first;
  const std::vector<Alarm*> others = std::move(group->second.others);
  auto calls = std::move(group->second.calls);
  groups().erase(group);
  auto ring = [](Alarm* alarm) {
    alarm->asleep = false;
    alarm->bell->release();
  };
  if (first != nullptr)
    ring(first);
  std::for_each(others.begin(), others.end(), ring);
  // (A call may set another: the group is gone by then.)
  for (auto& [handle, call] : calls) {
    call_dates().erase(handle);
    call();
  }
  if (not calls.empty())
    for (const auto& callback : wake_up_callbacks())
      callback();
}

// The group of `when`, with its timer.
std::map<double, Group>::iterator group_at(double when)
{
  auto [group, added] = groups().try_emplace(when);
  if (added)
    group->second.timer = simgrid::kernel::timer::Timer::set(when, [when] {
      if (auto due = groups().find(when); due != groups().end())
        wake(due);
    });
  return group;
}

// A group left with nothing to wake goes, with its timer: a timer left behind
// would move simulated time on to its date.
void drop_if_empty(std::map<double, Group>::iterator group)
{
  if (not group->second.empty())
    return;
  group->second.timer->remove();
  groups().erase(group);
}

simgrid::xbt::Extension<s4u::Actor, Alarm> alarm_of_actor()
{
  static const auto id = s4u::Actor::extension_create<Alarm>();
  return id;
}

// The timer is set from the actor's own context, not through a simcall:
// that is safe only while SimGrid runs one actor at a time (its default).
bool actors_run_one_at_a_time()
{
  static const bool sequential = simgrid::config::get_value<int>("contexts/nthreads") <= 1;
  return sequential;
}

// SimGrid ends together every action that ends within its precision of the
// date it moves to (surf/precision: double_equals in its models), a sleep of
// this_actor::sleep_for included, whereas a timer goes off only once its date
// has come. So that sleepers wake in the same rounds as SimGrid's own sleeps
// would, those due within that precision wake as time comes (in maestro).
// Those due now are left to their timer, which goes off next.
void hook_time_advances()
{
  static const bool hooked = [] {
    s4u::Engine::on_time_advance_cb([](double) {
      const double now = sim_now();
      auto& all = groups();
      for (auto due = all.upper_bound(now); due != all.end() && due->first - now < time_precision();) {
        auto group = due++;
        group->second.timer->remove();
        wake(group);
      }
    });
    return true;
  }();
  (void)hooked;
}

} // namespace

double time_precision()
{
  static const double value = simgrid::config::get_value<double>("surf/precision");
  return value;
}

void sleep_until(double when)
{
  xbt_assert(not std::isnan(when), "a sleep until no time");
  if (not(when > sim_now()))
    return;
  // (As SimGrid's sleep_until, whose sleep_for refuses an infinite time: a
  // timer at infinity would move simulated time there.)
  xbt_assert(std::isfinite(when), "a sleep until no finite time");
  if (not actors_run_one_at_a_time()) {
    s4u::this_actor::sleep_until(when);
    return;
  }
  hook_time_advances();
  s4u::Actor* self = s4u::Actor::self();
  Alarm* alarm = self->extension(alarm_of_actor());
  if (alarm == nullptr) {
    alarm = new Alarm;
    self->extension_set(alarm_of_actor(), alarm);
  }
  auto group = group_at(when);
  if (group->second.first == nullptr)
    group->second.first = alarm;
  else
    group->second.others.push_back(alarm);
  alarm->date = when;
  alarm->asleep = true;
  // An actor killed in its sleep (SimGrid kills the daemons, the NIC's
  // engines, once the ranks have ended) leaves its group, and the last one
  // takes the timer with it: a timer left behind would move simulated time on
  // to its date.
  struct Cancel {
    Alarm& alarm;
    ~Cancel()
    {
      if (not alarm.asleep)
        return;
      alarm.asleep = false;
      auto group = groups().find(alarm.date);
      if (group == groups().end())
        return;
      Group& members = group->second;
      if (members.first == &alarm)
        members.first = nullptr;
      members.others.erase(std::remove(members.others.begin(), members.others.end(), &alarm), members.others.end());
      drop_if_empty(group);
    }
  } cancel{*alarm};
  alarm->bell->acquire();
  for (const auto& callback : wake_up_callbacks())
    callback();
}

CallHandle call_at(double when, std::function<void()> callback)
{
  xbt_assert(when > sim_now() && std::isfinite(when), "a call at no later, finite time");
  xbt_assert(actors_run_one_at_a_time(), "calls at a time need actors that run one at a time");
  hook_time_advances();
  static CallHandle next = 0;
  const CallHandle handle = ++next;
  group_at(when)->second.calls.emplace_back(handle, std::move(callback));
  call_dates().emplace(handle, when);
  return handle;
}

void cancel_call(CallHandle handle)
{
  auto date = call_dates().find(handle);
  if (date == call_dates().end())
    return; // made already
  auto group = groups().find(date->second);
  call_dates().erase(date);
  if (group == groups().end())
    return;
  auto& calls = group->second.calls;
  calls.erase(std::remove_if(calls.begin(), calls.end(), [handle](const auto& call) { return call.first == handle; }),
              calls.end());
  drop_if_empty(group);
}

void on_wake_up_cb(std::function<void()> callback)
{
  wake_up_callbacks().push_back(std::move(callback));
}

bool some_actor_sleeps()
{
  // Not those due now, or within the precision: SimGrid's models end such
  // sleep actions before time advance callbacks run.
  const auto& all = groups();
  return not all.empty() && all.rbegin()->first - sim_now() >= time_precision();
}

void sleep_for(double duration)
{
  xbt_assert(std::isfinite(duration), "a sleep of no finite duration");
  if (duration > 0)
    sleep_until(sim_now() + duration);
}

} // namespace s4bxi
