// Platform generation: the fattree: notation, and the nodes it produces in a
// real SimGrid engine (CPU host, NIC host, PCIe route between them).
#include "model_options.hpp"
#include "platform/cluster.hpp"
#include "platform/fattree_spec.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

using namespace s4bxi::platform;

TEST(FatTreeSpec, ParsesSimGridNotation)
{
  std::string error;
  auto spec = parse_fattree("fattree:2;4,4;1,2;1,2", error);
  ASSERT_TRUE(spec) << error;
  EXPECT_EQ(spec->levels, 2u);
  EXPECT_EQ(spec->down, (std::vector<unsigned>{4, 4}));
  EXPECT_EQ(spec->up, (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(spec->parallel, (std::vector<unsigned>{1, 2}));
  EXPECT_EQ(spec->node_count(), 16u);
}

TEST(FatTreeSpec, ExplainsWhatIsWrong)
{
  std::string error;
  EXPECT_FALSE(parse_fattree("fattree:2;4;1,2;1,2", error));
  EXPECT_NE(error.find("down list has 1 values for 2 levels"), std::string::npos) << error;
  EXPECT_FALSE(parse_fattree("fattree:garbage", error));
  EXPECT_NE(error.find("4 fields"), std::string::npos) << error;
  EXPECT_FALSE(parse_fattree("fattree:1;x;1;1", error));
  EXPECT_NE(error.find("'x'"), std::string::npos) << error;
  EXPECT_FALSE(parse_fattree("torus:1;2;1;1", error));
}

TEST(Cluster, GeneratedFatTreeHasNodesWithPcieBetweenCpuAndNic)
{
  s4bxi::options::declare();
  int argc = 1;
  char name[] = "test";
  char* argv[] = {name, nullptr};
  simgrid::s4u::Engine engine(&argc, argv);
  auto nodes = load_cluster("fattree:2;4,4;1,2;1,2");
  ASSERT_EQ(nodes.size(), 16u);
  for (unsigned i = 0; i < nodes.size(); ++i) {
    EXPECT_EQ(nodes[i].nid, i);
    EXPECT_EQ(nodes[i].cpu->get_name(), "node" + std::to_string(i));
    EXPECT_EQ(nodes[i].nic->get_name(), "node" + std::to_string(i) + "_NIC");
    EXPECT_EQ(nodes[i].cores, s4bxi::options::cpu_cores_per_node());
  }
  // CPU -> NIC: the two PCIe links in series (cap + shared), with the PCIe latency.
  std::vector<simgrid::s4u::Link*> route;
  double latency = 0;
  nodes[3].cpu->route_to(nodes[3].nic, route, &latency);
  ASSERT_EQ(route.size(), 2u);
  EXPECT_DOUBLE_EQ(latency, s4bxi::options::pci_latency_s());
  // NIC -> NIC across the tree: wire hops only, never a PCIe link.
  route.clear();
  latency = 0;
  nodes[0].nic->route_to(nodes[15].nic, route, &latency);
  ASSERT_FALSE(route.empty());
  for (auto* link : route)
    EXPECT_EQ(link->get_name().find("_pci"), std::string::npos) << link->get_name();
  EXPECT_DOUBLE_EQ(latency, static_cast<double>(route.size()) * s4bxi::options::bxi_latency_s());
  // So the NIC-to-CPU side of each node's PCIe carries the NIC's writes
  // alone: checked over every route between two NICs (16 nodes).
  EXPECT_TRUE(host_writes_share_no_link(nodes, "fattree:2;4,4;1,2;1,2"));
}

namespace {
std::vector<Node> nodes_with_cores(std::vector<int> cores)
{
  std::vector<Node> nodes;
  for (size_t i = 0; i < cores.size(); ++i) {
    Node node;
    node.nid = static_cast<unsigned>(i);
    node.cores = cores[i];
    nodes.push_back(node);
  }
  return nodes;
}
} // namespace

#include "platform/placement.hpp"

TEST(Placement, RoundRobinSpreadsOverNodesFirst)
{
  std::string error;
  auto node_of = place_ranks(nodes_with_cores({4, 4, 4}), {7, 0, false}, error);
  ASSERT_TRUE(node_of) << error;
  EXPECT_EQ(*node_of, (std::vector<unsigned>{0, 1, 2, 0, 1, 2, 0}));
}

TEST(Placement, BlockFillsANodeUpToPpnBeforeTheNext)
{
  std::string error;
  auto node_of = place_ranks(nodes_with_cores({4, 4, 4}), {7, 3, true}, error);
  ASSERT_TRUE(node_of) << error;
  EXPECT_EQ(*node_of, (std::vector<unsigned>{0, 0, 0, 1, 1, 1, 2}));
  node_of = place_ranks(nodes_with_cores({2, 4}), {5, 0, true}, error);
  ASSERT_TRUE(node_of) << error;
  EXPECT_EQ(*node_of, (std::vector<unsigned>{0, 0, 1, 1, 1}));
}

TEST(Placement, RoundRobinSkipsFullNodes)
{
  std::string error;
  auto node_of = place_ranks(nodes_with_cores({1, 3}), {4, 0, false}, error);
  ASSERT_TRUE(node_of) << error;
  EXPECT_EQ(*node_of, (std::vector<unsigned>{0, 1, 1, 1}));
}

TEST(Placement, RefusesWhatDoesNotFit)
{
  std::string error;
  EXPECT_FALSE(place_ranks(nodes_with_cores({4, 4}), {9, 0, false}, error));
  EXPECT_NE(error.find("cannot place 9 ranks"), std::string::npos) << error;
  EXPECT_FALSE(place_ranks(nodes_with_cores({4, 4}), {5, 2, false}, error));
  EXPECT_NE(error.find("--ppn"), std::string::npos) << error;
}
