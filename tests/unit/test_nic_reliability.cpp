// The pure parts of the NIC's reliability and options: duplicate detection by
// sequence number, the fault options' syntax, option values from host
// properties, and the loss draws (in a real SimGrid engine for the parts that
// name hosts and links).
#include "model_options.hpp"
#include "nic/e2e.hpp"
#include "nic/faults.hpp"
#include "nic/nic_parameters.hpp"
#include "platform/cluster.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <stdexcept>

using namespace s4bxi;
using namespace s4bxi::nic;

TEST(SequenceWindow, AcceptsEachNumberOnce)
{
  SequenceWindow w;
  EXPECT_TRUE(w.accept(0, 0));
  EXPECT_TRUE(w.accept(1, 0));
  EXPECT_FALSE(w.accept(0, 0));
  EXPECT_FALSE(w.accept(1, 0));
  EXPECT_EQ(w.floor(), 2u);
  EXPECT_EQ(w.out_of_order(), 0u);
}

TEST(SequenceWindow, RemembersNumbersAboveAGapUntilItCloses)
{
  SequenceWindow w;
  EXPECT_TRUE(w.accept(0, 0));
  EXPECT_TRUE(w.accept(2, 1)); // 1 lost, 2 arrives
  EXPECT_TRUE(w.accept(3, 1));
  EXPECT_FALSE(w.accept(3, 1));
  EXPECT_EQ(w.out_of_order(), 2u);
  EXPECT_TRUE(w.accept(1, 1)); // 1 sent again
  EXPECT_EQ(w.floor(), 4u);
  EXPECT_EQ(w.out_of_order(), 0u);
  EXPECT_FALSE(w.accept(2, 1));
}

TEST(SequenceWindow, TheSendersFloorClosesGapsThatWillNeverFill)
{
  SequenceWindow w;
  EXPECT_TRUE(w.accept(0, 0));
  EXPECT_TRUE(w.accept(2, 1));
  EXPECT_TRUE(w.accept(5, 1));
  // The sender gave up on 1 (and 3, 4 were acknowledged... never arrived
  // here, so they were given up too): everything below 4 is settled.
  EXPECT_TRUE(w.accept(6, 4));
  EXPECT_EQ(w.floor(), 4u);
  EXPECT_EQ(w.out_of_order(), 2u); // 5 and 6
  EXPECT_FALSE(w.accept(1, 4));    // a late copy of the abandoned message is not applied
  EXPECT_FALSE(w.accept(3, 4));
  EXPECT_TRUE(w.accept(4, 4));
  EXPECT_EQ(w.floor(), 7u);
  EXPECT_EQ(w.out_of_order(), 0u);
}

TEST(FaultSyntax, SplitsListsAndReadsLinkOutages)
{
  EXPECT_EQ(split_list(" a, b ,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
  auto outages = parse_link_down("node1_wire@1e-5+2e-5, link_from_0_3_0@1e+1+0.5");
  ASSERT_EQ(outages.size(), 2u);
  EXPECT_EQ(outages[0].link, "node1_wire");
  EXPECT_DOUBLE_EQ(outages[0].start, 1e-5);
  EXPECT_DOUBLE_EQ(outages[0].duration, 2e-5);
  EXPECT_EQ(outages[1].link, "link_from_0_3_0");
  EXPECT_DOUBLE_EQ(outages[1].start, 10.0); // an exponent's '+' is not the separator
  EXPECT_DOUBLE_EQ(outages[1].duration, 0.5);
  for (const char* bad : {"node1_wire", "node1_wire@1e-5", "@1+2", "l@x+1", "l@1+-2"})
    EXPECT_THROW(parse_link_down(bad), std::invalid_argument) << bad;
}

TEST(FaultSyntax, ReadsDropTimesInOrderWithTheirKinds)
{
  auto drops = parse_drop_at("2e-3/ack, 1e-3, 3e-3/bxi-ack");
  ASSERT_EQ(drops.size(), 3u);
  EXPECT_DOUBLE_EQ(drops[0].time, 1e-3);
  EXPECT_FALSE(drops[0].kind);
  EXPECT_EQ(drops[1].kind, Message::Kind::Ack);
  EXPECT_EQ(drops[2].kind, Message::Kind::BxiAck);
  EXPECT_EQ(kind_by_name("response"), Message::Kind::GetResponse);
  EXPECT_FALSE(kind_by_name("Put"));
  EXPECT_THROW(parse_drop_at("1e-3/nothing"), std::invalid_argument);
  EXPECT_THROW(parse_drop_at("soon"), std::invalid_argument);
}

TEST(OptionText, ParsesAsSimGridDoes)
{
  EXPECT_EQ(options::parse_bool("yes"), true);
  EXPECT_EQ(options::parse_bool("off"), false);
  EXPECT_FALSE(options::parse_bool("maybe"));
  EXPECT_EQ(options::parse_int("-1"), -1);
  EXPECT_FALSE(options::parse_int("12x"));
  EXPECT_FALSE(options::parse_int("99999999999"));
  EXPECT_EQ(options::parse_double("3e-7"), 3e-7);
  EXPECT_FALSE(options::parse_double(""));
  EXPECT_FALSE(options::parse_double("inf"));
}

TEST(OptionText, NicOptionsArePerNodeAndTheWireFormatIsNot)
{
  options::declare();
  for (const char* name : {"s4bxi/nic-rx-delay", "s4bxi/pci-latency", "s4bxi/e2e", "s4bxi/quick-acks",
                           "s4bxi/max-memcpy", "s4bxi/tx-actors", "s4bxi/command-queue-depth"}) {
    const auto* option = options::find(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_TRUE(option->per_node) << name;
  }
  for (const char* name : {"s4bxi/header-bytes", "s4bxi/bxi-latency", "s4bxi/fault-loss-rate"}) {
    const auto* option = options::find(name);
    ASSERT_NE(option, nullptr) << name;
    EXPECT_FALSE(option->per_node) << name;
  }
  // S4BXI's variable says the opposite of ours.
  const auto* e2e = options::find("s4bxi/e2e");
  ASSERT_TRUE(e2e && e2e->from_environment);
  EXPECT_EQ(e2e->from_environment("1"), "no");
  EXPECT_EQ(e2e->from_environment("false"), "yes");
}

// One engine for the tests below (SimGrid allows one per process).
class NicEngine : public ::testing::Test {
protected:
  static void SetUpTestSuite()
  {
    options::declare();
    static int argc = 1;
    static char name[] = "test";
    static char* argv[] = {name, nullptr};
    engine_ = new simgrid::s4u::Engine(&argc, argv);
    nodes_ = platform::load_cluster("fattree:1;4;1;1");
  }
  static simgrid::s4u::Engine* engine_;
  static std::vector<platform::Node> nodes_;
};
simgrid::s4u::Engine* NicEngine::engine_ = nullptr;
std::vector<platform::Node> NicEngine::nodes_;

TEST_F(NicEngine, HostPropertiesOverrideTheGlobalValues)
{
  auto* nic = nodes_[1].nic;
  nic->set_property("s4bxi/nic-rx-delay", "3e-7");
  nic->set_property("s4bxi/e2e", "off");
  nic->set_property("s4bxi/max-memcpy", "100");
  const NicParameters p = resolve_parameters(*nic, nodes_[1].cpu);
  EXPECT_DOUBLE_EQ(p.rx_delay_s, 3e-7);
  EXPECT_FALSE(p.e2e);
  EXPECT_EQ(p.copied(1000), 100u);
  EXPECT_DOUBLE_EQ(p.tx_delay_s, options::nic_tx_delay_s()); // not overridden
  const NicParameters others = resolve_parameters(*nodes_[2].nic, nodes_[2].cpu);
  EXPECT_DOUBLE_EQ(others.rx_delay_s, options::nic_rx_delay_s());
  EXPECT_TRUE(others.e2e);
  EXPECT_EQ(others.copied(1000), 1000u);
}

TEST_F(NicEngine, BadPropertiesAreExplained)
{
  auto expect_error = [](const simgrid::s4u::Host& nic, const simgrid::s4u::Host* cpu, const std::string& words) {
    try {
      resolve_parameters(nic, cpu);
      ADD_FAILURE() << "no error for " << words;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  nodes_[3].nic->set_property("s4bxi/tx-actors", "0");
  expect_error(*nodes_[3].nic, nodes_[3].cpu, "s4bxi/tx-actors is 0 on host node3_NIC, it must be an integer from 1 to 64");
  nodes_[3].nic->set_property("s4bxi/tx-actors", "2");
  nodes_[3].nic->set_property("s4bxi/bxi-latency", "1e-6");
  expect_error(*nodes_[3].nic, nodes_[3].cpu, "cannot change per node");
  nodes_[3].nic->set_property("s4bxi/bxi-latency", "");
  nodes_[0].cpu->set_property("s4bxi/nic-tx-delay", "1e-8");
  expect_error(*nodes_[0].nic, nodes_[0].cpu, "properties of the node's NIC host node0_NIC");
}

TEST_F(NicEngine, LossesFollowTheRateAndTheSeed)
{
  simgrid::s4u::Engine::set_config("s4bxi/fault-loss-rate:0.25");
  simgrid::s4u::Engine::set_config("s4bxi/fault-nodes:node1");
  simgrid::s4u::Engine::set_config("s4bxi/fault-seed:42");
  auto first = Faults::from_options(nodes_);
  auto second = Faults::from_options(nodes_);
  Message towards_1, elsewhere, from_1;
  towards_1.src_nid = 0;
  towards_1.dst_nid = 1;
  elsewhere.src_nid = 0;
  elsewhere.dst_nid = 2;
  from_1.src_nid = 1;
  from_1.dst_nid = 3;
  int lost = 0;
  for (int i = 0; i < 4000; ++i) {
    const bool a = first->lose(towards_1);
    EXPECT_EQ(a, second->lose(towards_1)) << "draw " << i; // same seed, same losses
    lost += a ? 1 : 0;
    EXPECT_FALSE(first->lose(elsewhere));
  }
  EXPECT_NEAR(lost / 4000.0, 0.25, 0.03);
  int lost_from_1 = 0;
  for (int i = 0; i < 4000; ++i)
    lost_from_1 += first->lose(from_1) ? 1 : 0;
  EXPECT_NEAR(lost_from_1 / 4000.0, 0.25, 0.03);

  simgrid::s4u::Engine::set_config("s4bxi/fault-nodes:node9");
  EXPECT_THROW(Faults::from_options(nodes_), std::invalid_argument);
  simgrid::s4u::Engine::set_config("s4bxi/fault-nodes:");
  simgrid::s4u::Engine::set_config("s4bxi/fault-links:node0_pci");
  EXPECT_THROW(Faults::from_options(nodes_), std::invalid_argument); // a PCIe link
  simgrid::s4u::Engine::set_config("s4bxi/fault-links:");
  simgrid::s4u::Engine::set_config("s4bxi/fault-loss-rate:0");
}
