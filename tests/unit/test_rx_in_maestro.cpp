// Messages handled in maestro at the end of their RX engine's delay
// (s4bxi/rx-in-maestro, simserver/nic/wire.hpp), under a real SimGrid engine,
// with an engine that works as the NIC's do (nic.cpp, rx_loop): it takes a
// message, sleeps its delay unless that has run or it is a BXI ACK, and
// handles it. A message that reaches the engine while it waits with nothing
// queued goes to the lane's maestro handler at the end of the delay, and the
// engine never sees it; one that lands meanwhile waits for the engine, which
// takes it when that handling is done, as it would after handling the first
// itself; one the handler refuses (its handling could block) goes to the
// engine at the end of its delay, which then handles it at once. (One engine
// per process: one scenario.)
#include "actor_sleep.hpp"
#include "nic/wire.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <map>
#include <string>
#include <vector>

namespace s4u = simgrid::s4u;
using s4bxi::nic::LostHandler;
using s4bxi::nic::Message;
using s4bxi::nic::MessagePtr;
using s4bxi::nic::RxLane;
using s4bxi::nic::Wire;

namespace {

constexpr double kBandwidth = 1e9; // B/s (ScenarioEngine::two_hosts)
constexpr double kLatency = 1e-3;  // s
constexpr double kDelay = 2e-4;    // s, the engine's
constexpr uint64_t kBytes = 100;

struct Handled {
  std::string name;
  double taken;
  double at;
  bool by_engine;
};

} // namespace

TEST(RxInMaestro, AnIdleEngineLeavesItsMessageToTheSimulationAndWhatLandsMeanwhileWaitsForIt)
{
  // (CM02 with unit factors and no cross-traffic: a message's way is its
  // latency, then its bytes at the link's bandwidth.)
  ScenarioEngine scenario("unit_rx_in_maestro", {"network/model:CM02", "network/latency-factor:1",
                                                 "network/bandwidth-factor:1", "network/TCP-gamma:0",
                                                 "network/crosstraffic:0"});
  const auto [sender, receiver, link] = scenario.two_hosts(kLatency);

  Wire wire(-1); // (host-to-host communications: nothing crosses alone)
  RxLane lane;
  std::map<const Message*, std::string> names;
  std::map<const Message*, double> landings;
  std::vector<Handled> handled;
  const LostHandler on_lost = [](Message&, uint64_t) { ADD_FAILURE() << "a message lost"; };
  auto send = [&](const std::string& name, Message::Kind kind) {
    MessagePtr message(new Message);
    message->kind = kind;
    names[message.get()] = name;
    wire.carry(message, kBytes, sender, receiver, 0, lane, on_lost, /*links_may_fail=*/false);
  };
  const double way = kLatency + static_cast<double>(kBytes) / kBandwidth;

  lane.handle_in_maestro([&](MessagePtr& message) {
    EXPECT_TRUE(s4u::Actor::is_maestro()) << names.at(message.get());
    if (names.at(message.get()) == "refused")
      return false;
    handled.push_back({names.at(message.get()), message->landed_at, s4u::Engine::get_clock(), false});
    return true;
  });
  s4u::Actor::create("rx", receiver, [&] {
    wire.serve(lane, kDelay);
    while (true) {
      MessagePtr message = lane.next();
      if (message->kind != Message::Kind::BxiAck && not lane.delay_ran())
        s4bxi::sleep_until(lane.taken_at() + kDelay);
      handled.push_back({names.at(message.get()), lane.taken_at(), s4u::Engine::get_clock(), true});
    }
  })->daemonize();
  s4u::Actor::create("sender", sender, [&] {
    // 1. To an idle engine: handled in maestro at the end of its delay.
    send("idle", Message::Kind::Put);
    // 2. A Put, then another that lands during the first's delay: maestro
    // handles the first; the engine takes the second when that is done.
    s4u::this_actor::sleep_until(1.0);
    send("first", Message::Kind::Put);
    s4u::this_actor::sleep_until(1.0 + kDelay / 2);
    send("second", Message::Kind::Ack);
    // 3. One the handler refuses: the engine's, at once at the end of its delay.
    s4u::this_actor::sleep_until(2.0);
    send("refused", Message::Kind::Put);
    // 4. A BXI ACK of a request (no delay): the engine's, at its landing.
    s4u::this_actor::sleep_until(3.0);
    send("bxi ack", Message::Kind::BxiAck);
    s4u::this_actor::sleep_until(4.0); // (the engine, a daemon, ends with the last other actor)
  });
  scenario.run();

  ASSERT_EQ(handled.size(), 5U);
  EXPECT_EQ(wire.handled_in_maestro(), 2U);
  EXPECT_EQ(wire.sent_back_to_engines(), 1U);
  EXPECT_EQ(wire.in_maestro_pending(), 0U);
  EXPECT_EQ(handled[0].name, "idle");
  EXPECT_FALSE(handled[0].by_engine);
  EXPECT_DOUBLE_EQ(handled[0].at, way + kDelay);
  EXPECT_EQ(handled[1].name, "first");
  EXPECT_FALSE(handled[1].by_engine);
  EXPECT_DOUBLE_EQ(handled[1].at, 1.0 + way + kDelay);
  EXPECT_EQ(handled[2].name, "second");
  EXPECT_TRUE(handled[2].by_engine);
  EXPECT_DOUBLE_EQ(handled[2].taken, 1.0 + way + kDelay); // (when the engine was free: not its landing)
  EXPECT_DOUBLE_EQ(handled[2].at, 1.0 + way + 2 * kDelay);
  EXPECT_EQ(handled[3].name, "refused");
  EXPECT_TRUE(handled[3].by_engine);
  EXPECT_DOUBLE_EQ(handled[3].taken, 2.0 + way);
  EXPECT_DOUBLE_EQ(handled[3].at, 2.0 + way + kDelay);
  EXPECT_EQ(handled[4].name, "bxi ack");
  EXPECT_TRUE(handled[4].by_engine);
  EXPECT_DOUBLE_EQ(handled[4].at, 3.0 + way);
  EXPECT_EQ(wire.on_their_way(), 0U);
}
