// nic/landing_bounds.hpp: the earliest time a node's NIC can write an event
// it has not written yet, from the messages on their way and the least
// latencies of a real platform (a SimGrid engine with a generated fat tree).
#include "model_options.hpp"
#include "nic/landing_bounds.hpp"
#include "nic/message.hpp"
#include "platform/cluster.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cmath>
#include <memory>

namespace {

using s4bxi::nic::LandingBounds;
using s4bxi::nic::Message;
using s4bxi::nic::NodeDelays;

constexpr double kTx = 10e-9, kRx = 200e-9, kResponse = 150e-9;

class LandingBoundsTest : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    s4bxi::options::declare();
    static int argc = 1;
    static char name[] = "test";
    static char* argv[] = {name, nullptr};
    engine_ = std::make_unique<simgrid::s4u::Engine>(&argc, argv);
    nodes_ = s4bxi::platform::load_cluster("fattree:2;2,2;1,1;1,1"); // 4 nodes, 2 per leaf
  }

  // The route latency between two nodes' NICs, as SimGrid gives it.
  static double route(unsigned from, unsigned to)
  {
    std::vector<simgrid::s4u::Link*> links;
    double latency = 0;
    nodes_[from].nic->route_to(nodes_[to].nic, links, &latency);
    return latency;
  }

  void configure(std::vector<int> ranks_on_node, bool exact_only = false)
  {
    bounds_.configure(nodes_, std::vector<NodeDelays>(nodes_.size(), {kTx, kRx, kResponse}), ranks_on_node,
                      exact_only);
  }

  static std::unique_ptr<Message> message(Message::Kind kind, unsigned from, unsigned to)
  {
    auto m = std::make_unique<Message>();
    m->kind = kind;
    m->src_nid = from;
    m->dst_nid = to;
    return m;
  }

  static inline std::unique_ptr<simgrid::s4u::Engine> engine_;
  static inline std::vector<s4bxi::platform::Node> nodes_;
  LandingBounds bounds_;
};

TEST_F(LandingBoundsTest, NothingOnItsWayLeavesOnlyANewCallsMessage)
{
  configure({1, 1, 1, 1});
  const double least_into_0 = std::min({route(1, 0), route(2, 0), route(3, 0)});
  ASSERT_GT(least_into_0, 0);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 1e-3), 1e-3 + kTx + least_into_0 + kRx);
  // Another rank on the node may send to it without a wire.
  configure({2, 1, 1, 1});
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 1e-3), 1e-3 + kTx + kRx);
}

TEST_F(LandingBoundsTest, ExactOnlyIsNow)
{
  configure({1, 1, 1, 1}, true);
  EXPECT_EQ(bounds_.earliest_write(0, 1e-3), 1e-3);
}

TEST_F(LandingBoundsTest, AMessageBoundsItsDestinationFromTheWireAndItsSourceWhileSending)
{
  configure({1, 1, 1, 1});
  auto put = message(Message::Kind::Put, 1, 0); // same leaf: the least wire into node 0
  const double start = 1e-3;
  bounds_.begin_tx(*put, start);
  // At its source, the TX engine may write its SEND event at once.
  EXPECT_EQ(bounds_.earliest_write(1, start), start);
  // At its destination: queued now, it is handled a wire and an RX delay
  // later at the earliest (before what a new call could send: no TX delay).
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, start), start + route(1, 0) + kRx);
  const double sent = start + kTx;
  bounds_.on_wire(*put, sent);
  bounds_.end_tx(*put);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, sent), sent + route(1, 0) + kRx);
  // Its source can be written when the response comes back (the target
  // handles the request, answers, the answer crosses a wire), or when a new
  // call of another node's rank sends it a message, whichever is earlier.
  const double least_into_1 = std::min({route(0, 1), route(2, 1), route(3, 1)});
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(1, sent),
                   std::min(sent + route(1, 0) + kRx + least_into_1, sent + kTx + least_into_1 + kRx));
  // Later, only the response is left that early.
  const double later = sent + route(1, 0);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(1, later), sent + route(1, 0) + kRx + least_into_1);
  // Handled: only what a new call would send is left.
  bounds_.ended(*put);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, sent), sent + kTx + route(1, 0) + kRx);
  // A message across the tree (more links) bounds its destination later than
  // a new call from the same leaf would.
  auto far = message(Message::Kind::Put, 3, 0);
  bounds_.begin_tx(*far, sent);
  bounds_.on_wire(*far, sent);
  bounds_.end_tx(*far);
  ASSERT_GT(route(3, 0), route(1, 0) + kTx);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, sent), sent + kTx + route(1, 0) + kRx);
  bounds_.ended(*far);
}

// A node that hosts no rank makes no call, but its NIC answers what reaches
// it (a Put to a NID with no process: PTL_NI_UNDELIVERABLE, target.cpp), and
// that answer may come over a shorter route than any from a node with ranks.
TEST_F(LandingBoundsTest, AnAnswerFromANodeWithoutRanksCrossesItsOwnRoute)
{
  configure({1, 0, 1, 1}); // node 0's leaf mate hosts no rank
  const double from_hosts = std::min(route(2, 0), route(3, 0));
  ASSERT_LT(route(1, 0), from_hosts);
  auto put = message(Message::Kind::Put, 0, 1);
  const double sent = 1e-3;
  bounds_.begin_tx(*put, sent);
  bounds_.on_wire(*put, sent);
  bounds_.end_tx(*put);
  // Handled at node 1 a wire and an RX delay later, answered over route(1, 0);
  // a new call can only come from a node with ranks.
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, sent),
                   std::min(sent + route(0, 1) + kRx + route(1, 0), sent + kTx + from_hosts + kRx));
  bounds_.ended(*put);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, sent), sent + kTx + from_hosts + kRx);
}

TEST_F(LandingBoundsTest, ABxiAckIsHandledAsItArrives)
{
  configure({1, 1, 1, 1});
  auto ack = message(Message::Kind::BxiAck, 1, 0); // same leaf
  bounds_.on_wire(*ack, 2e-3);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 2e-3), 2e-3 + route(1, 0));
  bounds_.ended(*ack);
  auto response = message(Message::Kind::Ack, 1, 0);
  bounds_.on_wire(*response, 2e-3); // (never queued: counts as on its way anyway)
  bounds_.begin_tx(*response, 2e-3);
  bounds_.end_tx(*response);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 2e-3), 2e-3 + route(1, 0) + kResponse);
}

// A BXI ACK of a response only makes its destination forget the response:
// it bounds no write there, nor anything its handling sends (none), only the
// time the engine stays busy. One of a request may write its SEND (a payload
// kept until acknowledged) and bounds as before.
TEST_F(LandingBoundsTest, ABxiAckOfAResponseBoundsNoWrite)
{
  configure({1, 1, 1, 1});
  const double now = 2e-3;
  const double alone = bounds_.earliest_write(0, now);
  auto of_response = message(Message::Kind::BxiAck, 1, 0);
  of_response->acknowledges_response = true;
  bounds_.on_wire(*of_response, now);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, now), alone);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(2, now), now + kTx + std::min({route(0, 2), route(1, 2), route(3, 2)}) + kRx);
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), now + route(1, 0));
  auto of_request = message(Message::Kind::BxiAck, 1, 0);
  bounds_.on_wire(*of_request, now);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, now), now + route(1, 0));
  bounds_.ended(*of_request);
  bounds_.ended(*of_response);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, now), alone);
}

// A response in a TX queue writes nothing at its source as it leaves (a
// request writes its SEND): its node's next write is bounded as without it.
// Neither reads the host when its payload is captured; a response whose
// payload the engine reads by DMA (a Get's) does.
TEST_F(LandingBoundsTest, AResponseLeavingWritesNothingAtItsSource)
{
  configure({1, 1, 1, 1});
  const double now = 3e-3;
  const double alone = bounds_.earliest_write(1, now);
  auto ack = message(Message::Kind::Ack, 1, 0);
  bounds_.begin_tx(*ack, now);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(1, now), alone);
  EXPECT_TRUE(bounds_.sends_no_request(1));
  EXPECT_TRUE(bounds_.reads_nothing(1));
  auto reply = message(Message::Kind::GetResponse, 1, 2);
  reply->needs_dma_read = true;
  bounds_.begin_tx(*reply, now);
  EXPECT_FALSE(bounds_.reads_nothing(1));
  auto put = message(Message::Kind::Put, 1, 0);
  bounds_.begin_tx(*put, now);
  EXPECT_EQ(bounds_.earliest_write(1, now), now);
  EXPECT_FALSE(bounds_.sends_no_request(1));
  for (Message* done : {ack.get(), reply.get(), put.get()}) {
    bounds_.end_tx(*done);
    bounds_.ended(*done);
  }
  EXPECT_TRUE(bounds_.reads_nothing(1) && bounds_.sends_no_request(1));
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(1, now), alone);
}

TEST_F(LandingBoundsTest, TwiceOnItsWayKeepsTheEarlierUntilBothAreDone)
{
  configure({1, 1, 1, 1});
  auto put = message(Message::Kind::Put, 1, 0);
  bounds_.begin_tx(*put, 1e-3);
  bounds_.on_wire(*put, 1e-3);
  bounds_.end_tx(*put);
  bounds_.begin_tx(*put, 5e-3); // E2E sends it again while the first copy is still on its way
  bounds_.on_wire(*put, 5e-3);
  bounds_.end_tx(*put);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 1e-3), 1e-3 + route(1, 0) + kRx);
  bounds_.ended(*put);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 1e-3), 1e-3 + route(1, 0) + kRx);
  bounds_.ended(*put);
  EXPECT_GT(bounds_.earliest_write(0, 1e-3), 1e-3 + route(1, 0) + kRx);
  // A copy of a message (a response sent again) is not on its way.
  Message copy(*put);
  EXPECT_EQ(copy.transit.count, 0);
}

TEST_F(LandingBoundsTest, AnE2eDeadlineBoundsEveryNodeUntilCleared)
{
  configure({1, 1, 1, 1});
  bounds_.e2e_timer_set(2, 1e-3 + 100e-9);
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(0, 1e-3), 1e-3 + 100e-9);
  bounds_.e2e_timer_set(2, 1e-3 + 50e-9); // the head changed
  EXPECT_DOUBLE_EQ(bounds_.earliest_write(1, 1e-3), 1e-3 + 50e-9);
  bounds_.e2e_timer_cleared(2);
  EXPECT_GT(bounds_.earliest_write(0, 1e-3), 1e-3 + 100e-9);
  // Never before now.
  bounds_.e2e_timer_set(1, 0.5e-3);
  EXPECT_EQ(bounds_.earliest_write(0, 1e-3), 1e-3);
  bounds_.e2e_timer_cleared(1);
}

} // namespace

// busy_until: the latest bound of the messages held by a TX engine or on the
// wire, which keep an activity of the engine pending until then (not a copy
// sent again, nor a payload read from a rank, which may be dropped unsent);
// not known when a message may end its way early (faults).
TEST_F(LandingBoundsTest, BusyUntilTheLastMessageOnTheWireIsHandled)
{
  configure({1, 1, 1, 1});
  EXPECT_TRUE(std::isinf(bounds_.busy_until()) && bounds_.busy_until() < 0);
  auto near = message(Message::Kind::Put, 1, 0);
  auto far = message(Message::Kind::Put, 3, 0);
  const double start = 1e-3;
  bounds_.begin_tx(*near, start);
  bounds_.begin_tx(*far, start);
  ASSERT_GT(route(3, 0), route(1, 0) + kTx);
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), start + route(3, 0) + kRx) << "queued";
  const double sent = start + kTx;
  bounds_.on_wire(*near, sent);
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), start + route(3, 0) + kRx) << "the far one still queued";
  bounds_.on_wire(*far, sent);
  ASSERT_GT(route(3, 0), route(1, 0));
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), sent + route(3, 0) + kRx);
  bounds_.ended(*far);
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), sent + route(1, 0) + kRx);
  bounds_.ended(*near);
  EXPECT_LT(bounds_.busy_until(), start);
  // A BXI ACK is on its way from the wire on, without an RX delay.
  auto ack = message(Message::Kind::BxiAck, 0, 2);
  bounds_.on_wire(*ack, sent);
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), sent + route(0, 2));
  bounds_.ended(*ack);
  // A copy sent again, or a payload the engine reads from a rank, held by
  // its TX engine says nothing; on the wire, it does.
  auto again = message(Message::Kind::Put, 1, 0);
  again->retries = 1;
  auto read = message(Message::Kind::Put, 1, 0);
  read->payload_captured = false;
  bounds_.begin_tx(*again, start);
  bounds_.begin_tx(*read, start);
  EXPECT_LT(bounds_.busy_until(), start);
  bounds_.on_wire(*read, sent);
  EXPECT_DOUBLE_EQ(bounds_.busy_until(), sent + route(1, 0) + kRx);
  bounds_.ended(*again);
  bounds_.ended(*read);
  // With faults, a message on the wire may be lost before its bound.
  bounds_.configure(nodes_, std::vector<NodeDelays>(nodes_.size(), {kTx, kRx, kResponse}), {1, 1, 1, 1}, false,
                    true);
  auto lost = message(Message::Kind::Put, 1, 0);
  bounds_.begin_tx(*lost, start);
  bounds_.on_wire(*lost, sent);
  EXPECT_LT(bounds_.busy_until(), start);
  bounds_.ended(*lost);
}
