// Messages alone on the wire handed to an idle RX engine at the end of its
// delay (s4bxi/lone-arrivals, simserver/nic/wire.hpp), under a real SimGrid
// engine, with an engine that works as the NIC's do (nic.cpp, rx_loop): it
// takes a message, sleeps its delay from the time it took it unless the
// delay ran already, and handles it. A message that reaches an idle engine
// with nothing else on its way is handed over at the end of the delay and
// handled then, as if it had landed and been slept on; one that lands while
// the engine still has another one to handle is not, and waits its turn.
// (One engine per process: one scenario.)
#include "actor_sleep.hpp"
#include "nic/wire.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <limits>
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

constexpr double kBandwidth = 1e9; // B/s, every link
constexpr double kLatency = 1e-3;  // s, every link
constexpr double kDelay = 2e-4;    // s, the engine's
constexpr uint64_t kBytes = 100;
constexpr double kNever = std::numeric_limits<double>::infinity();

struct Handled {
  std::string name;
  double taken_at;
  double at;
};

} // namespace

TEST(LoneArrivals, AnIdleEngineGetsTheMessageAtTheEndOfItsDelayAndABusyOneInItsTurn)
{
  // (CM02 with unit factors, no cross-traffic: the model lone messages
  // stand for exactly, nic/lone_writes.cpp.)
  ScenarioEngine scenario("unit_lone_arrivals", {"network/model:CM02", "network/latency-factor:1",
                                                 "network/bandwidth-factor:1", "network/TCP-gamma:0",
                                                 "network/crosstraffic:0"});
  auto* zone = s4u::create_full_zone("zone");
  s4u::Host* first = zone->create_host("first", 1e9);
  s4u::Host* second = zone->create_host("second", 1e9);
  s4u::Host* receiver = zone->create_host("receiver", 1e9);
  for (s4u::Host* from : {first, second}) {
    s4u::Link* link = zone->create_link(from->get_name() + "_link", kBandwidth)->set_latency(kLatency);
    zone->add_route(from->get_netpoint(), receiver->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(link)}, true);
  }
  zone->seal();

  Wire wire(-1);
  wire.allow_lone_messages({}, /*arrivals=*/true);
  RxLane lane;
  std::map<const Message*, std::string> names;
  std::vector<Handled> handled;
  const LostHandler on_lost = [](Message&, uint64_t) { ADD_FAILURE() << "a message lost"; };
  // `no_transfer_before`: what the sender knows of the other messages (no
  // other message's bytes flow before it).
  auto send = [&](const std::string& name, s4u::Host* from, unsigned source, double no_transfer_before) {
    MessagePtr message(new Message);
    message->kind = Message::Kind::Put;
    names[message.get()] = name;
    wire.carry(message, kBytes, from, receiver, source, lane, on_lost, /*links_may_fail=*/false, no_transfer_before);
  };
  const double way = kLatency + static_cast<double>(kBytes) / kBandwidth;

  s4u::Actor::create("rx", receiver, [&] {
    wire.serve(lane, kDelay);
    while (true) {
      MessagePtr message = lane.next();
      if (not lane.delay_ran())
        s4bxi::sleep_until(lane.taken_at() + kDelay);
      handled.push_back({names.at(message.get()), lane.taken_at(), s4u::Engine::get_clock()});
    }
  })->daemonize();
  s4u::Actor::create("senders", first, [&] {
    // 1. Alone, to an idle engine, nothing else able to land before the end
    // of its delay: handed over then.
    send("alone", first, 0, kNever);
    // 2. Alone, but another message may land during its delay: at its landing.
    s4u::this_actor::sleep_until(1.0);
    send("landing", first, 0, 1.0 + way + kDelay / 2);
    // 3. The same, and, before it is handled, another one from elsewhere that
    // nothing else can follow until long after: the engine, busy with the
    // first until its end, takes it then and sleeps its delay.
    s4u::this_actor::sleep_until(2.0);
    send("busy first", first, 0, 2.0 + way + kDelay / 2);
    s4u::this_actor::sleep_until(2.0 + kDelay / 4);
    send("busy second", second, 1, kNever);
    s4u::this_actor::sleep_until(3.0); // (the engine, a daemon, ends with the last other actor)
  });
  scenario.run();

  ASSERT_EQ(handled.size(), 4U);
  EXPECT_EQ(wire.lone_messages(), 4U);
  EXPECT_EQ(wire.lone_arrivals(), 1U);
  EXPECT_EQ(handled[0].name, "alone");
  EXPECT_DOUBLE_EQ(handled[0].taken_at, way);
  EXPECT_DOUBLE_EQ(handled[0].at, way + kDelay);
  EXPECT_EQ(handled[1].name, "landing");
  EXPECT_DOUBLE_EQ(handled[1].taken_at, 1.0 + way);
  EXPECT_DOUBLE_EQ(handled[1].at, 1.0 + way + kDelay);
  EXPECT_EQ(handled[2].name, "busy first");
  EXPECT_DOUBLE_EQ(handled[2].at, 2.0 + way + kDelay);
  EXPECT_EQ(handled[3].name, "busy second");
  EXPECT_DOUBLE_EQ(handled[3].taken_at, 2.0 + way + kDelay);
  EXPECT_DOUBLE_EQ(handled[3].at, 2.0 + way + 2 * kDelay);
  EXPECT_EQ(wire.on_their_way(), 0U);
}
