// BXI ACKs of responses handled at their landing (s4bxi/acks-at-landing,
// simserver/nic/wire.hpp), with an engine that works as the NIC's do
// (rx_engine_scenario.hpp). A BXI ACK of a response that reaches the engine
// while it waits with nothing queued goes to the lane's handler at its
// landing, and the engine never sees it; one that lands while the engine is
// busy waits its turn behind what came before it; a BXI ACK of a request
// (whose handling may complete an operation) always goes to the engine.
// (One engine per process: one scenario.)
#include "rx_engine_scenario.hpp"

namespace s4u = simgrid::s4u;
using s4bxi::nic::Message;
using s4bxi::nic::MessagePtr;

TEST(AcksAtLanding, AnIdleEngineLeavesAnAckOfAResponseToTheSimulationAndABusyOneTakesItInTurn)
{
  RxEngineScenario rx("unit_acks_at_landing");
  constexpr double kWay = RxEngineScenario::kWay;
  constexpr double kDelay = RxEngineScenario::kDelay;
  rx.lane.handle_at_landing([&](MessagePtr message) {
    EXPECT_TRUE(s4u::Actor::is_maestro()) << rx.name_of(*message);
    rx.handled.push_back({rx.name_of(*message), message->landed_at, s4u::Engine::get_clock(), false});
  });
  rx.run([&] {
    // 1. To an idle engine: handled at its landing, without the engine.
    rx.send("ack of a response, idle", Message::Kind::BxiAck, true);
    // 2. A Put, then an ACK of a response that lands during the Put's delay:
    // the engine takes it after the Put, at the end of that delay.
    s4u::this_actor::sleep_until(1.0);
    rx.send("put", Message::Kind::Put);
    s4u::this_actor::sleep_until(1.0 + kDelay / 2);
    rx.send("ack of a response, busy", Message::Kind::BxiAck, true);
    // 3. An ACK of a request to an idle engine: the engine's.
    s4u::this_actor::sleep_until(2.0);
    rx.send("ack of a request", Message::Kind::BxiAck);
    s4u::this_actor::sleep_until(3.0);
  });

  const auto& handled = rx.handled;
  ASSERT_EQ(handled.size(), 4U);
  EXPECT_EQ(rx.wire.handled_at_landing(), 1U);
  EXPECT_EQ(handled[0].name, "ack of a response, idle");
  EXPECT_FALSE(handled[0].by_engine);
  EXPECT_DOUBLE_EQ(handled[0].at, kWay);
  EXPECT_EQ(handled[1].name, "put");
  EXPECT_TRUE(handled[1].by_engine);
  EXPECT_DOUBLE_EQ(handled[1].at, 1.0 + kWay + kDelay);
  EXPECT_EQ(handled[2].name, "ack of a response, busy");
  EXPECT_TRUE(handled[2].by_engine);
  EXPECT_DOUBLE_EQ(handled[2].at, 1.0 + kWay + kDelay);
  EXPECT_EQ(handled[3].name, "ack of a request");
  EXPECT_TRUE(handled[3].by_engine);
  EXPECT_DOUBLE_EQ(handled[3].at, 2.0 + kWay);
  EXPECT_EQ(rx.wire.on_their_way(), 0U);
}
