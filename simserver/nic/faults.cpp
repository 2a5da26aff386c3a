#include "faults.hpp"

#include "../actor_sleep.hpp"
#include "../model_options.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_faults, "Fault injection: lost messages, links down");

namespace s4u = simgrid::s4u;

namespace s4bxi::nic {

namespace {

std::string trim(const std::string& text)
{
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string::npos)
    return "";
  const auto last = text.find_last_not_of(" \t");
  return text.substr(first, last - first + 1);
}

double time_value(const std::string& option, const std::string& item, const std::string& text)
{
  auto value = options::parse_double(text);
  if (not value || *value < 0)
    throw std::invalid_argument(option + ": '" + item + "' has '" + text +
                                "' where a simulated time in seconds (a number, at least 0) is expected");
  return *value;
}

// The links an option names: a split-duplex link's name stands for both
// directions.
std::vector<s4u::Link*> links_named(const std::string& option, const std::string& name)
{
  std::vector<s4u::Link*> links;
  if (auto* link = s4u::Link::by_name_or_null(name))
    links.push_back(link);
  for (const char* direction : {"_UP", "_DOWN"})
    if (auto* link = s4u::Link::by_name_or_null(name + direction))
      links.push_back(link);
  if (links.empty()) {
    std::string examples;
    int shown = 0;
    for (auto* link : s4u::Engine::get_instance()->get_all_links()) {
      const std::string& candidate = link->get_name();
      if (candidate == "__loopback__" || candidate.find("_pci") != std::string::npos)
        continue;
      examples += (examples.empty() ? "" : ", ") + candidate;
      if (++shown == 3)
        break;
    }
    throw std::invalid_argument(option + ": the platform has no link named '" + name + "'" +
                                (examples.empty() ? "" : " (its network links are named like " + examples + ")"));
  }
  return links;
}

} // namespace

std::vector<std::string> split_list(const std::string& text)
{
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos)
      end = text.size();
    std::string item = trim(text.substr(start, end - start));
    if (not item.empty())
      items.push_back(item);
    start = end + 1;
  }
  return items;
}

std::optional<Message::Kind> kind_by_name(const std::string& name)
{
  if (name == "put")
    return Message::Kind::Put;
  if (name == "get")
    return Message::Kind::Get;
  if (name == "ack")
    return Message::Kind::Ack;
  if (name == "response")
    return Message::Kind::GetResponse;
  if (name == "bxi-ack")
    return Message::Kind::BxiAck;
  return std::nullopt;
}

std::vector<LinkOutage> parse_link_down(const std::string& spec)
{
  std::vector<LinkOutage> outages;
  for (const auto& item : split_list(spec)) {
    const auto at = item.rfind('@');
    // The '+' between start and duration, not the one of an exponent (1e+5).
    auto plus = std::string::npos;
    for (auto i = at == std::string::npos ? item.size() : at + 2; i < item.size(); ++i)
      if (item[i] == '+' && item[i - 1] != 'e' && item[i - 1] != 'E') {
        plus = i;
        break;
      }
    if (at == std::string::npos || at == 0 || plus == std::string::npos)
      throw std::invalid_argument("s4bxi/link-down: '" + item + "' is not LINK@START+DURATION (e.g. link_from_1_3_1@1e-5+2e-5)");
    LinkOutage outage;
    outage.link = item.substr(0, at);
    outage.start = time_value("s4bxi/link-down", item, item.substr(at + 1, plus - at - 1));
    outage.duration = time_value("s4bxi/link-down", item, item.substr(plus + 1));
    outages.push_back(outage);
  }
  return outages;
}

std::vector<ScheduledDrop> parse_drop_at(const std::string& spec)
{
  std::vector<ScheduledDrop> drops;
  for (const auto& item : split_list(spec)) {
    const auto slash = item.find('/');
    ScheduledDrop drop;
    drop.time = time_value("s4bxi/fault-drop-at", item, item.substr(0, slash));
    if (slash != std::string::npos) {
      drop.kind = kind_by_name(item.substr(slash + 1));
      if (not drop.kind)
        throw std::invalid_argument("s4bxi/fault-drop-at: '" + item +
                                    "' names no message kind; use put, get, ack, response or bxi-ack");
    }
    drops.push_back(drop);
  }
  std::stable_sort(drops.begin(), drops.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  return drops;
}

std::shared_ptr<Faults> Faults::from_options(const std::vector<platform::Node>& nodes)
{
  std::shared_ptr<Faults> faults(new Faults(nodes));
  Faults& f = *faults;
  f.rate_ = options::fault_loss_rate();
  if (not(f.rate_ >= 0 && f.rate_ <= 1))
    throw std::invalid_argument("s4bxi/fault-loss-rate must be a probability, between 0 and 1");
  f.faulty_node_.assign(nodes.size(), false);
  for (const auto& name : split_list(options::fault_nodes())) {
    auto node = std::find_if(nodes.begin(), nodes.end(), [&name](const platform::Node& n) {
      return n.cpu->get_name() == name || n.nic->get_name() == name;
    });
    if (node == nodes.end())
      throw std::invalid_argument("s4bxi/fault-nodes: the platform has no node named '" + name + "' (nodes are " +
                                  nodes.front().cpu->get_name() + " to " + nodes.back().cpu->get_name() + ")");
    f.faulty_node_[node->nid] = true;
  }
  // (Not the PCIe: a command written over a link that is off would make the
  // rank's call fail, which is not a BXI fault.)
  const auto pcie = platform::pcie_links(nodes);
  auto network_links = [&pcie](const std::string& option, const std::string& name) {
    auto links = links_named(option, name);
    for (auto* link : links)
      if (pcie.count(link) != 0)
        throw std::invalid_argument(option + ": '" + name +
                                    "' is a PCIe link between a CPU and its NIC; faults apply to network links");
    return links;
  };
  for (const auto& name : split_list(options::fault_links()))
    for (auto* link : network_links("s4bxi/fault-links", name))
      f.faulty_links_.insert(link);
  const bool listed =
      std::find(f.faulty_node_.begin(), f.faulty_node_.end(), true) != f.faulty_node_.end() || not f.faulty_links_.empty();
  f.everywhere_ = not listed;
  f.drops_ = parse_drop_at(options::fault_drop_at());
  f.active_ = f.rate_ > 0 || not f.drops_.empty();
  if (f.active_) {
    const auto seed = static_cast<uint64_t>(options::fault_seed());
    for (const auto& node : nodes) {
      std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), node.nid};
      f.generators_.emplace_back(sequence);
    }
    if (not f.faulty_links_.empty())
      f.route_exposure_.assign(nodes.size() * nodes.size(), -1);
  }
  for (const auto& outage : parse_link_down(options::link_down()))
    f.schedule(outage, network_links("s4bxi/link-down", outage.link));
  if (not f.link_events_.empty()) {
    // SimGrid refuses a state profile on a sealed link
    // (Link::set_state_profile), and the platform's links are sealed once
    // loaded (by the XML loader, by the fat-tree builder): a daemon actor
    // turns the links off and on at the dates a profile would have. Being a
    // daemon, it does not keep the simulation going after the last rank (a
    // kernel timer would).
    std::stable_sort(f.link_events_.begin(), f.link_events_.end(),
                     [](const LinkEvent& a, const LinkEvent& b) { return a.time < b.time; });
    s4u::Actor::create("link_faults", nodes.front().nic, [faults] { faults->run_link_events(); })->daemonize();
  }
  return faults;
}

void Faults::schedule(const LinkOutage& outage, const std::vector<s4u::Link*>& links)
{
  link_events_.push_back({outage.start, links, outage.link, true});
  link_events_.push_back({outage.start + outage.duration, links, outage.link, false});
}

void Faults::run_link_events()
{
  // Overlapping outages of one link keep it off until the last one ends.
  for (const auto& event : link_events_) {
    s4bxi::sleep_until(event.time);
    for (auto* link : event.links) {
      if (event.down && outages_in_progress_[link]++ == 0)
        link->turn_off();
      if (not event.down && --outages_in_progress_[link] == 0)
        link->turn_on();
    }
    XBT_VERB("link %s %s", event.name.c_str(), event.down ? "goes down" : "is up again");
  }
}

int Faults::exposure(unsigned src, unsigned dst)
{
  if (everywhere_)
    return 1;
  int count = (faulty_node_[src] ? 1 : 0) + (faulty_node_[dst] ? 1 : 0);
  if (not faulty_links_.empty()) {
    int8_t& links = route_exposure_[src * nodes_.size() + dst];
    if (links < 0) {
      std::vector<s4u::Link*> route;
      double latency = 0;
      nodes_[src].nic->route_to(nodes_[dst].nic, route, &latency);
      links = static_cast<int8_t>(std::count_if(route.begin(), route.end(), [this](const s4u::Link* link) {
        return faulty_links_.count(link) != 0;
      }));
    }
    count += links;
  }
  return count;
}

bool Faults::lose(const Message& message)
{
  if (not active_)
    return false;
  const int exposed = exposure(message.src_nid, message.dst_nid);
  if (exposed == 0)
    return false;
  const double now = sim_now();
  for (auto drop = drops_.begin(); drop != drops_.end() && drop->time <= now; ++drop)
    if (not drop->kind || *drop->kind == message.kind) {
      drops_.erase(drop);
      return true;
    }
  if (rate_ <= 0)
    return false;
  const double survive = std::pow(1.0 - rate_, exposed);
  // 53 random bits as a double in [0, 1): the same on every platform.
  const double draw = static_cast<double>(generators_[message.src_nid]() >> 11) * 0x1.0p-53;
  return draw >= survive;
}

} // namespace s4bxi::nic
