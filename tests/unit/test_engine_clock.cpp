// The server's copy of the simulated time (simserver/engine_clock.hpp) under a
// real SimGrid engine: wherever the server reads the time (an actor after a
// sleep, a computation, a communication or a wake; a kernel timer's callback;
// the callbacks SimGrid makes as time advances, as a communication ends and as
// a link's state profile turns it off and on, each connected after start-up as
// the server's are), it reads what s4u::Engine::get_clock() returns, at time
// 0 before anything ran included.
// (One engine per process: one scenario.)
#include "actor_sleep.hpp"
#include "engine_clock.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/kernel/ProfileBuilder.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace s4u = simgrid::s4u;

TEST(EngineClock, ReadsWhatTheEngineSaysWhereverTheServerLooks)
{
  ScenarioEngine scenario("unit_engine_clock");
  // The link is off at 2 us, on again at 3 us: turned by the engine, within its solve step.
  const ScenarioEngine::TwoHosts hosts = scenario.two_hosts(1e-7, [](s4u::Link* link) {
    link->set_state_profile(simgrid::kernel::profile::ProfileBuilder::from_string("link_state", "2e-6 0\n3e-6 1\n", -1));
  });
  s4u::Host* a = hosts.a;
  s4u::Host* b = hosts.b;

  struct Seen {
    double ours;
    double engine;
    std::string where;
  };
  std::vector<Seen> seen;
  auto look = [&seen](const char* where) { seen.push_back({s4bxi::sim_now(), s4u::Engine::get_clock(), where}); };
  look("before the run");

  s4u::Engine::on_time_advance_cb([&look](double) { look("time advance"); });
  s4u::Link::on_communication_state_change_cb(
      [&look](simgrid::kernel::resource::NetworkAction&, simgrid::kernel::resource::Action::State) {
        look("communication state");
      });
  s4u::Link::on_state_change_cb([&look](const s4u::Link&) { look("link state"); });
  s4u::SemaphorePtr bell = s4u::Semaphore::create(0);
  s4u::Actor::create("sleeper", a, [&] {
    look("actor start");
    for (int i = 1; i <= 50; ++i) {
      // SimGrid's own sleeps, the server's, and a computation.
      if (i % 3 == 0)
        s4u::this_actor::sleep_for(i * 1e-7);
      else if (i % 3 == 1)
        s4bxi::sleep_for(i * 3e-8);
      else
        s4u::this_actor::execute(1e3 * i);
      look("actor after a sleep");
      simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock() + i * 1e-8, [&look, &bell] {
        look("timer");
        bell->release();
      });
      bell->acquire();
      look("actor woken");
    }
  });
  s4u::Actor::create("sender", a, [&] {
    for (int i = 0; i < 20; ++i) {
      try {
        s4u::Comm::sendto(a, b, 100.0 * (i + 1));
      } catch (const simgrid::Exception&) {
        look("actor after a failed communication");
        s4u::this_actor::sleep_for(1.1e-6);
      }
      look("actor after a communication");
    }
  });
  scenario.run();

  EXPECT_GT(seen.back().engine, 1e-5); // time went by
  auto count = [&seen](const std::string& where) {
    return std::count_if(seen.begin(), seen.end(), [&](const Seen& s) { return s.where == where; });
  };
  EXPECT_EQ(count("link state"), 2);
  EXPECT_GE(count("communication state"), 20);
  EXPECT_GE(count("actor after a failed communication"), 1); // the link went off under one
  EXPECT_GT(count("timer"), 40);
  for (size_t i = 0; i < seen.size(); ++i)
    ASSERT_EQ(seen[i].ours, seen[i].engine) << "look " << i << ": " << seen[i].where;
}
