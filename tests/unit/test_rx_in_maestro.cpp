// Messages handled in maestro at the end of their RX engine's delay
// (s4bxi/rx-in-maestro, simserver/nic/wire.hpp), with an engine that works as
// the NIC's do (rx_engine_scenario.hpp). A message that reaches the engine
// while it waits with nothing queued goes to the lane's maestro handler at the
// end of the delay, and the engine never sees it; one that lands meanwhile
// waits for the engine, which takes it when that handling is done, as it would
// after handling the first itself; one the handler refuses (its handling could
// block) goes to the engine at the end of its delay, which then handles it at
// once. (One engine per process: one scenario.)
#include "rx_engine_scenario.hpp"

namespace s4u = simgrid::s4u;
using s4bxi::nic::Message;
using s4bxi::nic::MessagePtr;

TEST(RxInMaestro, AnIdleEngineLeavesItsMessageToTheSimulationAndWhatLandsMeanwhileWaitsForIt)
{
  RxEngineScenario rx("unit_rx_in_maestro");
  constexpr double kWay = RxEngineScenario::kWay;
  constexpr double kDelay = RxEngineScenario::kDelay;
  rx.lane.handle_in_maestro([&](MessagePtr& message) {
    EXPECT_TRUE(s4u::Actor::is_maestro()) << rx.name_of(*message);
    if (rx.name_of(*message) == "refused")
      return false;
    rx.handled.push_back({rx.name_of(*message), message->landed_at, s4u::Engine::get_clock(), false});
    return true;
  });
  rx.run([&] {
    // 1. To an idle engine: handled in maestro at the end of its delay.
    rx.send("idle", Message::Kind::Put);
    // 2. A Put, then another that lands during the first's delay: maestro
    // handles the first; the engine takes the second when that is done.
    s4u::this_actor::sleep_until(1.0);
    rx.send("first", Message::Kind::Put);
    s4u::this_actor::sleep_until(1.0 + kDelay / 2);
    rx.send("second", Message::Kind::Ack);
    // 3. One the handler refuses: the engine's, at once at the end of its delay.
    s4u::this_actor::sleep_until(2.0);
    rx.send("refused", Message::Kind::Put);
    // 4. A BXI ACK of a request (no delay): the engine's, at its landing.
    s4u::this_actor::sleep_until(3.0);
    rx.send("bxi ack", Message::Kind::BxiAck);
    s4u::this_actor::sleep_until(4.0);
  });

  const auto& handled = rx.handled;
  ASSERT_EQ(handled.size(), 5U);
  EXPECT_EQ(rx.wire.handled_in_maestro(), 2U);
  EXPECT_EQ(rx.wire.sent_back_to_engines(), 1U);
  EXPECT_EQ(rx.wire.in_maestro_pending(), 0U);
  EXPECT_EQ(handled[0].name, "idle");
  EXPECT_FALSE(handled[0].by_engine);
  EXPECT_DOUBLE_EQ(handled[0].at, kWay + kDelay);
  EXPECT_EQ(handled[1].name, "first");
  EXPECT_FALSE(handled[1].by_engine);
  EXPECT_DOUBLE_EQ(handled[1].at, 1.0 + kWay + kDelay);
  EXPECT_EQ(handled[2].name, "second");
  EXPECT_TRUE(handled[2].by_engine);
  EXPECT_DOUBLE_EQ(handled[2].taken, 1.0 + kWay + kDelay); // (when the engine was free: not its landing)
  EXPECT_DOUBLE_EQ(handled[2].at, 1.0 + kWay + 2 * kDelay);
  EXPECT_EQ(handled[3].name, "refused");
  EXPECT_TRUE(handled[3].by_engine);
  EXPECT_DOUBLE_EQ(handled[3].taken, 2.0 + kWay);
  EXPECT_DOUBLE_EQ(handled[3].at, 2.0 + kWay + kDelay);
  EXPECT_EQ(handled[4].name, "bxi ack");
  EXPECT_TRUE(handled[4].by_engine);
  EXPECT_DOUBLE_EQ(handled[4].at, 3.0 + kWay);
  EXPECT_EQ(rx.wire.on_their_way(), 0U);
}
