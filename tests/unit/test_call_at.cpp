// Calls at a time in maestro (simserver/actor_sleep.hpp, call_at) under a
// real SimGrid engine: a call runs in maestro at its date, before the actors
// that sleep to that date run in that round, and counts as a sleep until then;
// one due within SimGrid's precision of a date time moves to runs in that
// round, as a sleeper's wake does; a cancelled call never runs and leaves no
// timer behind to move simulated time on; a call may set another.
// (One engine per process: one scenario.)
#include "actor_sleep.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <string>
#include <utility>
#include <vector>

namespace s4u = simgrid::s4u;

TEST(CallAt, RunsInMaestroWhereASleeperWouldWakeAndACancelledOneLeavesNoTimer)
{
  ScenarioEngine scenario("unit_call_at", {"surf/precision:1e-9"});
  s4u::Host* host = scenario.one_host();
  std::vector<std::pair<std::string, double>> seen;
  bool sleeps_while_pending = false;

  s4u::Actor::create("caller", host, [&] {
    // 1. A call and a sleeper at one date: the call first, in maestro.
    s4bxi::call_at(1.0, [&] {
      EXPECT_TRUE(s4u::Actor::is_maestro());
      seen.emplace_back("call at 1", s4u::Engine::get_clock());
      // 4. A call may set another.
      s4bxi::call_at(3.0, [&] { seen.emplace_back("call at 3", s4u::Engine::get_clock()); });
    });
    sleeps_while_pending = s4bxi::some_actor_sleeps();
    s4bxi::sleep_until(1.0);
    seen.emplace_back("sleeper at 1", s4u::Engine::get_clock());
    // 2. Due within the precision of a date time moves to: run in that round.
    s4bxi::call_at(2.0 + 1e-10, [&] { seen.emplace_back("call at 2+", s4u::Engine::get_clock()); });
    s4bxi::sleep_until(2.0);
    seen.emplace_back("sleeper at 2", s4u::Engine::get_clock());
    // 3. Cancelled: never runs, and the simulation does not go on to its date.
    const auto cancelled = s4bxi::call_at(100.0, [&] { seen.emplace_back("cancelled", s4u::Engine::get_clock()); });
    s4bxi::cancel_call(cancelled);
    s4bxi::cancel_call(cancelled); // (twice: nothing)
  });
  scenario.run();

  const std::vector<std::pair<std::string, double>> expected{
      {"call at 1", 1.0}, {"sleeper at 1", 1.0}, {"call at 2+", 2.0}, {"sleeper at 2", 2.0}, {"call at 3", 3.0}};
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(sleeps_while_pending);
  EXPECT_FALSE(s4bxi::some_actor_sleeps());
  EXPECT_DOUBLE_EQ(s4u::Engine::get_clock(), 3.0);
}
