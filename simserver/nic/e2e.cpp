// The NIC's end-to-end reliability (thesis 2.2.3 and 4.2.1, e2e.hpp for the
// bookkeeping): sequence numbers and E2E entries when messages leave, BXI
// ACKs and duplicate detection when they arrive, the E2E actor that sends
// unacknowledged messages again after the timeout and fails the operation
// after the last retry, and the faults that make all that necessary.
//
// What acknowledges what (as in S4BXI): a request is acknowledged by its
// response when it has one (a Portals ACK, a Get or fetching atomic's
// response), otherwise by a BXI ACK; Portals ACKs and responses are
// acknowledged by BXI ACKs; BXI ACKs by nothing. With quick ACKs the target's
// RX engine acknowledges the request and delivers the ACK itself.
#include "nic.hpp"

#include "../model_options.hpp"
#include "../trace/recorder.hpp"
#include "../engine_clock.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <limits>


XBT_LOG_EXTERNAL_CATEGORY(s4bxi_nic);
XBT_LOG_NEW_SUBCATEGORY(s4bxi_e2e, s4bxi_nic, "End-to-end reliability of the NIC: BXI ACKs, retransmissions");
XBT_LOG_DEFAULT_CATEGORY(s4bxi_e2e);

namespace s4u = simgrid::s4u;

namespace s4bxi::nic {

namespace {

const char* kind_name(Message::Kind kind)
{
  switch (kind) {
    case Message::Kind::Put: return "Put";
    case Message::Kind::Get: return "Get";
    case Message::Kind::Ack: return "ACK";
    case Message::Kind::GetResponse: return "response";
    case Message::Kind::BxiAck: return "BXI ACK";
  }
  return "message";
}

// "Put #12", "BXI ACK of #12" (a BXI ACK has no number of its own), "Put
// (unsequenced)" for a message E2E does not keep (E2E off, PTL_MD_UNRELIABLE).
std::string describe(const Message& message)
{
  const bool ack = message.kind == Message::Kind::BxiAck;
  if (not ack && not message.sequenced)
    return std::string(kind_name(message.kind)) + " (unsequenced)";
  return std::string(kind_name(message.kind)) + (ack ? " of #" : " #") +
         std::to_string(ack ? message.answered_seq : message.seq);
}

// A deadline this close is reached (the clock of a timer's wake-up may differ
// from its date by rounding).
constexpr double kTimePrecision = 1e-12;

// The trace's record of E2E keeping `message` (sent by `node`) from its last
// transmission until now, when `outcome` happened.
void trace_kept(unsigned node, const Message& message, const char* outcome)
{
  if (trace::active != nullptr)
    trace::active->record({.kind = trace::Kind::E2e,
                           .node = node,
                           .rank = rank_of(message),
                           .vn = static_cast<int>(message.network()),
                           .bytes = message.payload.size(),
                           .start = message.sent_at,
                           .end = sim_now(),
                           .what = trace::name(kind_of(message)),
                           .dst = static_cast<int>(message.dst_nid),
                           .retry = message.retries,
                           .note = outcome});
}

// A message lost on the wire, for the trace.
void trace_lost(const Message& message, uint64_t bytes_on_wire, const char* how)
{
  if (trace::active == nullptr)
    return;
  trace::Event lost = wire_event(message, bytes_on_wire, message.sent_at, sim_now());
  lost.note = how;
  trace::active->record(lost);
}

} // namespace

bool SequenceWindow::accept(uint64_t seq, uint64_t floor)
{
  auto skip_handled = [this] {
    while (not beyond_.empty() && *beyond_.begin() == next_) {
      beyond_.erase(beyond_.begin());
      ++next_;
    }
  };
  if (floor > next_) {
    next_ = floor;
    beyond_.erase(beyond_.begin(), beyond_.lower_bound(floor));
    skip_handled();
  }
  if (seq < next_)
    return false;
  if (seq == next_) {
    ++next_;
    skip_handled();
    return true;
  }
  return beyond_.insert(seq).second;
}

void Nic::send_on_wire(Message* message, uint64_t bytes_on_wire, const Message* acknowledged)
{
  const double now = sim_now();
  // No other message's bytes flow on any link before this: it may cross
  // alone (wire.hpp). (Before this one is on its way, and after the wire's
  // own simcalls: nothing else is sent until it is carried.)
  wire_.end_sent_through_mailboxes();
  const double no_transfer_before =
      options::lone_messages() && world_.landing.least_wire_s() > 0 // (else none is alone: configure_lone_messages)
          ? world_.landing.earliest_new_send(now, *message, acknowledged) + world_.landing.least_wire_s()
          : -std::numeric_limits<double>::infinity();
  world_.landing.on_wire(*message, now);
  // A Put from a PTL_MD_UNRELIABLE MD is sent as without E2E: no sequence
  // number, no entry, no BXI ACK; lost, it is lost for good (its SEND event
  // comes all the same, see sent_unreliably).
  if (not message->sequenced && message->kind != Message::Kind::BxiAck && params_.e2e && not message->unreliable) {
    message->reliable = true;
    message->sequenced = true;
    message->seq = e2e_.peers[message->dst_nid].next_seq++;
  }
  if (message->reliable && not message->duplicate_answer) {
    // Its E2E entry, at the tail of the FIFO (deadlines only grow).
    auto& peer = e2e_.peers[message->dst_nid];
    const bool first = e2e_.fifo.empty();
    auto found = peer.unacked.find(message->seq);
    if (found == peer.unacked.end()) {
      e2e_.fifo.push_back({MessagePtr(message), now + params_.retry_timeout_s, false});
      peer.unacked.emplace(message->seq, std::prev(e2e_.fifo.end()));
    } else { // sent again
      auto entry = found->second;
      e2e_.fifo.splice(e2e_.fifo.end(), e2e_.retransmitting, entry);
      entry->deadline = now + params_.retry_timeout_s;
      entry->retransmitting = false;
    }
    if (first)
      arm_e2e_timer();
  }
  if (message->reliable)
    message->floor = e2e_.peers[message->dst_nid].floor();
  if (message->kind == Message::Kind::BxiAck)
    statistics_.bxi_acks_sent++;

  Nic& destination = *world_.nics[message->dst_nid];
  if (faults_ && faults_->lose(*message)) {
    // Dropped by the fault model: its bytes still load the links of its route.
    statistics_.messages_lost++;
    XBT_VERB("%s to node %u lost", describe(*message).c_str(), message->dst_nid);
    trace_lost(*message, bytes_on_wire, "lost");
    world_.landing.ended(*message);
    s4u::Comm::sendto_init(node_.nic, destination.node_.nic)->set_payload_size(static_cast<double>(bytes_on_wire))
        ->detach();
    return;
  }
  if (world_.links_may_fail && not Wire::route_is_on(node_.nic, destination.node_.nic)) {
    // (SimGrid fails a communication whose route is off at once, without
    // telling the wire.)
    lost_on_the_way(*message, bytes_on_wire);
    return;
  }
  wire_.carry(MessagePtr(message), bytes_on_wire, node_.nic, destination.node_.nic, node_.nid,
              destination.rx_lane(message->network(), node_.nid), lost_on_the_way_, world_.links_may_fail,
              no_transfer_before);
}

void Nic::lost_on_the_way(Message& lost, uint64_t bytes_on_wire)
{
  statistics_.messages_lost++;
  XBT_VERB("%s to node %u lost on a failed link", describe(lost).c_str(), lost.dst_nid);
  trace_lost(lost, bytes_on_wire, "lost on a failed link");
  world_.landing.ended(lost);
}

void Nic::send_bxi_ack(const Message& message)
{
  // A bare header that the receiving engine's E2E logic puts on the wire
  // itself (a model choice): it takes no TX engine time nor command-queue
  // slot, but it crosses the wire like any message (load, latency, faults).
  MessagePtr ack(new Message);
  ack->kind = Message::Kind::BxiAck;
  ack->src_nid = node_.nid;
  ack->dst_nid = message.src_nid;
  ack->answers = true;
  ack->answered_seq = message.seq;
  ack->acknowledges_response = message.network() == VirtualNetwork::Response;
  transmit(ack.get(), &message);
}

bool Nic::accept_request(const Message& request)
{
  if (not request.reliable)
    return true;
  auto& kept = e2e_.answers[request.src_nid];
  if (e2e_.windows[request.src_nid].accept(request.seq, request.floor)) {
    // The initiator sends no request below its floor again.
    kept.erase(kept.begin(), kept.lower_bound(request.floor));
    return true;
  }
  statistics_.duplicates_received++;
  auto answer = kept.find(request.seq);
  XBT_VERB("duplicate %s #%llu from node %u: %s", kind_name(request.kind),
           static_cast<unsigned long long>(request.seq), request.src_nid,
           answer != kept.end() ? "its response is sent again" : "acknowledged again");
  if (answer == kept.end()) {
    send_bxi_ack(request);
    return false;
  }
  // The response may be lost, or still on its way: a copy goes out, which the
  // initiator takes as the response if it has none yet (E2E keeps the
  // original, not the copy).
  MessagePtr copy(new Message(*answer->second));
  copy->duplicate_answer = true;
  copy->acked = false;
  enqueue(std::move(copy), false);
  return false;
}

bool Nic::accept_response(const Message& response)
{
  if (response.kind == Message::Kind::BxiAck) {
    MessagePtr acked = e2e_acknowledged(response.src_nid, response.answered_seq);
    if (not acked)
      return false; // acknowledged already, or given up
    if (acked->network() == VirtualNetwork::Request) {
      // A request's only answer: the target owes no Portals ACK.
      MessagePtr delivered(new Message);
      delivered->kind = Message::Kind::Ack;
      delivered->op = acked->op;
      delivered->portals_ack = false;
      if (delivered->op)
        complete_operation(delivered);
    } else {
      e2e_.answers[response.src_nid].erase(acked->answered_seq);
    }
    return false;
  }
  if (response.reliable && not e2e_.windows[response.src_nid].accept(response.seq, response.floor)) {
    statistics_.duplicates_received++;
    XBT_VERB("duplicate %s #%llu from node %u: acknowledged again", kind_name(response.kind),
             static_cast<unsigned long long>(response.seq), response.src_nid);
    send_bxi_ack(response);
    return false;
  }
  if (response.answers)
    e2e_acknowledged(response.src_nid, response.answered_seq);
  return true;
}

MessagePtr Nic::e2e_acknowledged(unsigned peer, uint64_t seq)
{
  auto& kept = e2e_.peers[peer].unacked;
  auto found = kept.find(seq);
  if (found == kept.end())
    return nullptr;
  auto entry = found->second;
  MessagePtr message = entry->message;
  kept.erase(found);
  message->acked = true;
  trace_kept(node_.nid, *message, "acknowledged");
  if (entry->retransmitting) {
    e2e_.retransmitting.erase(entry);
  } else {
    const bool head = entry == e2e_.fifo.begin();
    e2e_.fifo.erase(entry);
    if (head)
      arm_e2e_timer();
  }
  return message;
}

void Nic::arm_e2e_timer()
{
  // Timers are kernel objects, changed here from actors: safe, since the
  // simulation runs its actors one at a time (SimGrid's default, which the
  // server keeps).
  if (not e2e_.fifo.empty() && e2e_.timer != nullptr && e2e_.timer_deadline == e2e_.fifo.front().deadline)
    return;
  if (e2e_.timer != nullptr) {
    e2e_.timer->remove();
    e2e_.timer = nullptr;
  }
  // The deadline stays a bound of the NIC's writes (landing_bounds.hpp) from
  // when it is set until the E2E engine has acted on it (it arms the next).
  world_.landing.e2e_timer_cleared(node_.nid);
  if (e2e_.fifo.empty())
    return;
  e2e_.timer_deadline = e2e_.fifo.front().deadline;
  world_.landing.e2e_timer_set(node_.nid, e2e_.timer_deadline);
  e2e_.timer = simgrid::kernel::timer::Timer::set(e2e_.timer_deadline, [this] {
    e2e_.timer = nullptr;
    e2e_.wake->release();
  });
}

void Nic::e2e_loop()
{
  // A pending timer would keep the simulation going after the last rank.
  s4u::this_actor::on_exit([this](bool) {
    if (e2e_.timer != nullptr) {
      e2e_.timer->remove();
      e2e_.timer = nullptr;
      world_.landing.e2e_timer_cleared(node_.nid);
    }
  });
  while (true) {
    e2e_.wake->acquire(); // released when the head's deadline passes
    const double now = sim_now();
    while (not e2e_.fifo.empty() && e2e_.fifo.front().deadline <= now + kTimePrecision)
      expire(e2e_.fifo.begin());
    arm_e2e_timer();
  }
}

void Nic::expire(E2eEntries::iterator head)
{
  MessagePtr message = head->message;
  if (message->retries >= params_.max_retries) {
    give_up(head);
    return;
  }
  trace_kept(node_.nid, *message, "timed out");
  message->retries++;
  statistics_.retransmissions++;
  XBT_VERB("%s #%llu to node %u unacknowledged after %g s: sent again (retry %d of %d)", kind_name(message->kind),
           static_cast<unsigned long long>(message->seq), message->dst_nid, params_.retry_timeout_s, message->retries,
           params_.max_retries);
  head->retransmitting = true;
  e2e_.retransmitting.splice(e2e_.retransmitting.end(), e2e_.fifo, head);
  enqueue(std::move(message), false);
}

void Nic::log_e2e_statistics() const
{
  const auto& s = statistics_;
  XBT_VERB("node %u: %llu BXI ACKs sent, %llu retransmissions, %llu messages lost, %llu duplicates received, %llu "
           "messages given up, %llu operations failed",
           node_.nid, static_cast<unsigned long long>(s.bxi_acks_sent),
           static_cast<unsigned long long>(s.retransmissions), static_cast<unsigned long long>(s.messages_lost),
           static_cast<unsigned long long>(s.duplicates_received),
           static_cast<unsigned long long>(s.messages_given_up), static_cast<unsigned long long>(s.operations_failed));
}

void Nic::give_up(E2eEntries::iterator entry)
{
  MessagePtr message = entry->message;
  e2e_.peers[message->dst_nid].unacked.erase(message->seq);
  e2e_.fifo.erase(entry);
  statistics_.messages_given_up++;
  trace_kept(node_.nid, *message, "given up");
  XBT_VERB("%s #%llu to node %u unacknowledged after %d retries: given up", kind_name(message->kind),
           static_cast<unsigned long long>(message->seq), message->dst_nid, message->retries);
  if (message->network() == VirtualNetwork::Request)
    fail_operation(*message);
  else
    e2e_.answers[message->dst_nid].erase(message->answered_seq);
}

void Nic::fail_operation(const Message& request)
{
  if (not request.op || request.op->completed)
    return;
  statistics_.operations_failed++;
  // The events the response would have brought, with PTL_NI_UNDELIVERABLE:
  // SEND (unless out already), ACK or the counted ACK as requested, REPLY.
  MessagePtr failure(new Message);
  const bool returns_data =
      request.kind == Message::Kind::Get || request.header.op == portals::Operation::FetchAtomic;
  failure->kind = returns_data ? Message::Kind::GetResponse : Message::Kind::Ack;
  failure->op = request.op;
  failure->fail = ipc::FailKind::Undeliverable;
  failure->portals_ack = request.ack_req != ipc::AckRequest::None;
  complete_operation(failure);
}

void Nic::quick_ack(const Message& request, ipc::FailKind fail, uint64_t mlength, uint64_t offset,
                    bool overflow_list)
{
  // Simulation only: the target's RX engine completes the initiator's
  // operation itself; neither the Portals ACK nor its BXI ACK travel.
  Nic& initiator = *world_.nics[request.src_nid];
  if (request.reliable)
    initiator.e2e_acknowledged(node_.nid, request.seq);
  MessagePtr ack = response_to(request, node_.nid, Message::Kind::Ack, fail, mlength, offset, true, overflow_list);
  if (ack->op)
    initiator.complete_operation(ack);
}

void Nic::sent_unreliably(const Message& request)
{
  if (request.network() != VirtualNetwork::Request || not request.op)
    return;
  // Without E2E the NIC never reads the buffer again: SEND now, which frees
  // the MD it was read from (a Portals ACK may still come, or not if the
  // target's entry disables it; a reply still lands in its own MD).
  InitiatorOp& op = *request.op;
  if (op.sends_data())
    deliver_send_event(op, ipc::FailKind::Ok);
}

} // namespace s4bxi::nic
