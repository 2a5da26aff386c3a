#include "cluster.hpp"

#include "fattree_spec.hpp"
#include "platform_values.hpp"
#include "../model_options.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>

namespace s4u = simgrid::s4u;

namespace s4bxi::platform {
namespace {

// A node as a zone of its own: CPU host, NIC host, and the PCIe path between
// them modelled as two links in series: a per-transfer cap that is not shared
// (FATPIPE), and the shared x16 link, full duplex.
std::pair<simgrid::kernel::routing::NetPoint*, simgrid::kernel::routing::NetPoint*>
build_node_zone(const s4u::NetZone* parent, unsigned long id)
{
  const std::string name = "node" + std::to_string(id);
  // Zones and hosts share one namespace of net points: the zone gets its own name.
  auto* zone = s4u::create_full_zone(name + "_zone");
  zone->set_parent(parent);
  auto* cpu = zone->create_host(name, options::cpu_speed_flops())->set_core_count(options::cpu_cores_per_node());
  cpu->seal();
  auto* nic = zone->create_host(name + kNicSuffix, options::cpu_speed_flops());
  nic->seal();
  auto* cap = zone->create_link(name + "_pci_cap", options::pci_transfer_cap_Bps())
                  ->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE)
                  ->seal();
  auto* pci = zone->create_split_duplex_link(name + "_pci", options::pci_bandwidth_Bps())
                  ->set_latency(options::pci_latency_s())
                  ->seal();
  zone->add_route(cpu->get_netpoint(), nic->get_netpoint(), nullptr, nullptr,
                  {s4u::LinkInRoute(cap), s4u::LinkInRoute(pci, s4u::LinkInRoute::Direction::UP)}, false);
  zone->add_route(nic->get_netpoint(), cpu->get_netpoint(), nullptr, nullptr,
                  {s4u::LinkInRoute(cap), s4u::LinkInRoute(pci, s4u::LinkInRoute::Direction::DOWN)}, false);
  zone->seal();
  return {zone->get_netpoint(), nic->get_netpoint()};
}

void build_fattree(const FatTreeSpec& spec)
{
  s4u::FatTreeParams params(spec.levels, spec.down, spec.up, spec.parallel);
  auto* root = s4u::Engine::get_instance()->get_netzone_root();
  s4u::ClusterCallbacks callbacks(
      [](s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
        return build_node_zone(zone, id);
      });
  auto* tree = s4u::create_fatTree_zone("bxi", root, params, callbacks, options::bxi_bandwidth_Bps(),
                                        options::bxi_latency_s(), s4u::Link::SharingPolicy::SPLITDUPLEX);
  tree->seal();
}

void check_xml_file(const std::string& path)
{
  std::ifstream file(path);
  if (not file)
    throw std::runtime_error("platform file '" + path + "' cannot be read; give an existing SimGrid XML file or a "
                             "fattree: specification to --platform");
  const std::string xml{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  if (xml.find("<platform") == std::string::npos)
    throw std::runtime_error("platform file '" + path + "' is not a SimGrid XML platform (no <platform> element)");
  check_platform_values(path, xml);
}

// What SimGrid accepted from files the first check did not see (<include>):
// a link that never delivers, or delivers before it was sent.
void check_loaded_links(const std::string& path)
{
  for (const auto* link : s4u::Engine::get_instance()->get_all_links()) {
    if (not(link->get_bandwidth() > 0))
      throw std::runtime_error("platform file '" + path + "': link '" + link->get_name() +
                               "' has no bandwidth, and a bandwidth must be greater than 0; fix the platform file");
    if (not(link->get_latency() >= 0))
      throw std::runtime_error("platform file '" + path + "': link '" + link->get_name() +
                               "' has a negative latency, and a latency must be at least 0; fix the platform file");
  }
}

// "node10" sorts after "node2".
bool natural_less(const std::string& a, const std::string& b)
{
  size_t i = 0;
  size_t j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      size_t i_end = i;
      size_t j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end])))
        ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end])))
        ++j_end;
      auto na = std::stoull(a.substr(i, i_end - i));
      auto nb = std::stoull(b.substr(j, j_end - j));
      if (na != nb)
        return na < nb;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j])
        return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

} // namespace

std::vector<Node> discover_nodes()
{
  std::map<std::string, s4u::Host*> hosts;
  for (auto* host : s4u::Engine::get_instance()->get_all_hosts())
    hosts[host->get_name()] = host;
  std::vector<std::string> names;
  const std::string suffix = kNicSuffix;
  for (const auto& [name, host] : hosts)
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      if (hosts.count(name + suffix) != 0)
        names.push_back(name);
  std::sort(names.begin(), names.end(), natural_less);
  std::vector<Node> nodes;
  for (const auto& name : names) {
    Node node;
    node.nid = static_cast<unsigned>(nodes.size());
    node.cpu = hosts[name];
    node.nic = hosts[name + suffix];
    node.cores = node.cpu->get_core_count();
    nodes.push_back(node);
  }
  return nodes;
}

std::vector<Node> load_cluster(const std::string& spec)
{
  if (spec.rfind(kFatTreePrefix, 0) == 0) {
    std::string error;
    auto tree = parse_fattree(spec, error);
    if (not tree)
      throw std::runtime_error("invalid platform: " + error);
    build_fattree(*tree);
  } else {
    check_xml_file(spec);
    try {
      s4u::Engine::get_instance()->load_platform(spec);
    } catch (const std::exception& e) {
      throw std::runtime_error("platform file '" + spec + "' could not be loaded: " + e.what());
    }
    check_loaded_links(spec);
  }
  // SimGrid 3.32 seals a platform read from XML only when the simulation
  // starts, and a zone computes its routes when sealed (Dijkstra numbers its
  // graph's nodes then, Floyd completes its tables): the server asks for
  // routes before (PCIe links, fault injection, E2E), so seal it now.
  s4u::Engine::get_instance()->seal_platform();
  auto nodes = discover_nodes();
  if (nodes.empty())
    throw std::runtime_error("platform '" + spec + "' has no node: each node needs a CPU host X and a NIC host X" +
                             kNicSuffix + " joined by a route (the PCIe link)");
  return nodes;
}

namespace {

// The links of the route from `from` to `to`.
std::vector<s4u::Link*> route_links(s4u::Host* from, s4u::Host* to)
{
  std::vector<s4u::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  return links;
}

} // namespace

std::set<const simgrid::s4u::Link*> pcie_links(const std::vector<Node>& nodes)
{
  std::set<const simgrid::s4u::Link*> links;
  for (const auto& node : nodes)
    for (auto [from, to] : {std::pair{node.cpu, node.nic}, std::pair{node.nic, node.cpu}}) {
      const std::vector<s4u::Link*> route = route_links(from, to);
      links.insert(route.begin(), route.end());
    }
  return links;
}

bool host_writes_share_no_link(const std::vector<Node>& nodes, const std::string& spec)
{
  std::set<const s4u::Link*> written; // the links the writes share
  for (const auto& node : nodes)
    for (const auto* link : route_links(node.nic, node.cpu))
      if (link->get_sharing_policy() != s4u::Link::SharingPolicy::FATPIPE)
        written.insert(link);
  auto crosses_them = [&written](const std::vector<s4u::Link*>& links) {
    return std::any_of(links.begin(), links.end(), [&written](const s4u::Link* link) { return written.count(link) != 0; });
  };
  for (const auto& node : nodes)
    if (crosses_them(route_links(node.cpu, node.nic)))
      return false;
  if (nodes.size() > kRoutesChecked)
    return spec.rfind(kFatTreePrefix, 0) == 0;
  for (const auto& from : nodes)
    for (const auto& to : nodes)
      if (from.nid != to.nid && crosses_them(route_links(from.nic, to.nic)))
        return false;
  return true;
}

} // namespace s4bxi::platform
