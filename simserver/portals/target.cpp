// The target side of the NIC: what happens when a request arrives (Portals 4.1,
// sections 3.12-3.15 and the flow-control rules of 2.x): matching in the
// priority then the overflow list, flow control, the data movement (atomics
// applied as a read-modify-write of the target's memory), the full and
// counting events, the unexpected-header record and the response.
// Nic::handle_request is the NIC's (nic/nic.hpp, called by its RX engine), but
// what it does is Portals semantics: it lives with them, above the NIC model,
// which knows none of the rules it applies.
#include "../nic/nic.hpp"

#include "atomics.hpp"
#include "event_delivery.hpp"
#include "lists.hpp"
#include "matching.hpp"

#include <xbt/log.h>

#include <algorithm>
#include <span>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_nic);

namespace s4bxi::nic {

using portals::Operation;
using namespace ipc::option;

namespace {

ipc::EventKind arrival_event(Operation operation)
{
  switch (operation) {
    case Operation::Put: return ipc::EventKind::Put;
    case Operation::Get: return ipc::EventKind::Get;
    case Operation::Atomic: return ipc::EventKind::Atomic;
    case Operation::FetchAtomic: return ipc::EventKind::FetchAtomic;
  }
  return ipc::EventKind::Put;
}

// Whether the entry reports an arrival with a full event.
bool comm_event_wanted(uint32_t options, bool success)
{
  return (options & kEntryEventCommDisable) == 0 && not(success && (options & kEntryEventSuccessDisable) != 0);
}

// Resource exhaustion on a flow-controlled portal table entry: it disables
// itself and says so in its EQ, in the slot every EQ keeps for that (the
// entry that could not take the message may silence the event).
void disable_for_flow_control(RankPortals& target, portals::NetworkInterface& ni, portals::PortalTableEntry& pt,
                              const Message& message, const portals::ListEntry* entry)
{
  pt.enabled = false;
  if (entry != nullptr && (entry->entry.options & kEntryEventFlowctrlDisable) != 0)
    return;
  const auto& header = message.header;
  ipc::Event event{};
  event.type = ipc::EventKind::PtDisabled;
  event.ni_fail_type = ipc::FailKind::PtDisabled;
  event.user_ptr = entry != nullptr ? entry->user_ptr : 0;
  event.hdr_data = message.hdr_data;
  event.match_bits = header.match_bits;
  event.rlength = header.rlength;
  event.remote_offset = header.remote_offset;
  event.initiator = ni.logical ? ipc::ProcessId{header.initiator_rank, 0} : header.initiator;
  event.uid = header.uid;
  event.pt_index = message.pt_index;
  portals::post_event(target, ni, pt.eq, event, /*reserved=*/true);
}

} // namespace

void Nic::handle_request(MessagePtr message)
{
  if (not accept_request(*message))
    return; // a duplicate, answered again but not applied twice
  // Handled: the target's memory is touched below, or never.
  const MemoryWork::ReleasedAtExit handled{message->target_memory};
  const Operation operation = message->header.op;
  const bool returns_data = operation == Operation::Get || operation == Operation::FetchAtomic;
  auto fail_back = [&](ipc::FailKind fail) {
    respond(*message, returns_data ? Message::Kind::GetResponse : Message::Kind::Ack, fail, 0, 0,
            message->ack_req != ipc::AckRequest::None, false);
  };
  RankPortals* target = world_.find(portals_nid(node_.nid), message->dst_pid);
  portals::NetworkInterface* ni = target && target->alive ? target->ni(message->ni_slot) : nullptr;
  if (target != nullptr)
    touch_memory(*target);
  if (ni == nullptr) {
    fail_back(ipc::FailKind::Undeliverable);
    return;
  }
  if (message->pt_index >= ni->portal_table.size() || not ni->portal_table[message->pt_index].allocated) {
    ni->drop_count++;
    fail_back(ipc::FailKind::Dropped);
    return;
  }
  auto& pt = ni->portal_table[message->pt_index];
  if (not pt.enabled) {
    ni->drop_count++;
    fail_back(ipc::FailKind::PtDisabled);
    return;
  }
  const bool flow_control = (pt.options & kPTFlowControl) != 0;

  const auto& header = message->header;
  portals::ListEntry* entry = nullptr;
  uint32_t entry_index = 0;
  portals::Placement placement;
  ipc::ListKind list_kind = ipc::ListKind::Priority;
  for (auto* list : {&pt.priority, &pt.overflow}) {
    for (uint32_t index : *list) {
      portals::ListEntry* candidate = ni->entries.find(index);
      if (candidate == nullptr || not portals::entry_accepts(*candidate, header, ni->logical))
        continue;
      if (auto where = portals::place(*candidate, header)) {
        entry = candidate;
        entry_index = index;
        placement = *where;
        break;
      }
    }
    if (entry != nullptr)
      break;
    list_kind = ipc::ListKind::Overflow;
  }
  if (entry == nullptr) {
    ni->drop_count++;
    if (flow_control) {
      disable_for_flow_control(*target, *ni, pt, *message, nullptr);
      fail_back(ipc::FailKind::PtDisabled);
    } else {
      fail_back(ipc::FailKind::Dropped);
    }
    return;
  }

  const auto& e = entry->entry;
  const bool overflow = list_kind == ipc::ListKind::Overflow;
  const bool keeps_header = overflow && (e.options & kEntryUnexpectedHdrDisable) == 0;
  if (flow_control) {
    // No room for the event this delivery owes, or for its unexpected header:
    // the message is not delivered and the entry disables itself.
    const bool event_due = comm_event_wanted(e.options, true) && pt.eq != ipc::kHandleNone;
    const bool no_event_room = event_due && portals::eq_full(*ni, pt.eq);
    const bool no_header_room =
        keeps_header && ni->unexpected_headers >= static_cast<uint64_t>(ni->limits.max_unexpected_headers);
    if (no_event_room || no_header_room) {
      ni->drop_count++;
      disable_for_flow_control(*target, *ni, pt, *message, entry);
      fail_back(ipc::FailKind::PtDisabled);
      return;
    }
  }

  // The lists see the message before anything below may yield to SimGrid (a
  // PCIe transfer, an event's notification, a response queued): a
  // PtlMEAppend, PtlMESearch or another RX engine running meanwhile at the
  // same simulated time must find its unexpected header and the entry's new
  // local offset (Portals 4.1: appending to the priority list and searching
  // the unexpected list are atomic with respect to arriving messages).
  if (keeps_header) {
    portals::UnexpectedHeader kept;
    kept.op = operation;
    kept.atomic_op = message->atomic_op;
    kept.atomic_type = message->atomic_type;
    kept.match_bits = header.match_bits;
    kept.rlength = header.rlength;
    kept.mlength = placement.mlength;
    kept.remote_offset = header.remote_offset;
    kept.hdr_data = message->hdr_data;
    kept.start = portals::address_in(*entry, placement.offset);
    kept.initiator = header.initiator;
    kept.initiator_rank = header.initiator_rank;
    kept.uid = header.uid;
    kept.owner = entry->serial;
    pt.unexpected.push_back(kept);
    ni->unexpected_headers++;
  }
  if ((e.options & kEntryManageLocal) != 0)
    entry->local_offset = placement.offset + placement.mlength;
  // What the rest needs of the entry, taken now: the program may unlink it
  // while this engine waits for a transfer.
  const uint32_t entry_options = e.options;
  const ipc::Handle entry_ct = e.ct;
  const uint64_t entry_serial = entry->serial;
  const uint64_t entry_user_ptr = entry->user_ptr;
  const uint64_t event_start = portals::address_in(*entry, placement.offset);
  const portals::MemoryRegion entry_region = entry->region;
  const bool unlinks = portals::unlinks_after(*entry);

  ipc::FailKind fail = ipc::FailKind::Ok;
  nic::PayloadBytes reply_payload;
  switch (operation) {
    case Operation::Put:
      write_to_host(*target, entry_region, placement.offset, message->payload, placement.mlength, fail);
      break;
    case Operation::Get:
      // Captured now: once the GET event is out, the program may reuse the buffer.
      reply_payload.resize(placement.mlength);
      if (placement.mlength > 0 && not portals::read_region(target->os_pid, entry_region, placement.offset,
                                                            reply_payload.data(), params_.copied(placement.mlength))) {
        fail = ipc::FailKind::Segv;
        fill_rest_with_zeros(reply_payload, 0);
      } else {
        fill_rest_with_zeros(reply_payload, params_.copied(placement.mlength));
      }
      break;
    case Operation::Atomic:
    case Operation::FetchAtomic: {
      // Read-modify-write at the time the RX engine handles the request: no
      // rank runs meanwhile (serialized execution), so it is atomic with
      // respect to every other access.
      std::vector<unsigned char> data(placement.mlength);
      if (placement.mlength > 0 && not portals::read_region(target->os_pid, entry_region, placement.offset,
                                                            data.data(), placement.mlength)) {
        fail = ipc::FailKind::Segv;
        break;
      }
      if (operation == Operation::FetchAtomic)
        reply_payload.assign(data.begin(), data.end());
      portals::atomics::apply(message->atomic_op, message->atomic_type, data,
                              std::span<const unsigned char>(message->payload.data(),
                                                             std::min<size_t>(message->payload.size(), data.size())),
                              message->operand);
      write_to_host(*target, entry_region, placement.offset, data, placement.mlength, fail);
      break;
    }
  }

  const bool success = fail == ipc::FailKind::Ok;
  if (comm_event_wanted(entry_options, success)) {
    ipc::Event event{};
    // Arrival in an overflow entry is a plain event flagged with the list;
    // *_OVERFLOW events belong to the later append or search that finds the
    // header.
    event.type = arrival_event(operation);
    event.overflow_list = overflow ? 1 : 0;
    event.start = event_start;
    event.user_ptr = entry_user_ptr;
    event.hdr_data = message->hdr_data;
    event.match_bits = header.match_bits;
    event.rlength = header.rlength;
    event.mlength = placement.mlength;
    event.remote_offset = placement.offset;
    event.initiator = ni->logical ? ipc::ProcessId{header.initiator_rank, 0} : header.initiator;
    event.uid = header.uid;
    event.pt_index = message->pt_index;
    event.ni_fail_type = fail;
    if (operation == Operation::Atomic || operation == Operation::FetchAtomic) {
      event.atomic_operation = static_cast<uint8_t>(message->atomic_op);
      event.atomic_type = static_cast<uint8_t>(message->atomic_type);
    }
    portals::post_event(*target, *ni, pt.eq, event);
  }

  // Unless the program unlinked it meanwhile (then its slot is free, or
  // holds another entry).
  const portals::ListEntry* still = ni->entries.find(entry_index);
  if (unlinks && still != nullptr && still->serial == entry_serial)
    portals::auto_unlink(*target, *ni, pt, entry_index);

  // Counted last: a count may release triggered operations, which must see
  // the data and the entry's fate.
  if ((entry_options & kEntryEventCtComm) != 0) {
    const uint64_t amount = (entry_options & kEntryEventCtBytes) != 0 ? placement.mlength : 1;
    portals::post_counter(*target, *ni, entry_ct, success ? amount : 0, success ? 0 : 1);
  }

  if (returns_data) {
    respond(*message, Message::Kind::GetResponse, fail, placement.mlength, placement.offset, false, overflow,
            std::move(reply_payload));
  } else {
    const bool wants_ack =
        message->ack_req != ipc::AckRequest::None && (entry_options & kEntryAckDisable) == 0;
    respond(*message, Message::Kind::Ack, fail, placement.mlength, placement.offset, wants_ack, overflow);
  }
}

} // namespace s4bxi::nic
