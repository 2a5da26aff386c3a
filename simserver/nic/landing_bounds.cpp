#include "landing_bounds.hpp"

#include "message.hpp"
#include "nic.hpp"
#include "../model_options.hpp"
#include "../platform/cluster.hpp"

#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>

namespace s4bxi::nic {

namespace {

// Whether the TX engine that sends `message` may write to its node's host: a
// request's SEND event, a payload it reads by DMA. A response or a BXI ACK
// carries what its handling captured, and its sending writes no event.
bool writes_at_tx(const Message& message)
{
  return message.kind == Message::Kind::Put || message.kind == Message::Kind::Get;
}

// Whether the TX engine that sends `message` reads its payload from the host
// by DMA (nic/lone_writes.cpp): the CPU-to-NIC side of the node's link.
bool reads_at_tx(const Message& message)
{
  return not message.payload_captured || message.needs_dma_read;
}

} // namespace

void LandingBounds::configure(const std::vector<platform::Node>& nodes, const std::vector<NodeDelays>& delays,
                              const std::vector<int>& ranks_on_node, bool exact_only, bool may_end_early)
{
  may_end_early_ = may_end_early;
  nodes_.clear();
  for (const auto& node : nodes)
    nodes_.push_back(&node);
  delays_ = delays;
  ranks_on_node_ = ranks_on_node;
  exact_only_ = exact_only;
  sending_requests_.assign(nodes.size(), 0);
  sending_reads_.assign(nodes.size(), 0);
  on_way_to_.assign(nodes.size(), {});
  e2e_timer_.assign(nodes.size(), e2e_deadlines_.end());
  least_tx_s_ = kNever;
  for (const auto& node : delays_)
    least_tx_s_ = std::min(least_tx_s_, node.tx_s);
  if (delays_.empty())
    least_tx_s_ = 0;

  std::vector<unsigned> hosting;
  for (unsigned n = 0; n < ranks_on_node_.size(); ++n)
    if (ranks_on_node_[n] > 0)
      hosting.push_back(n);
  sending_total_ = 0;
  least_wire_into_.assign(nodes.size(), 0.0);
  least_answer_wire_into_.assign(nodes.size(), 0.0);
  least_wire_s_ = 0;
  if (hosting.size() > kMeasuredNodes)
    return; // too many routes to measure at start-up: no wire assumed
  // A node without ranks makes no call, but its NIC answers what reaches it:
  // the answers' routes come from every node (when there are not too many).
  const bool every_node = nodes.size() * hosting.size() <= kMeasuredNodes * kMeasuredNodes;
  for (unsigned to : hosting) {
    double least = kNever;
    double least_answer = kNever;
    for (unsigned from = 0; from < nodes.size(); ++from) {
      if (from == to || (ranks_on_node_[from] == 0 && not every_node))
        continue;
      const double wire = wire_latency(from, to);
      if (ranks_on_node_[from] > 0)
        least = std::min(least, wire);
      least_answer = std::min(least_answer, wire);
    }
    least_wire_into_[to] = std::isinf(least) ? 0.0 : least;
    least_answer_wire_into_[to] = std::isinf(least_answer) || not every_node ? 0.0 : least_answer;
  }
  // Every route between two nodes is measured when every node hosts ranks.
  // (Routes into a node without ranks are not: SimGrid 3.32's dragonfly
  // routing crashes on some of them.)
  if (every_node && hosting.size() == nodes.size() && nodes.size() > 1) {
    least_wire_s_ = kNever;
    for (unsigned to : hosting)
      least_wire_s_ = std::min(least_wire_s_, least_answer_wire_into_[to]);
  }
}

bool LandingBounds::network_keeps_route_latencies()
{
  // (SMPI's model applies its own piecewise calibration, smpi/lat-factor.)
  const std::string model = simgrid::config::get_value<std::string>("network/model");
  return (model == "CM02" || model == "LV08") && simgrid::config::get_value<double>("network/latency-factor") >= 1.0;
}

void configure_landing_bounds(World& world)
{
  std::vector<NodeDelays> delays;
  bool quick_acks = false;
  for (const auto& nic : world.nics) {
    const NicParameters& params = nic->parameters();
    delays.push_back({.tx_s = params.tx_delay_s, .rx_s = params.rx_delay_s, .response_s = params.response_delay_s});
    quick_acks = quick_acks || params.quick_acks;
  }
  std::vector<int> ranks_on_node(world.nodes.size(), 0);
  for (const auto& rank : world.ranks)
    ranks_on_node[rank.node]++;
  // (A message may also end its way early when the network model does not
  // make it take its route's latency.)
  bool may_end_early = world.links_may_fail || not LandingBounds::network_keeps_route_latencies();
  for (const auto& nic : world.nics)
    may_end_early = may_end_early || nic->may_lose_messages();
  world.landing.configure(world.nodes, delays, ranks_on_node,
                          quick_acks || not LandingBounds::network_keeps_route_latencies(), may_end_early);
}

void configure_lone_messages(World& world)
{
  // Only where the least route latency is known (LandingBounds::least_wire_s).
  if (not options::lone_messages() || world.wire == nullptr || not(world.landing.least_wire_s() > 0))
    return;
  const std::set<const simgrid::s4u::Link*> pcie = platform::pcie_links(world.nodes);
  world.wire->allow_lone_messages({pcie.begin(), pcie.end()}, options::lone_arrivals());
}

double LandingBounds::wire_latency(unsigned from, unsigned to)
{
  const uint64_t key = (static_cast<uint64_t>(from) << 32) | to;
  if (auto found = route_latency_.find(key); found != route_latency_.end())
    return found->second;
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  nodes_[from]->nic->route_to(nodes_[to]->nic, links, &latency);
  route_latency_.emplace(key, latency);
  return latency;
}

double LandingBounds::handling_bound(const Message& message, double sent)
{
  const NodeDelays& at = delays_[message.dst_nid];
  double delay = 0; // a BXI ACK is handled as it arrives (nic.cpp, rx_loop)
  if (message.kind != Message::Kind::BxiAck)
    delay = message.network() == VirtualNetwork::Request ? at.rx_s : at.response_s;
  return sent + wire_latency(message.src_nid, message.dst_nid) + delay;
}

void LandingBounds::begin(Message& message, double bound)
{
  TransitMark& mark = message.transit;
  if (mark.count > 0 && bound >= mark.bound) {
    mark.count++;
    return;
  }
  if (mark.count > 0) {
    on_way_to_[message.dst_nid].erase(mark.at_destination);
    on_way_.erase(mark.anywhere);
  }
  mark.bound = bound;
  mark.at_destination = on_way_to_[message.dst_nid].insert(bound);
  mark.anywhere = on_way_.insert(bound);
  mark.count++;
}

void LandingBounds::advance(Message& message, double bound)
{
  TransitMark& mark = message.transit;
  // Twice on its way: which copy this is, is not known; the earlier bound stays.
  if (mark.count != 1 || bound <= mark.bound)
    return;
  on_way_to_[message.dst_nid].erase(mark.at_destination);
  on_way_.erase(mark.anywhere);
  mark.bound = bound;
  mark.at_destination = on_way_to_[message.dst_nid].insert(bound);
  mark.anywhere = on_way_.insert(bound);
}

void LandingBounds::begin_tx(Message& message, double now)
{
  count_tx(message, +1);
  begin(message, handling_bound(message, now));
  // Held by a TX engine, it keeps the engine busy as one on the wire does
  // (busy_until). Not a copy sent again (acknowledged meanwhile, it is
  // dropped unsent), nor one whose payload the engine reads from a rank
  // that may end first (then dropped too).
  TransitMark& mark = message.transit;
  if (message.retries == 0 && message.payload_captured && mark.count > 0 && not mark.on_wire) {
    mark.wire = on_wire_.insert(mark.bound);
    mark.on_wire = true;
  }
}

void LandingBounds::end_tx(const Message& message)
{
  count_tx(message, -1);
}

void LandingBounds::count_tx(const Message& message, int step)
{
  sending_total_ += step;
  if (writes_at_tx(message))
    sending_requests_[message.src_nid] += step;
  if (reads_at_tx(message))
    sending_reads_[message.src_nid] += step;
}

void LandingBounds::on_wire(Message& message, double now)
{
  const double bound = handling_bound(message, now);
  // A BXI ACK of a response makes its destination write nothing and send
  // nothing: it bounds no write, only the time the engine stays busy.
  if (message.kind == Message::Kind::BxiAck)
    begin(message, message.acknowledges_response ? kNever : bound);
  else
    advance(message, bound);
  TransitMark& mark = message.transit;
  if (mark.count > 0 && not mark.on_wire) {
    mark.wire = on_wire_.insert(bound);
    mark.on_wire = true;
  } else if (mark.count == 1 && mark.on_wire && bound > *mark.wire) {
    on_wire_.erase(mark.wire); // (held by its TX engine until now: the later bound)
    mark.wire = on_wire_.insert(bound);
  }
}

void LandingBounds::ended(Message& message)
{
  TransitMark& mark = message.transit;
  if (mark.count == 0)
    return;
  if (--mark.count > 0)
    return;
  on_way_to_[message.dst_nid].erase(mark.at_destination);
  on_way_.erase(mark.anywhere);
  if (mark.on_wire)
    on_wire_.erase(mark.wire);
  mark.on_wire = false;
}

double LandingBounds::busy_until() const
{
  if (may_end_early_ || on_wire_.empty())
    return -kNever;
  return *on_wire_.rbegin();
}

void LandingBounds::e2e_timer_set(unsigned node, double deadline)
{
  e2e_timer_cleared(node);
  e2e_timer_[node] = e2e_deadlines_.insert(deadline);
}

void LandingBounds::e2e_timer_cleared(unsigned node)
{
  if (e2e_timer_[node] == e2e_deadlines_.end())
    return;
  e2e_deadlines_.erase(e2e_timer_[node]);
  e2e_timer_[node] = e2e_deadlines_.end();
}

double LandingBounds::earliest_write(unsigned node, double now, double calls_from) const
{
  if (exact_only_ || sending_requests_[node] > 0)
    return now;
  double bound = kNever;
  if (const auto& to_node = on_way_to_[node]; not to_node.empty())
    bound = std::min(bound, *to_node.begin());
  if (not on_way_.empty())
    bound = std::min(bound, *on_way_.begin() + least_answer_wire_into_[node]);
  const double wire = ranks_on_node_[node] > 1 ? 0.0 : least_wire_into_[node];
  bound = std::min(bound, calls_from + least_tx_s_ + wire + delays_[node].rx_s);
  if (not e2e_deadlines_.empty())
    bound = std::min(bound, *e2e_deadlines_.begin());
  return std::max(bound, now);
}

double LandingBounds::earliest_new_send(double now, const Message& sending, const Message* handled)
{
  // (A BXI ACK enters no TX queue; every other message goes on the wire from one.)
  const int others_sending = sending_total_ - (sending.kind == Message::Kind::BxiAck ? 0 : 1);
  if (exact_only_ || may_end_early_ || others_sending > 0)
    return now;
  // A rank's call (portals/rank_calls.hpp), and what the handling of
  // `handled` still creates (a response, a released triggered operation):
  // through a TX engine.
  const double calls = earliest_rank_call_ ? earliest_rank_call_(now) : now;
  calls_promised_from_ = std::max(calls_promised_from_, calls);
  double bound = calls + least_tx_s_;
  // The messages on their way but these two, whose handling may send a BXI
  // ACK or create an answer (a message's own way ends when it lands, and
  // what its handling creates starts later).
  auto own = [](const Message* message) {
    return message != nullptr && message->transit.count > 0 ? &*message->transit.anywhere : nullptr;
  };
  const double* skipped[] = {own(&sending), own(handled)};
  for (auto at = on_way_.begin(); at != on_way_.end(); ++at)
    if (&*at != skipped[0] && &*at != skipped[1]) {
      bound = std::min(bound, *at);
      break;
    }
  if (not e2e_deadlines_.empty())
    bound = std::min(bound, *e2e_deadlines_.begin());
  return std::max(bound, now);
}

} // namespace s4bxi::nic
