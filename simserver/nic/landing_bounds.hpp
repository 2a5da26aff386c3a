// How far ahead a rank may answer its polls itself (preload/local_polls.hpp):
// the earliest simulated time at which the NIC of its node can write an event
// that is not written yet. Every event is written by a NIC when it handles a
// message (the target's RX engine; the initiator's RX engine for a response;
// the TX engine for the SEND event of a message it sends), when E2E gives up
// on a message (at a timer's deadline), or at once by a call of the rank
// itself (which the process knows of). So the bound for node D, at time `now`
// while the ranks wait for the simulation (no rank acts before `now`), is the
// earliest of:
// - `now`, while D's TX engines have requests to send (SEND events; a
//   response or a BXI ACK writes nothing as it leaves);
// - for each message on its way to D (from the TX queue it entered to the end
//   of its handling at D): the time it went on the wire (or entered the
//   queue), plus the wire latency of its route, plus D's RX delay for its
//   kind (none for a BXI ACK);
// - a message not created yet: one that the handling of a message on its way
//   anywhere creates (a response, a BXI ACK, a released triggered operation)
//   at the earliest at that handling's bound, plus the least wire latency
//   from any other node to D, with ranks or not (a NIC answers a message to
//   a node without a process too; a message created at D for D is on its way
//   to D already counted); one that a rank's call creates, at `now` at the
//   earliest, through a TX delay, the least wire from another node hosting
//   ranks and D's RX delay (no wire when another rank shares D: loopback);
//   one that E2E sends again, at its timer's deadline;
// and the rank's horizon is that bound plus the PCIe write of an event.
// Quick ACKs (the target's RX engine completes the initiator's operation
// itself) make the initiator's events unpredictable that way: with them the
// bound is `now`, as without this class.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>
#include <vector>

namespace s4bxi::platform {
struct Node;
}

namespace s4bxi::nic {

struct Message;

// A message's place among the messages on their way (Message::transit). A
// message may be on its way twice (E2E sends it again before the first copy
// is handled): the bound kept is the earlier one, until both are done.
// A copy of a message is another message, not yet on its way.
struct TransitMark {
  int count = 0;
  double bound = 0.0;
  std::multiset<double>::iterator at_destination;
  std::multiset<double>::iterator anywhere;
  bool on_wire = false; // (at least one copy went on the wire)
  std::multiset<double>::iterator wire;
  TransitMark() = default;
  TransitMark(const TransitMark&) noexcept {}
  TransitMark& operator=(const TransitMark&) noexcept { return *this; }
};

// What one node's NIC contributes: its delays (nic_parameters.hpp).
struct NodeDelays {
  double tx_s = 0;
  double rx_s = 0;       // requests
  double response_s = 0; // responses (ACK, Get response); BXI ACKs have none
};

class LandingBounds {
public:
  static constexpr double kNever = std::numeric_limits<double>::infinity();

  // `ranks_on_node[n]`: how many ranks node n hosts. Routes are measured
  // into the nodes that host ranks (up to kMeasuredNodes of them), from those
  // (the calls' messages) and from every node (answers: only while that makes
  // at most kMeasuredNodes squared routes); beyond, a message not created
  // yet is taken to cross no wire.
  // `exact_only`: no bound beyond `now` (quick ACKs, or a network model that
  // does not keep route latencies). (The bounds do not depend on whether the
  // processes get them: s4bxi/horizon-from-traffic, rank_proxy.cpp; the
  // server uses them too, portals/api_polls.cpp.)
  // `may_end_early`: a message on the wire may end its way before its bound
  // (injected faults lose it; a network model without route latencies).
  void configure(const std::vector<platform::Node>& nodes, const std::vector<NodeDelays>& delays,
                 const std::vector<int>& ranks_on_node, bool exact_only, bool may_end_early = false);
  static constexpr size_t kMeasuredNodes = 64;

  // Whether SimGrid's network model takes at least a route's latency to
  // cross it (the bounds rely on it): the max-min models CM02 and LV08 with
  // a latency factor of at least 1. Not ns-3, not a constant network, not
  // SMPI's calibrated factors (some are below 1).
  [[nodiscard]] static bool network_keeps_route_latencies();

  // A message enters a TX queue of node `message.src_nid` (`begin_tx`), the
  // TX engine is done with it (`end_tx`: sent, or dropped as acknowledged).
  void begin_tx(Message& message, double now);
  void end_tx(const Message& message);
  // It goes on the wire (a BXI ACK, which enters no queue, starts its way here).
  void on_wire(Message& message, double now);
  // Its way ends: handled by its destination's RX engine, lost, or dropped
  // before it was sent.
  void ended(Message& message);

  // An E2E timer of a node is set for `deadline`, or removed / fired.
  void e2e_timer_set(unsigned node, double deadline);
  void e2e_timer_cleared(unsigned node);

  // The earliest time the NIC of `node` can write an event it has not
  // written yet, as seen at `now` (never before `now`), the ranks' next
  // calls coming no sooner than `calls_from` (by default `now`).
  [[nodiscard]] double earliest_write(unsigned node, double now) const { return earliest_write(node, now, now); }
  [[nodiscard]] double earliest_write(unsigned node, double now, double calls_from) const;
  // Until when the engine surely has something under way (-infinity: not
  // known): a message held by a TX engine (not a copy sent again), on the
  // wire, or received and waiting for or in its RX engine's delay, is
  // handled no earlier than its bound, and until then a communication or an
  // engine's sleep is pending (unless faults may lose it on the way). The
  // poll sentinel acts only when nothing is pending (portals/poll_sentinel.hpp).
  [[nodiscard]] double busy_until() const;
  // Whether the TX queues and engines of `node` hold no message whose
  // payload the TX engine reads from the host by DMA (a response without
  // one, a PIO payload: none to read).
  [[nodiscard]] bool reads_nothing(unsigned node) const { return sending_reads_[node] == 0; }
  // Whether they hold no request (those of the request virtual network's
  // engines: a response or a BXI ACK takes others).
  [[nodiscard]] bool sends_no_request(unsigned node) const { return sending_requests_[node] == 0; }

  // The earliest time, as seen at `now`, at which any NIC can put on the
  // wire a message other than `sending` (which goes on it now) and the BXI
  // ACK that the handling of `handled` (in progress) sends now (nullptr:
  // none): `now` while another message is in a TX queue or engine or an RX
  // engine handles one; else the earliest handling of a message on its way
  // (a BXI ACK, a response, a released triggered operation), a rank's call
  // through a TX engine, an E2E retransmission. `now` when the bounds are
  // not known (exact_only) or a message may end its way early.
  [[nodiscard]] double earliest_new_send(double now, const Message& sending, const Message* handled);
  // What tells the earliest next call of any rank, as seen at `now`, for
  // earliest_new_send (portals/rank_calls.hpp; until set: `now`).
  void set_earliest_rank_call(std::function<double(double now)> earliest) { earliest_rank_call_ = std::move(earliest); }
  // The latest of those earliest next calls so far: a caller that comes from
  // outside the simulation (a parked one that wakes, a thread's new lane)
  // calls no sooner, so that what was decided on them holds.
  [[nodiscard]] double calls_promised_from() const { return calls_promised_from_; }
  // The least route latency between two distinct nodes (0: not measured:
  // beyond kMeasuredNodes nodes, or a node without ranks): no message's
  // bytes start flowing sooner after it went on the wire.
  [[nodiscard]] double least_wire_s() const { return least_wire_s_; }

private:
  // A message enters (+1) or leaves (-1) the TX queues and engines of its source.
  void count_tx(const Message& message, int step);
  [[nodiscard]] double wire_latency(unsigned from, unsigned to);
  [[nodiscard]] double handling_bound(const Message& message, double sent);
  void begin(Message& message, double bound);
  void advance(Message& message, double bound);

  std::vector<const platform::Node*> nodes_;
  std::vector<NodeDelays> delays_;
  std::vector<int> ranks_on_node_;
  bool exact_only_ = true;
  bool may_end_early_ = false;
  double least_tx_s_ = 0;
  std::vector<double> least_wire_into_; // per node: the least route latency from another node hosting ranks
  std::vector<double> least_answer_wire_into_; // the same from any other node (answers; 0 when not measured)
  std::unordered_map<uint64_t, double> route_latency_; // (from << 32 | to) -> seconds, measured when first needed
  std::vector<int> sending_requests_;                   // per node: requests in its TX queues and engines
  std::vector<int> sending_reads_;                      // per node: messages there whose payload its TX engine reads by DMA
  int sending_total_ = 0;                               // messages in all TX queues and engines
  double least_wire_s_ = 0;
  std::vector<std::multiset<double>> on_way_to_;        // per node: bounds of the messages on their way to it
  std::multiset<double> on_way_;                        // all of them
  std::multiset<double> on_wire_; // the bounds of those held by a TX engine or on the wire (the first copy's)
  std::vector<std::multiset<double>::iterator> e2e_timer_; // per node, or end() when none
  std::multiset<double> e2e_deadlines_;
  std::function<double(double)> earliest_rank_call_;
  double calls_promised_from_ = 0;
};

} // namespace s4bxi::nic
