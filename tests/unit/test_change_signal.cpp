// The wait for a change of a rank's event queues or counters
// (simserver/change_signal.hpp) under a real SimGrid engine: a notification
// wakes every waiter at its simulated time; a wait with a deadline ends there
// when nothing comes, and says so; a notification at the very instant of the
// deadline leaves nothing behind for the next wait; an actor killed in its
// wait leaves the others to be woken; and a notification nobody waits for is
// lost, as a condition variable's is.
// (One engine per process: one scenario.)
#include "change_signal.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <limits>

namespace s4u = simgrid::s4u;

TEST(ChangeSignal, WakesEveryWaiterAtTheNotificationAndEndsAtTheDeadlineOtherwise)
{
  ScenarioEngine scenario("unit_change_signal");
  s4u::Host* host = scenario.one_host();
  constexpr double kNever = std::numeric_limits<double>::infinity();

  s4bxi::ChangeSignal signal;
  double a_woke = -1, b_woke = -1, timed_woke = -1, tie_woke = -1, after_tie_woke = -1, lost_woke = -1;
  bool a_notified = false, timed_notified = true, tie_notified = false, after_tie_notified = true;
  bool waited_for_while_waiting = false, waited_for_after = true;

  // Two waiters without deadline, one with a deadline before the
  // notification, and one killed in its wait.
  s4u::Actor::create("a", host, [&] {
    a_notified = signal.wait_until(kNever);
    a_woke = s4u::Engine::get_clock();
  });
  s4u::Actor::create("b", host, [&] {
    signal.wait_until(kNever);
    b_woke = s4u::Engine::get_clock();
  });
  s4u::Actor::create("timed", host, [&] {
    timed_notified = signal.wait_until(1.0);
    timed_woke = s4u::Engine::get_clock();
  });
  s4u::ActorPtr victim = s4u::Actor::create("victim", host, [&] { signal.wait_until(kNever); });
  s4u::Actor::create("notifier", host, [&] {
    s4u::this_actor::sleep_until(1.5);
    victim->kill();
    waited_for_while_waiting = signal.waited_for();
    signal.notify_all(); // a, b (and not the victim, gone)
    waited_for_after = signal.waited_for();
    // A deadline at the very instant of a notification: whichever way the
    // engine orders the two, the next wait waits for its own end.
    s4u::this_actor::sleep_until(3.0);
    signal.notify_all();
    s4u::this_actor::sleep_until(5.0);
    signal.notify_all(); // nobody waits: lost
  });
  s4u::Actor::create("tie", host, [&] {
    s4u::this_actor::sleep_until(2.0);
    tie_notified = signal.wait_until(3.0);
    tie_woke = s4u::Engine::get_clock();
    after_tie_notified = signal.wait_until(4.0);
    after_tie_woke = s4u::Engine::get_clock();
    // After the lost notification at 5 s: waits to its deadline.
    s4u::this_actor::sleep_until(5.5);
    signal.wait_until(6.0);
    lost_woke = s4u::Engine::get_clock();
  });
  scenario.run();

  EXPECT_TRUE(waited_for_while_waiting);
  EXPECT_FALSE(waited_for_after);
  EXPECT_TRUE(a_notified);
  EXPECT_DOUBLE_EQ(a_woke, 1.5);
  EXPECT_DOUBLE_EQ(b_woke, 1.5);
  EXPECT_FALSE(timed_notified);
  EXPECT_DOUBLE_EQ(timed_woke, 1.0);
  EXPECT_DOUBLE_EQ(tie_woke, 3.0);
  (void)tie_notified; // either is right at the same instant
  EXPECT_FALSE(after_tie_notified);
  EXPECT_DOUBLE_EQ(after_tie_woke, 4.0);
  EXPECT_DOUBLE_EQ(lost_woke, 6.0);
  EXPECT_FALSE(signal.waited_for());
}
