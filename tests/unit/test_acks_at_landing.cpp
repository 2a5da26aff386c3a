// BXI ACKs of responses handled at their landing (s4bxi/acks-at-landing,
// simserver/nic/wire.hpp), under a real SimGrid engine, with an engine that
// works as the NIC's do (nic.cpp, rx_loop): it takes a message, sleeps its
// delay unless it is a BXI ACK, and handles it. A BXI ACK of a response that
// reaches the engine while it waits with nothing queued goes to the lane's
// handler at its landing, and the engine never sees it; one that lands while
// the engine is busy waits its turn behind what came before it; a BXI ACK of a
// request (whose handling may complete an operation) always goes to the engine.
// (One engine per process: one scenario.)
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
  double at;
  bool by_engine;
};

} // namespace

TEST(AcksAtLanding, AnIdleEngineLeavesAnAckOfAResponseToTheSimulationAndABusyOneTakesItInTurn)
{
  // (CM02 with unit factors and no cross-traffic: a message's way is its
  // latency, then its bytes at the link's bandwidth.)
  ScenarioEngine scenario("unit_acks_at_landing", {"network/model:CM02", "network/latency-factor:1",
                                                   "network/bandwidth-factor:1", "network/TCP-gamma:0",
                                                   "network/crosstraffic:0"});
  const auto [sender, receiver, link] = scenario.two_hosts(kLatency);

  Wire wire(-1); // (host-to-host communications: nothing crosses alone)
  RxLane lane;
  std::map<const Message*, std::string> names;
  std::vector<Handled> handled;
  const LostHandler on_lost = [](Message&, uint64_t) { ADD_FAILURE() << "a message lost"; };
  auto send = [&](const std::string& name, Message::Kind kind, bool acknowledges_response) {
    MessagePtr message(new Message);
    message->kind = kind;
    message->acknowledges_response = acknowledges_response;
    names[message.get()] = name;
    wire.carry(message, kBytes, sender, receiver, 0, lane, on_lost, /*links_may_fail=*/false);
  };
  const double way = kLatency + static_cast<double>(kBytes) / kBandwidth;

  lane.handle_at_landing([&](MessagePtr message) {
    EXPECT_TRUE(s4u::Actor::is_maestro()) << names.at(message.get());
    handled.push_back({names.at(message.get()), s4u::Engine::get_clock(), false});
  });
  s4u::Actor::create("rx", receiver, [&] {
    wire.serve(lane, kDelay);
    while (true) {
      MessagePtr message = lane.next();
      if (message->kind != Message::Kind::BxiAck)
        s4bxi::sleep_until(lane.taken_at() + kDelay);
      handled.push_back({names.at(message.get()), s4u::Engine::get_clock(), true});
    }
  })->daemonize();
  s4u::Actor::create("sender", sender, [&] {
    // 1. To an idle engine: handled at its landing, without the engine.
    send("ack of a response, idle", Message::Kind::BxiAck, true);
    // 2. A Put, then an ACK of a response that lands during the Put's delay:
    // the engine takes it after the Put, at the end of that delay.
    s4u::this_actor::sleep_until(1.0);
    send("put", Message::Kind::Put, false);
    s4u::this_actor::sleep_until(1.0 + kDelay / 2);
    send("ack of a response, busy", Message::Kind::BxiAck, true);
    // 3. An ACK of a request to an idle engine: the engine's.
    s4u::this_actor::sleep_until(2.0);
    send("ack of a request", Message::Kind::BxiAck, false);
    s4u::this_actor::sleep_until(3.0); // (the engine, a daemon, ends with the last other actor)
  });
  scenario.run();

  ASSERT_EQ(handled.size(), 4U);
  EXPECT_EQ(wire.handled_at_landing(), 1U);
  EXPECT_EQ(handled[0].name, "ack of a response, idle");
  EXPECT_FALSE(handled[0].by_engine);
  EXPECT_DOUBLE_EQ(handled[0].at, way);
  EXPECT_EQ(handled[1].name, "put");
  EXPECT_TRUE(handled[1].by_engine);
  EXPECT_DOUBLE_EQ(handled[1].at, 1.0 + way + kDelay);
  EXPECT_EQ(handled[2].name, "ack of a response, busy");
  EXPECT_TRUE(handled[2].by_engine);
  EXPECT_DOUBLE_EQ(handled[2].at, 1.0 + way + kDelay);
  EXPECT_EQ(handled[3].name, "ack of a request");
  EXPECT_TRUE(handled[3].by_engine);
  EXPECT_DOUBLE_EQ(handled[3].at, 2.0 + way);
  EXPECT_EQ(wire.on_their_way(), 0U);
}
