// The initiator side of the NIC: what the responses bring back (Portals 4.1,
// sections 3.13-3.15 and the MD options of 3.10): reply data into the get MD,
// and the SEND, ACK and REPLY full and counting events as the acknowledgment
// request and the MDs' options say.
// These Nic members (nic/nic.hpp, called by its RX engine) are Portals
// semantics: they live with them, above the NIC model, which knows none of
// the rules it applies.
#include "../nic/nic.hpp"

#include "event_delivery.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <cmath>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_nic);

namespace s4bxi::nic {

using portals::Operation;
using namespace ipc::option;

namespace {

bool is_atomic(Operation operation)
{
  return operation == Operation::Atomic || operation == Operation::FetchAtomic;
}

ipc::Event initiator_event(const InitiatorOp& op, ipc::EventKind kind, ipc::FailKind fail)
{
  ipc::Event event{};
  event.type = kind;
  event.user_ptr = op.user_ptr;
  event.match_bits = op.match_bits;
  event.pt_index = op.pt_index;
  event.ni_fail_type = fail;
  if (is_atomic(op.op)) {
    event.atomic_operation = static_cast<uint8_t>(op.atomic_op);
    event.atomic_type = static_cast<uint8_t>(op.atomic_type);
  }
  return event;
}

// A counting event of an MD: bytes on success when PTL_MD_EVENT_CT_BYTES
// says so, otherwise one; a failure always counts one failure.
void count(RankPortals& rank, portals::NetworkInterface& ni, const LocalBuffer& buffer, uint32_t option,
           bool success, uint64_t bytes)
{
  if ((buffer.md.options & option) == 0)
    return;
  const uint64_t amount = (buffer.md.options & kMDEventCtBytes) != 0 ? bytes : 1;
  portals::post_counter(rank, ni, buffer.md.ct, success ? amount : 0, success ? 0 : 1);
}

// The MD `handle` stops counting the operation as in flight, once.
void release_md(World& world, const InitiatorOp& op, ipc::Handle handle, bool& released)
{
  if (released)
    return;
  released = true;
  RankPortals& rank = world.ranks[op.rank];
  portals::NetworkInterface* ni = rank.alive ? rank.ni(op.ni_slot) : nullptr;
  if (ni == nullptr)
    return;
  if (auto decoded = portals::decode_handle(handle))
    if (auto* md = ni->mds.find(decoded->index); md != nullptr && md->operations_in_flight > 0)
      md->operations_in_flight--;
}

} // namespace

void Nic::deliver_send_event(InitiatorOp& op, ipc::FailKind fail)
{
  if (op.send_event_sent)
    return; // once, whatever retransmissions and answers follow
  op.send_event_sent = true;
  // The MD is the program's again once the SEND event says its data left it,
  // acknowledgment or not: Sandia's implementation drops the operation's
  // reference to the MD before it posts SEND (src/ib/ptl_init.c,
  // early_send_event), so PtlMDRelease right after a SEND count succeeds
  // while the ACK is still on its way.
  release_put_buffer(op);
  RankPortals& rank = world_.ranks[op.rank];
  portals::NetworkInterface* ni = rank.ni(op.ni_slot);
  if (ni == nullptr)
    return;
  const bool success = fail == ipc::FailKind::Ok;
  const uint32_t options = op.put.md.options;
  const portals::PendingEvent* posted = nullptr;
  if ((options & kMDEventSendDisable) == 0 && not(success && (options & kMDEventSuccessDisable) != 0)) {
    ipc::Event event = initiator_event(op, ipc::EventKind::Send, fail);
    event.mlength = op.length;
    event.rlength = op.length;
    posted = portals::post_event(rank, *ni, op.put.md.eq, event);
  }
  count(rank, *ni, op.put, kMDEventCtSend, success, op.length);
  if (op.forecast)
    check_forecast(op, posted);
}

void Nic::check_forecast(const InitiatorOp& op, const portals::PendingEvent* posted)
{
  // The process went on from the forecast (put_forecast.cpp): it took this
  // SEND event for the one it expected, landing when it expected (within
  // the rounding of its nanosecond clock), or expected none, or one that
  // comes with the acknowledgment, not before the time it answered polls up
  // to.
  const ipc::ForecastPut& forecast = *op.forecast;
  if (forecast.send_later != 0) {
    if (posted == nullptr || posted->visible_at >= forecast.send_landing - forecast.tolerance_s())
      return;
  }
  bool as_forecast = forecast.send_later == 0 && (posted != nullptr) == (forecast.send_event != 0);
  if (as_forecast && posted != nullptr)
    as_forecast = std::abs(posted->visible_at - forecast.send_landing) <= forecast.tolerance_s() &&
                  ipc::same_fields(posted->event, forecast.event);
  if (as_forecast)
    return;
  if (world_.put_forecast_misses++ == 0)
    XBT_WARN("rank %u's PtlPut did not go as its process forecast: its SEND event %s %.12g s, forecast %s %.12g s "
             "(a bug: please report it; counted in the report's put_forecasts)",
             op.rank, posted != nullptr ? "landed at" : "is none,", posted != nullptr ? posted->visible_at : 0.0,
             forecast.send_event != 0 ? "landing at" : (forecast.send_later != 0 ? "not before" : "none,"),
             forecast.send_landing);
}

void Nic::note_outcome(const InitiatorOp& op, const Message& answer)
{
  const double now = sim_now();
  if (answer.fail == ipc::FailKind::Ok) {
    world_.livelock.succeeded(now);
    return;
  }
  static const char* const kCalls[] = {"PtlPut", "PtlGet", "PtlAtomic", "PtlFetchAtomic"};
  world_.livelock.failed(now, op.rank,
                         std::string(kCalls[static_cast<int>(op.op)]) + " to node " + std::to_string(answer.src_nid) +
                             " portal " + std::to_string(op.pt_index) + ", failing with " +
                             portals::fail_name(answer.fail));
}

void Nic::release_put_buffer(InitiatorOp& op)
{
  release_md(world_, op, op.put.handle, op.put_released);
}

void Nic::release_buffers(InitiatorOp& op)
{
  release_md(world_, op, op.put.handle, op.put_released);
  release_md(world_, op, op.get.handle, op.get_released);
}

void Nic::handle_response(MessagePtr message)
{
  if (not accept_response(*message))
    return; // a BXI ACK, or a duplicate acknowledged again
  complete_operation(message);
  if (message->reliable)
    send_bxi_ack(*message); // once the response is handled: nothing needs it any more
}

// The final answer of an operation: its response, or what stands for it (a
// BXI ACK when no Portals ACK is owed, a quick ACK, the E2E failure).
void Nic::complete_operation(MessagePtr message)
{
  InitiatorOp& op = *message->op;
  if (op.completed)
    return; // a late answer to an operation that failed or was answered already
  op.completed = true;
  const MemoryWork::ReleasedAtExit done{op.initiator_memory}; // the reply data, if any, lands below
  note_outcome(op, *message);
  RankPortals& rank = world_.ranks[op.rank];
  portals::NetworkInterface* ni = rank.alive ? rank.ni(op.ni_slot) : nullptr;
  if (ni == nullptr)
    return;
  release_buffers(op);

  // The SEND event of a payload too large to stay in the NIC comes with the
  // response: the buffer was in use until then.
  if (op.sends_data())
    deliver_send_event(op, message->fail);

  if (message->kind == Message::Kind::GetResponse) {
    touch_memory(rank);
    ipc::FailKind fail = message->fail;
    write_to_host(rank, op.get.region, op.get.offset, message->payload, message->mlength, fail);
    const bool success = fail == ipc::FailKind::Ok;
    if (not(success && (op.get.md.options & kMDEventSuccessDisable) != 0)) {
      ipc::Event event = initiator_event(op, ipc::EventKind::Reply, fail);
      event.mlength = message->mlength;
      event.rlength = op.length;
      event.remote_offset = message->offset;
      portals::post_event(rank, *ni, op.get.md.eq, event);
    }
    count(rank, *ni, op.get, kMDEventCtReply, success, message->mlength);
    return;
  }

  // An acknowledgment: what the initiator asked for, unless the target's
  // entry disabled it (then only the BXI-level ack came back).
  if (not message->portals_ack)
    return;
  const ipc::FailKind fail = message->fail;
  const bool success = fail == ipc::FailKind::Ok;
  switch (op.ack_req) {
    case ipc::AckRequest::Ack:
      if (not(success && (op.put.md.options & kMDEventSuccessDisable) != 0)) {
        ipc::Event event = initiator_event(op, ipc::EventKind::Ack, fail);
        event.overflow_list = message->overflow_list ? 1 : 0;
        event.mlength = message->mlength;
        event.rlength = op.length;
        event.remote_offset = message->offset;
        portals::post_event(rank, *ni, op.put.md.eq, event);
      }
      count(rank, *ni, op.put, kMDEventCtAck, success, message->mlength);
      break;
    case ipc::AckRequest::CtAck: count(rank, *ni, op.put, kMDEventCtAck, success, message->mlength); break;
    case ipc::AckRequest::OcAck:
      // Operation completed: says the target is done with the message, not
      // what it did with it, and counts operations only; an operation that
      // never reached the target (E2E gave up) counts as a failure.
      if ((op.put.md.options & kMDEventCtAck) != 0) {
        const bool reached = fail != ipc::FailKind::Undeliverable;
        portals::post_counter(rank, *ni, op.put.md.ct, reached ? 1 : 0, reached ? 0 : 1);
      }
      break;
    case ipc::AckRequest::None: break;
  }
}

} // namespace s4bxi::nic
