// A lane of the NIC command queue (simserver/nic/command_queue.hpp) that the
// NIC holds while the simulation runs its consumer's delay for the item it
// took from it (s4bxi/tx-in-maestro, nic/nic.cpp): its consumer, waiting, is
// not woken by what is pushed meanwhile; once the hold ends it takes what
// was pushed, in order, after the held item when that goes back to it. (One
// engine per process: one scenario.)
#include "nic/command_queue.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <utility>
#include <vector>

namespace s4u = simgrid::s4u;

TEST(CommandQueue, AHeldLaneWakesItsConsumerOnlyWhenTheHoldEnds)
{
  ScenarioEngine scenario("unit_command_queue_hold");
  s4u::Host* host = scenario.one_host();

  s4bxi::nic::CommandQueue<int> queue(4, 1);
  std::vector<std::pair<int, double>> popped;
  std::vector<bool> idle_seen;

  s4u::Actor::create("tx", host, [&] {
    while (true) {
      const int item = queue.pop();
      popped.emplace_back(item, s4u::Engine::get_clock());
    }
  })->daemonize();
  s4u::Actor::create("nic", host, [&] {
    s4u::this_actor::sleep_for(1.0);
    idle_seen.push_back(queue.consumer_idle(0)); // waits, nothing queued: idle
    // 1. Held: items pushed meanwhile wait; the hold ends at 2 s.
    queue.hold(0);
    idle_seen.push_back(queue.consumer_idle(0)); // held: not idle
    queue.push_unbounded(1);
    s4u::this_actor::sleep_for(0.5);
    queue.push_unbounded(2);
    s4u::this_actor::sleep_for(0.5);
    queue.release_hold(0);
    s4u::this_actor::sleep_for(1.0);
    // 2. Held, then the held item goes back to the consumer first, at 4 s.
    queue.hold(0);
    queue.push_unbounded(4);
    s4u::this_actor::sleep_for(1.0);
    int held = 3;
    queue.release_hold(0, &held);
    s4u::this_actor::sleep_for(1.0);
    idle_seen.push_back(queue.consumer_idle(0)); // all taken: idle again
  });
  scenario.run();

  const std::vector<std::pair<int, double>> expected{{1, 2.0}, {2, 2.0}, {3, 4.0}, {4, 4.0}};
  EXPECT_EQ(popped, expected);
  const std::vector<bool> expected_idle{true, false, true};
  EXPECT_EQ(idle_seen, expected_idle);
}
