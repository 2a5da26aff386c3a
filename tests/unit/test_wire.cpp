// The wire (simserver/nic/wire.hpp) under a real SimGrid engine: an RX lane
// gets its messages in the order they arrive across its sources, at the end
// of their communications; a source's messages keep the order they were
// sent in; a message whose link goes off goes to the sender's handler of
// lost messages, and the source's later ones still arrive; beyond a number
// of messages on their way, messages go through mailboxes of the lane and
// land all the same; once the lane's engine has ended, what was on its way
// there is dropped, not lost, and does not keep the simulated clock going.
// (One engine per process: one scenario.)
#include "nic/wire.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
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

constexpr double kBandwidth = 1e9;     // B/s, every link
constexpr double kFarLatency = 1e-3;   // s
constexpr double kNearLatency = 1e-4;  // s
constexpr unsigned kFar = 0;           // the sources' node ids
constexpr unsigned kNear = 1;

struct Landing {
  std::string name;
  double at;
};

} // namespace

TEST(Wire, MessagesArriveInTheOrderTheyLandAndEachSourceKeepsItsOrder)
{
  // (No cross-traffic: a message alone on its link takes exactly its
  // latency and its bytes at the bandwidth.)
  ScenarioEngine scenario("unit_wire", {"network/model:CM02", "network/crosstraffic:0"});
  auto* zone = s4u::create_full_zone("zone");
  s4u::Host* far = zone->create_host("far", 1e9);
  s4u::Host* near = zone->create_host("near", 1e9);
  s4u::Host* receiver = zone->create_host("receiver", 1e9);
  s4u::Link* far_link = zone->create_link("far_link", kBandwidth)->set_latency(kFarLatency);
  s4u::Link* near_link = zone->create_link("near_link", kBandwidth)->set_latency(kNearLatency);
  zone->add_route(far->get_netpoint(), receiver->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(far_link)}, true);
  zone->add_route(near->get_netpoint(), receiver->get_netpoint(), nullptr, nullptr, {s4u::LinkInRoute(near_link)},
                  true);
  zone->seal();

  // Beyond 4 on their way, through mailboxes (5. and 6. below).
  constexpr long kMailboxesBeyond = 4;
  constexpr int kBurst = 40;
  Wire wire(kMailboxesBeyond);
  RxLane lane;
  std::size_t most_on_their_way = 0;
  std::map<const Message*, std::string> names;
  std::vector<Landing> received;
  std::vector<Landing> lost;
  const LostHandler on_lost = [&](Message& message, uint64_t /*bytes*/) {
    lost.push_back({names.at(&message), s4u::Engine::get_clock()});
  };
  auto send = [&](const std::string& name, s4u::Host* from, unsigned source, uint64_t bytes) {
    MessagePtr message(new Message);
    names[message.get()] = name;
    wire.carry(message, bytes, from, receiver, source, lane, on_lost, /*links_may_fail=*/false);
    most_on_their_way = std::max(most_on_their_way, wire.on_their_way());
  };

  s4u::Actor::create("rx", receiver, [&] {
    wire.serve(lane);
    while (true) {
      MessagePtr message = lane.next();
      received.push_back({names.at(message.get()), s4u::Engine::get_clock()});
    }
  })->daemonize();
  s4u::Actor::create("far", far, [&] {
    // 1. Sent first, lands last: the near one sent after it is received first.
    send("far first", far, kFar, 100);
    // 3. Lost: its link goes off while it is on its way. The one after it,
    // sent once the link is on again, arrives.
    s4u::this_actor::sleep_until(2.0);
    send("far lost", far, kFar, 100);
    s4u::this_actor::sleep_until(3.0);
    send("far after the loss", far, kFar, 100);
    // 4. Still on its way when the last actor that is not a daemon ends:
    // SimGrid kills the engine, and the message is dropped.
    s4u::this_actor::sleep_until(4.0);
    send("far at the end", far, kFar, 100);
  });
  s4u::Actor::create("near", near, [&] {
    s4u::this_actor::sleep_for(1e-5);
    send("near second", near, kNear, 100);
    // 2. A large message, then a small one whose communication ends first:
    // the small one waits for the large one.
    s4u::this_actor::sleep_until(1.0);
    send("near large", near, kNear, 1'000'000);
    s4u::this_actor::sleep_for(1e-6);
    send("near small", near, kNear, 100);
    // 5. A burst, one message every 10 us, some 10 on their way at once:
    // those sent beyond 4 go through the lane's mailboxes, each lands at its
    // own time all the same, in order. (The engine takes each, and frees its
    // mailbox, before the burst ends: the pool is reused.)
    s4u::this_actor::sleep_until(3.5);
    for (int i = 0; i < kBurst; ++i) {
      send("burst " + std::to_string(i), near, kNear, 100);
      s4u::this_actor::sleep_for(1e-5);
    }
    // 6. Six sent at once, then their sender ends: the four host-to-host
    // ones go on and are received; the two beyond 4, through mailboxes, are
    // the sender's, cancelled by SimGrid when it ends, and dropped: neither
    // received nor lost. (The NIC's engines end with the job.)
    s4u::this_actor::sleep_until(3.9);
    for (int i = 0; i < 6; ++i)
      send("near at the end " + std::to_string(i), near, kNear, 100);
  });
  s4u::Actor::create("outage", far, [&] {
    s4u::this_actor::sleep_until(2.0 + kFarLatency / 2);
    far_link->turn_off();
    s4u::this_actor::sleep_for(0.5);
    far_link->turn_on();
  });
  scenario.run();

  ASSERT_EQ(received.size(), 5U + kBurst + 4);
  // 1. Each at the end of its communication: latency, then its bytes.
  EXPECT_EQ(received[0].name, "near second");
  EXPECT_NEAR(received[0].at, 1e-5 + kNearLatency + 100 / kBandwidth, 1e-12);
  EXPECT_EQ(received[1].name, "far first");
  EXPECT_NEAR(received[1].at, kFarLatency + 100 / kBandwidth, 1e-12);
  // 2. The small one landed long before the large one, but is received
  // with it, after it.
  EXPECT_EQ(received[2].name, "near large");
  EXPECT_GT(received[2].at, 1.0 + kNearLatency + 1'000'000 / kBandwidth - 1e-9);
  EXPECT_EQ(received[3].name, "near small");
  EXPECT_EQ(received[3].at, received[2].at);
  // 3. Lost when its link went off, not received; the next one is.
  ASSERT_EQ(lost.size(), 1U);
  EXPECT_EQ(lost[0].name, "far lost");
  EXPECT_NEAR(lost[0].at, 2.0 + kFarLatency / 2, 1e-12);
  EXPECT_EQ(received[4].name, "far after the loss");
  EXPECT_NEAR(received[4].at, 3.0 + kFarLatency + 100 / kBandwidth, 1e-12);
  // 5. Through mailboxes beyond 4 on their way, landed as host to host.
  EXPECT_GT(most_on_their_way, static_cast<std::size_t>(kMailboxesBeyond));
  EXPECT_GT(wire.through_mailboxes(), 0U);
  for (int i = 0; i < kBurst; ++i) {
    EXPECT_EQ(received[5 + i].name, "burst " + std::to_string(i));
    EXPECT_NEAR(received[5 + i].at, 3.5 + i * 1e-5 + kNearLatency + 100 / kBandwidth, 1e-12) << i;
  }
  // 6. (Four sharing the link: each takes four times its bytes.)
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(received[5 + kBurst + i].name, "near at the end " + std::to_string(i));
    EXPECT_NEAR(received[5 + kBurst + i].at, 3.9 + kNearLatency + 4 * 100 / kBandwidth, 1e-12) << i;
  }
  EXPECT_EQ(lost.size(), 1U);
  // 4. Dropped with its engine: neither received nor lost, and the
  // simulation ended with the last actor.
  EXPECT_EQ(s4u::Engine::get_clock(), 4.0);
  EXPECT_EQ(wire.on_their_way(), 0U);
  // Each slot reused once its message has arrived, those through mailboxes
  // too (their senders end their communications later).
  EXPECT_LE(wire.slots(), most_on_their_way + 1);
}
