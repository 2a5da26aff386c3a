#include "nic.hpp"

#include "../job/rank_memory.hpp"
#include "../model_options.hpp"
#include "../portals/event_delivery.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_nic, "The BXI NIC model: TX and RX engines");

namespace s4u = simgrid::s4u;

namespace s4bxi::nic {

using portals::Operation;
using namespace ipc::option;

namespace {

constexpr uint64_t kPciePacketBytes = 512; // BXI's usual PCIe packet size

uint64_t wire_bytes(uint64_t payload)
{
  return static_cast<uint64_t>(options::header_bytes()) +
         static_cast<uint64_t>(std::ceil(static_cast<double>(payload) / options::link_payload_efficiency()));
}

// A PCIe transfer that runs in the background (posted writes, DMA reads that
// overlap with the wire): it loads the bus but nobody waits for it. Below one
// PCIe packet its load is negligible and its latency is on no path, so it is
// not simulated at all (it would cost a SimGrid activity per small message).
void background_pcie(s4u::Host* from, s4u::Host* to, uint64_t bytes)
{
  if (bytes < kPciePacketBytes)
    return;
  s4u::Comm::sendto_init(from, to)->set_payload_size(bytes)->detach();
}

} // namespace

Nic::Nic(World& world, const platform::Node& node) : world_(world), node_(node)
{
  for (int vn = 0; vn < kVirtualNetworks; ++vn) {
    queues_[vn] = std::make_unique<CommandQueue<Message*>>(options::command_queue_depth());
    inboxes_[vn] = s4u::Mailbox::by_name(node.nic->get_name() + "_vn" + std::to_string(vn));
  }
}

void Nic::start()
{
  for (int vn = 0; vn < kVirtualNetworks; ++vn) {
    auto network = static_cast<VirtualNetwork>(vn);
    s4u::Actor::create(node_.nic->get_name() + "_tx" + std::to_string(vn), node_.nic,
                       [this, network] { tx_loop(network); })
        ->daemonize();
    auto rx = s4u::Actor::create(node_.nic->get_name() + "_rx" + std::to_string(vn), node_.nic,
                                 [this, network] { rx_loop(network); });
    rx->daemonize();
    // A permanent receiver lets messages flow in while the RX engine is busy.
    inboxes_[vn]->set_receiver(rx);
  }
}

void Nic::submit(std::unique_ptr<Message> message, uint64_t pio_bytes)
{
  if (options::model_pci_commands()) {
    if (pio_bytes > 0) // PIO: payload to the NIC's scratch memory, fence, then the command
      s4u::Comm::sendto(node_.cpu, node_.nic, pio_bytes);
    s4u::Comm::sendto(node_.cpu, node_.nic, static_cast<uint64_t>(options::header_bytes()));
  }
  queue(message->network()).push(message.release());
}

void Nic::tx_loop(VirtualNetwork network)
{
  auto& commands = queue(network);
  while (true) {
    Message* message = commands.pop();
    transmit(message);
    commands.release_slot();
  }
}

void Nic::transmit(Message* message)
{
  const uint64_t length = message->payload_captured ? message->payload.size() : message->op->length;
  if (not message->payload_captured) {
    message->payload.resize(length);
    if (not job::read_rank_memory(message->payload_pid, message->payload_address, message->payload.data(), length))
      XBT_WARN("rank memory at 0x%llx (%llu bytes) could not be read; sending zeros",
               static_cast<unsigned long long>(message->payload_address), static_cast<unsigned long long>(length));
    message->payload_captured = true;
  }
  s4u::CommPtr dma_read;
  if (message->needs_dma_read && length > 0) {
    // A DMA read: the request crosses PCIe, then the data streams back. The
    // wire transfer is pipelined with it but cannot start before the first
    // PCIe packet has arrived (thesis 4.3.3).
    s4u::this_actor::sleep_for(options::pci_latency_s());
    dma_read = s4u::Comm::sendto_async(node_.cpu, node_.nic, length);
    const double first_packet = static_cast<double>(std::min<uint64_t>(length, kPciePacketBytes));
    s4u::this_actor::sleep_for(options::pci_latency_s() + first_packet / options::pci_transfer_cap_Bps());
  }
  s4u::this_actor::sleep_for(options::nic_tx_delay_s());

  // Once put on the wire, the message belongs to the receiving RX engine.
  const bool early_send =
      message->kind == Message::Kind::Put && length <= static_cast<uint64_t>(options::early_send_limit());
  std::shared_ptr<InitiatorOp> op = message->op;
  const uint64_t bytes_on_wire = wire_bytes(length);
  auto kind_index = static_cast<int>(message->kind);
  world_.nics[message->dst_nid]->inbox(message->network())->put_init(message, bytes_on_wire)->detach();
  statistics_.messages_sent[kind_index]++;
  statistics_.payload_bytes_sent += length;
  statistics_.wire_bytes_sent += bytes_on_wire;

  if (early_send && op) {
    // Small payloads stay in the NIC's E2E context: the buffer is reusable now.
    deliver_send_event(*op, ipc::FailKind::Ok);
    op->send_event_sent = true;
  }
  if (dma_read)
    dma_read->wait();
}

void Nic::rx_loop(VirtualNetwork network)
{
  auto* mailbox = inbox(network);
  const double delay =
      network == VirtualNetwork::Request ? options::nic_rx_delay_s() : options::nic_response_delay_s();
  while (true) {
    std::unique_ptr<Message> message(mailbox->get<Message>());
    s4u::this_actor::sleep_for(delay);
    if (network == VirtualNetwork::Request)
      handle_request(std::move(message));
    else
      handle_response(std::move(message));
  }
}

void Nic::respond(const Message& request, Message::Kind kind, ipc::FailKind fail, uint64_t mlength, uint64_t offset,
                  bool portals_ack, std::vector<unsigned char> payload)
{
  auto response = std::make_unique<Message>();
  response->kind = kind;
  response->src_nid = node_.nid;
  response->dst_nid = request.src_nid;
  response->op = request.op;
  response->fail = fail;
  response->mlength = mlength;
  response->offset = offset;
  response->portals_ack = portals_ack;
  response->payload = std::move(payload);
  response->needs_dma_read = kind == Message::Kind::GetResponse; // Get responses always use DMA
  // Responses are generated by the NIC itself: no PCIe command write.
  queue(VirtualNetwork::Response).push(response.release());
}

void Nic::write_to_host(pid_t pid, uint64_t address, const std::vector<unsigned char>& bytes, uint64_t length,
                        ipc::FailKind& fail)
{
  if (length == 0)
    return;
  // The bytes land in memory now, so that no event about them can be seen
  // before them; the PCIe write itself is modelled in the background.
  if (not job::write_rank_memory(pid, address, bytes.data(), length))
    fail = ipc::FailKind::Segv;
  background_pcie(node_.nic, node_.cpu, length);
}

void Nic::handle_request(std::unique_ptr<Message> message)
{
  const bool is_put = message->kind == Message::Kind::Put;
  auto fail_back = [&](ipc::FailKind fail) {
    respond(*message, is_put ? Message::Kind::Ack : Message::Kind::GetResponse, fail, 0, 0,
            message->ack_req != ipc::AckRequest::None);
  };
  RankPortals* target = world_.find(node_.nid, message->dst_pid);
  portals::NetworkInterface* ni = target && target->alive ? target->ni(message->ni_slot) : nullptr;
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
    fail_back(ipc::FailKind::Dropped);
    return;
  }

  const auto& e = entry->entry;
  ipc::FailKind fail = ipc::FailKind::Ok;
  std::vector<unsigned char> reply_payload;
  if (is_put) {
    write_to_host(target->os_pid, e.start + placement.offset, message->payload, placement.mlength, fail);
  } else if (placement.mlength > 0) {
    // Captured now: once the GET event is out, the program may reuse the buffer.
    reply_payload.resize(placement.mlength);
    if (not job::read_rank_memory(target->os_pid, e.start + placement.offset, reply_payload.data(),
                                  placement.mlength))
      fail = ipc::FailKind::Segv;
  }

  const bool overflow = list_kind == ipc::ListKind::Overflow;
  const bool success = fail == ipc::FailKind::Ok;
  const bool comm_events = (e.options & kEntryEventCommDisable) == 0 &&
                           not(success && (e.options & kEntryEventSuccessDisable) != 0) &&
                           not(overflow && (e.options & kEntryEventOverDisable) != 0);
  if (comm_events) {
    ipc::Event event{};
    // Arrival in an overflow entry is a plain PUT/GET flagged with the list;
    // *_OVERFLOW events belong to the later append that finds the header.
    event.type = is_put ? ipc::EventKind::Put : ipc::EventKind::Get;
    event.overflow_list = overflow ? 1 : 0;
    event.start = e.start + placement.offset;
    event.user_ptr = entry->user_ptr;
    event.hdr_data = message->hdr_data;
    event.match_bits = header.match_bits;
    event.rlength = header.rlength;
    event.mlength = placement.mlength;
    event.remote_offset = placement.offset;
    event.initiator = ni->logical ? ipc::ProcessId{header.initiator_rank, 0} : header.initiator;
    event.uid = header.uid;
    event.pt_index = message->pt_index;
    event.ni_fail_type = fail;
    portals::post_event(*target, *ni, pt.eq, event);
  }
  const bool count = overflow ? (e.options & kEntryEventCtOverflow) != 0 : (e.options & kEntryEventCtComm) != 0;
  if (count) {
    uint64_t amount = (e.options & kEntryEventCtBytes) != 0 ? placement.mlength : 1;
    portals::post_counter(*target, *ni, e.ct, success ? amount : 0, success ? 0 : 1);
  }

  if (overflow && (e.options & kEntryUnexpectedHdrDisable) == 0) {
    portals::UnexpectedHeader kept;
    kept.is_put = is_put;
    kept.match_bits = header.match_bits;
    kept.rlength = header.rlength;
    kept.mlength = placement.mlength;
    kept.remote_offset = header.remote_offset;
    kept.hdr_data = message->hdr_data;
    kept.start = e.start + placement.offset;
    kept.initiator = header.initiator;
    kept.initiator_rank = header.initiator_rank;
    kept.uid = header.uid;
    pt.unexpected.push_back(kept);
  }
  if ((e.options & kEntryManageLocal) != 0)
    entry->local_offset = placement.offset + placement.mlength;
  if (portals::unlinks_after(*entry)) {
    auto& list = entry->list == ipc::ListKind::Priority ? pt.priority : pt.overflow;
    list.remove(entry_index);
    if ((e.options & kEntryEventUnlinkDisable) == 0) {
      ipc::Event event{};
      event.type = ipc::EventKind::AutoUnlink;
      event.user_ptr = entry->user_ptr;
      event.pt_index = message->pt_index;
      portals::post_event(*target, *ni, pt.eq, event);
    }
    ni->entries.erase(entry_index);
  }

  if (is_put) {
    const bool wants_ack = message->ack_req != ipc::AckRequest::None && (e.options & kEntryAckDisable) == 0;
    respond(*message, Message::Kind::Ack, fail, placement.mlength, placement.offset, wants_ack);
  } else {
    respond(*message, Message::Kind::GetResponse, fail, placement.mlength, placement.offset, false,
            std::move(reply_payload));
  }
}

void Nic::deliver_send_event(const InitiatorOp& op, ipc::FailKind fail)
{
  RankPortals& rank = world_.ranks[op.rank];
  portals::NetworkInterface* ni = rank.ni(op.ni_slot);
  if (ni == nullptr)
    return;
  const bool success = fail == ipc::FailKind::Ok;
  if ((op.md.options & kMDEventSendDisable) == 0 && not(success && (op.md.options & kMDEventSuccessDisable) != 0)) {
    ipc::Event event{};
    event.type = ipc::EventKind::Send;
    event.user_ptr = op.user_ptr;
    event.mlength = op.length;
    event.match_bits = op.match_bits;
    event.pt_index = op.pt_index;
    event.ni_fail_type = fail;
    portals::post_event(rank, *ni, op.md.eq, event);
  }
  if ((op.md.options & kMDEventCtSend) != 0) {
    uint64_t amount = (op.md.options & kMDEventCtBytes) != 0 ? op.length : 1;
    portals::post_counter(rank, *ni, op.md.ct, success ? amount : 0, success ? 0 : 1);
  }
}

void Nic::handle_response(std::unique_ptr<Message> message)
{
  InitiatorOp& op = *message->op;
  RankPortals& rank = world_.ranks[op.rank];
  portals::NetworkInterface* ni = rank.alive ? rank.ni(op.ni_slot) : nullptr;
  if (ni == nullptr)
    return;
  if (auto decoded = portals::decode_handle(op.md_handle))
    if (auto* md = ni->mds.find(decoded->index); md != nullptr && md->operations_in_flight > 0)
      md->operations_in_flight--;

  ipc::FailKind fail = message->fail;
  const bool ack = message->kind == Message::Kind::Ack;
  if (not ack)
    write_to_host(rank.os_pid, op.md.start + op.local_offset, message->payload, message->mlength, fail);
  const bool success = fail == ipc::FailKind::Ok;

  if (ack && not op.send_event_sent)
    deliver_send_event(op, fail);

  const bool event_wanted = ack ? (message->portals_ack && op.ack_req == ipc::AckRequest::Ack) : true;
  if (event_wanted && not(success && (op.md.options & kMDEventSuccessDisable) != 0)) {
    ipc::Event event{};
    event.type = ack ? ipc::EventKind::Ack : ipc::EventKind::Reply;
    event.user_ptr = op.user_ptr;
    event.mlength = message->mlength;
    event.rlength = op.length;
    event.remote_offset = message->offset;
    event.match_bits = op.match_bits;
    event.pt_index = op.pt_index;
    event.ni_fail_type = fail;
    portals::post_event(rank, *ni, op.md.eq, event);
  }
  const uint32_t ct_option = ack ? kMDEventCtAck : kMDEventCtReply;
  const bool counted = ack ? message->portals_ack && op.ack_req != ipc::AckRequest::None : true;
  if (counted && (op.md.options & ct_option) != 0) {
    uint64_t amount = (op.md.options & kMDEventCtBytes) != 0 ? message->mlength : 1;
    portals::post_counter(rank, *ni, op.md.ct, success ? amount : 0, success ? 0 : 1);
  }
}

} // namespace s4bxi::nic
