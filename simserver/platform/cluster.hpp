// The simulated machine as the rest of the server sees it: a list of nodes,
// each with a CPU host (one core per rank placed there) and a NIC host, joined
// by PCIe; NIC hosts are joined by the BXI network.
#pragma once

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <set>
#include <string>
#include <vector>

namespace s4bxi::platform {

struct Node {
  unsigned nid = 0;
  simgrid::s4u::Host* cpu = nullptr;
  simgrid::s4u::Host* nic = nullptr;
  int cores = 1;
};

inline constexpr const char* kNicSuffix = "_NIC";
inline constexpr const char* kDefaultPlatform = "fattree:1;2;1;1";

// Builds the platform described by `spec` (a fattree: specification or the path
// of a SimGrid XML file) in the current engine. Throws std::runtime_error with
// one sentence naming the problem.
std::vector<Node> load_cluster(const std::string& spec);

// Finds the nodes of an already loaded platform: every host X that has a host
// named X_NIC is a node. Nodes come in natural name order (node2 before node10).
std::vector<Node> discover_nodes();

// The links between each node's CPU and its NIC, both ways (PCIe): the
// links on which other transfers than the BXI network's run.
std::set<const simgrid::s4u::Link*> pcie_links(const std::vector<Node>& nodes);

// Whether no transfer but the NICs' writes to their hosts runs on the links
// of a node's NIC-to-CPU route that transfers share (all but FATPIPE ones):
// no CPU-to-NIC transfer of any node, and no message between two NICs. So on
// a fattree: platform, by construction (each node a zone of its own whose
// gateway is its NIC, its PCIe link split-duplex; checked over every route
// between two NICs up to kRoutesChecked nodes, as on an XML platform); an
// XML platform of more nodes is not assumed to be so.
inline constexpr std::size_t kRoutesChecked = 64;
bool host_writes_share_no_link(const std::vector<Node>& nodes, const std::string& spec);

} // namespace s4bxi::platform
