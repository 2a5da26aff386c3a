// Sleeps on kernel timers (simserver/actor_sleep.hpp) under a real SimGrid
// engine: actors wake at the time they asked for, or with what else ends
// within SimGrid's precision of it, as its own sleeps do (and at their times,
// to a few units of the last place: SimGrid's CPU model takes the time gone by
// off the remaining duration at each step); a sleep to a time already passed
// takes none; an actor killed in its sleep leaves the others that sleep to the
// same date; and a daemon killed in its sleep
// (as SimGrid kills the NIC's engines once the ranks have ended) leaves no
// timer behind to move simulated time on.
// (One engine per process: one scenario.)
#include "actor_sleep.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <vector>

namespace s4u = simgrid::s4u;

TEST(ActorSleep, WakesWhenSimGridsSleepWouldAndLeavesNoTimerBehindAKilledDaemon)
{
  ScenarioEngine scenario("unit_actor_sleep", {"surf/precision:1e-13"});
  constexpr double kPrecision = 1e-13;
  s4u::Host* host = scenario.one_host();

  // The same schedule of sleeps, by SimGrid's sleep and by ours, in two
  // actors each: poll-like periods, NIC-like delays, sleeps until a time
  // computed by additions, a sleep of nothing and one until a time passed.
  struct Schedule {
    std::vector<double> asked;
    std::vector<double> woken;
    double before_passed = -1;
    double after_passed = -2;
  };
  auto run = [](Schedule& schedule, int seed, auto sleep_for, auto sleep_until) {
    double start = s4u::Engine::get_clock();
    for (int i = 0; i < 200; ++i) {
      const double step = ((i * 7 + seed) % 5 + 1) * 1e-7 / 3;
      if (i % 3 == 0) {
        schedule.asked.push_back(start + step);
        sleep_for(step);
      } else {
        double end = start;
        for (int k = 0; k <= i % 4; ++k)
          end += step;
        schedule.asked.push_back(end);
        sleep_until(end);
      }
      start = s4u::Engine::get_clock();
      schedule.woken.push_back(start);
    }
    sleep_for(0.0);
    schedule.before_passed = s4u::Engine::get_clock();
    sleep_until(schedule.before_passed - 1e-6);
    schedule.after_passed = s4u::Engine::get_clock();
  };
  auto simgrid_for = [](double d) { s4u::this_actor::sleep_for(d); };
  auto simgrid_until = [](double t) { s4u::this_actor::sleep_until(t); };
  auto ours_for = [](double d) { s4bxi::sleep_for(d); };
  auto ours_until = [](double t) { s4bxi::sleep_until(t); };
  Schedule simgrid_a, simgrid_b, ours_a, ours_b;
  s4u::Actor::create("simgrid_a", host, [&] { run(simgrid_a, 1, simgrid_for, simgrid_until); });
  s4u::Actor::create("ours_a", host, [&] { run(ours_a, 1, ours_for, ours_until); });
  s4u::Actor::create("simgrid_b", host, [&] { run(simgrid_b, 3, simgrid_for, simgrid_until); });
  s4u::Actor::create("ours_b", host, [&] { run(ours_b, 3, ours_for, ours_until); });

  // A sleep due a hundred thousandth of the precision after SimGrid's sleep
  // ends with it, in the same round: no time point in between.
  constexpr double kShared = 1e-3;
  double simgrid_woke = -1;
  double ours_woke = -1;
  s4u::Actor::create("simgrid_shared", host, [&] {
    s4u::this_actor::sleep_until(kShared);
    simgrid_woke = s4u::Engine::get_clock();
  });
  s4u::Actor::create("ours_shared", host, [&] {
    s4bxi::sleep_until(kShared + kPrecision * 1e-5);
    ours_woke = s4u::Engine::get_clock();
  });
  // Two actors asleep until the same date (one timer for both), one of them
  // killed meanwhile: the other still wakes then.
  constexpr double kTogether = 2e-3;
  double survivor_woke = -1;
  bool victim_woke = false;
  s4u::Actor::create("survivor", host, [&] {
    s4bxi::sleep_until(kTogether);
    survivor_woke = s4u::Engine::get_clock();
  });
  s4u::ActorPtr victim = s4u::Actor::create("victim", host, [&] {
    s4bxi::sleep_until(kTogether);
    victim_woke = true;
  });
  bool sleeper_seen = false;
  s4u::Actor::create("killer", host, [&] {
    s4bxi::sleep_until(kTogether / 2);
    sleeper_seen = s4bxi::some_actor_sleeps(); // the survivor and the victim
    victim->kill();
  });
  // Every sleep that ends calls back, in the woken actor (the poll sentinel
  // arms on it, as on SimGrid's Actor::on_wake_up).
  int woken = 0;
  s4bxi::on_wake_up_cb([&woken] { woken++; });
  std::vector<double> time_points;
  s4u::Engine::on_time_advance_cb([&](double) { time_points.push_back(s4u::Engine::get_clock()); });

  // A daemon asleep until long after the others have ended.
  bool daemon_woke = false;
  bool daemon_killed = false;
  s4u::Actor::create("daemon", host, [&] {
    s4u::this_actor::on_exit([&](bool failed) { daemon_killed = failed; });
    s4bxi::sleep_until(100.0);
    daemon_woke = true;
  })->daemonize();

  scenario.run();

  ASSERT_EQ(ours_a.woken.size(), 200u);
  ASSERT_EQ(ours_b.woken.size(), 200u);
  for (size_t i = 0; i < 200; ++i) {
    for (const Schedule* ours : {&ours_a, &ours_b}) {
      EXPECT_LE(ours->woken[i], ours->asked[i]) << "sleep " << i;
      EXPECT_GT(ours->woken[i], ours->asked[i] - kPrecision) << "sleep " << i;
    }
    // Five orders of magnitude below the server's precision (1e-13 s).
    EXPECT_NEAR(ours_a.woken[i], simgrid_a.woken[i], 1e-18) << "sleep " << i;
    EXPECT_NEAR(ours_b.woken[i], simgrid_b.woken[i], 1e-18) << "sleep " << i;
  }
  EXPECT_EQ(ours_a.before_passed, ours_a.woken.back());
  EXPECT_EQ(ours_a.after_passed, ours_a.before_passed);
  EXPECT_EQ(ours_b.after_passed, ours_b.before_passed);
  EXPECT_EQ(simgrid_woke, kShared);
  EXPECT_EQ(ours_woke, kShared);
  for (double point : time_points)
    EXPECT_FALSE(point > kShared && point < kShared + kPrecision) << point;
  EXPECT_EQ(survivor_woke, kTogether);
  EXPECT_TRUE(sleeper_seen);
  EXPECT_FALSE(s4bxi::some_actor_sleeps());
  // Ours: 2 x 200 of the schedules (the sleep of nothing and the one to a
  // time passed do not sleep), the shared one, the survivor and the killer.
  EXPECT_EQ(woken, 2 * 200 + 3);
  EXPECT_FALSE(victim_woke);
  EXPECT_FALSE(daemon_woke);
  EXPECT_TRUE(daemon_killed);
  // The run ends with the last sleep of the actors, not at the daemon's date.
  const double last = std::max({simgrid_a.after_passed, simgrid_b.after_passed, ours_a.after_passed, ours_b.after_passed,
                                 simgrid_woke, ours_woke, survivor_woke});
  EXPECT_EQ(s4u::Engine::get_clock(), last);
  EXPECT_LT(s4u::Engine::get_clock(), 1.0);
}
