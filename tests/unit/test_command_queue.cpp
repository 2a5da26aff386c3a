// The NIC command queue (simserver/nic/command_queue.hpp) under a real
// SimGrid engine: a full queue stalls its pushers in simulated time until a
// slot is released, hands the slots over in the order the pushers came, and
// an empty lane's consumer is woken by the next push. (One engine per
// process: one scenario.)
#include "nic/command_queue.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <utility>
#include <vector>

namespace s4u = simgrid::s4u;

TEST(CommandQueue, FullQueueStallsPushersInOrderAndAnEmptyLaneWakesItsConsumer)
{
  ScenarioEngine scenario("unit_command_queue");
  s4u::Host* host = scenario.one_host();

  s4bxi::nic::CommandQueue<int> queue(2, 2); // depth 2, two lanes
  std::vector<std::pair<int, double>> pushed; // (item, when its push returned)
  std::vector<std::pair<int, double>> popped; // lane 0
  std::vector<std::pair<int, double>> popped_lane1;
  std::vector<int> free_seen;

  // Four commands at once into a queue of two: the last two wait for the
  // consumer, which holds each slot for one second.
  s4u::Actor::create("cpu", host, [&] {
    for (int item = 1; item <= 4; ++item) {
      queue.push(item);
      pushed.emplace_back(item, s4u::Engine::get_clock());
      free_seen.push_back(queue.free_slots());
    }
  });
  // Two more pushers that find the queue full; the first come is served first.
  s4u::Actor::create("late_first", host, [&] {
    s4u::this_actor::sleep_for(0.5);
    queue.push(10);
    pushed.emplace_back(10, s4u::Engine::get_clock());
  });
  s4u::Actor::create("late_second", host, [&] {
    s4u::this_actor::sleep_for(0.6);
    queue.push(20);
    pushed.emplace_back(20, s4u::Engine::get_clock());
  });
  s4u::Actor::create("tx", host, [&] {
    for (int i = 0; i < 6; ++i) {
      const int item = queue.pop();
      popped.emplace_back(item, s4u::Engine::get_clock());
      s4u::this_actor::sleep_for(1.0);
      queue.release_slot();
    }
  });
  // A lane with nothing in it: its consumer waits until work the NIC makes
  // itself (no slot taken) arrives at 20 s.
  s4u::Actor::create("tx_lane1", host, [&] {
    const int item = queue.pop(1);
    popped_lane1.emplace_back(item, s4u::Engine::get_clock());
  });
  s4u::Actor::create("nic", host, [&] {
    s4u::this_actor::sleep_for(20.0);
    queue.push_unbounded(99, 1);
  });
  scenario.run();

  // Items 1 and 2 take the two slots at once. Then the slots go to the
  // pushers in the order they began to wait: 3 (at 0 s), 10 (0.5 s), 20
  // (0.6 s), and 4, whose push began only when 3's returned (1 s).
  const std::vector<std::pair<int, double>> expected_pops{{1, 0.0}, {2, 1.0},  {3, 2.0},
                                                          {10, 3.0}, {20, 4.0}, {4, 5.0}};
  EXPECT_EQ(popped, expected_pops);
  const std::vector<std::pair<int, double>> expected_pushes{{1, 0.0},  {2, 0.0},  {3, 1.0},
                                                            {10, 2.0}, {20, 3.0}, {4, 4.0}};
  EXPECT_EQ(pushed, expected_pushes);
  const std::vector<int> expected_free{1, 0, 0, 0};
  EXPECT_EQ(free_seen, expected_free);
  const std::vector<std::pair<int, double>> expected_lane1{{99, 20.0}};
  EXPECT_EQ(popped_lane1, expected_lane1);
  EXPECT_EQ(queue.free_slots(), 2);
}
