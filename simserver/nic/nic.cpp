#include "nic.hpp"

#include "../actor_sleep.hpp"
#include "../model_options.hpp"
#include "../portals/memory_region.hpp"
#include "../trace/recorder.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_nic, "The BXI NIC model: TX and RX engines");

namespace s4u = simgrid::s4u;

namespace s4bxi::nic {

namespace {

uint64_t wire_bytes(uint64_t payload)
{
  return static_cast<uint64_t>(options::header_bytes()) +
         static_cast<uint64_t>(std::ceil(static_cast<double>(payload) / options::link_payload_efficiency()));
}

// Counts a PCIe transfer for the report and traces it.
void account_pcie(NicStatistics& statistics, unsigned node, trace::Kind kind, int rank, uint64_t bytes,
                  double start, double end)
{
  (kind == trace::Kind::PcieDmaWrite ? statistics.pcie_bytes_to_host : statistics.pcie_bytes_to_nic) += bytes;
  if (trace::active != nullptr)
    trace::active->record({.kind = kind, .node = node, .rank = rank, .bytes = bytes, .start = start, .end = end});
}

} // namespace

Nic::Nic(World& world, Wire& wire, const platform::Node& node, std::shared_ptr<Faults> faults)
    : world_(world), wire_(wire), node_(node), params_(resolve_parameters(*node.nic, node.cpu)),
      faults_(std::move(faults))
{
  register_node_parameters(node.nid, params_);
  for (int vn = 0; vn < kVirtualNetworks; ++vn) {
    queues_[vn] = std::make_unique<CommandQueue<TxItem>>(params_.command_queue_depth, params_.tx_actors);
    rx_lanes_[vn].resize(static_cast<size_t>(params_.rx_actors));
    tx_in_maestro_[vn].resize(static_cast<size_t>(params_.tx_actors));
  }
  e2e_.wake = s4u::Semaphore::create(0);
  lost_on_the_way_ = [this](Message& lost, uint64_t bytes_on_wire) { lost_on_the_way(lost, bytes_on_wire); };
}

void Nic::start()
{
  // Several engines per virtual network share its work by peer: each TX lane
  // serves a fixed set of destinations and each RX lane a fixed set of
  // sources. So the messages of one NIC to another on one virtual network
  // leave and are handled in the order they were issued, as Portals requires
  // between two processes (a retransmission, though, comes after the
  // messages sent meanwhile); across peers there is no order.
  for (int vn = 0; vn < kVirtualNetworks; ++vn) {
    auto network = static_cast<VirtualNetwork>(vn);
    auto suffix = [vn](const char* engine, int lane, int lanes) {
      return std::string(engine) + std::to_string(vn) + (lanes > 1 ? "." + std::to_string(lane) : "");
    };
    for (int lane = 0; lane < params_.tx_actors; ++lane)
      s4u::Actor::create(node_.nic->get_name() + suffix("_tx", lane, params_.tx_actors), node_.nic,
                         [this, network, lane] { tx_loop(network, lane); })
          ->daemonize();
    for (int lane = 0; lane < params_.rx_actors; ++lane)
      s4u::Actor::create(node_.nic->get_name() + suffix("_rx", lane, params_.rx_actors), node_.nic,
                         [this, network, lane] { rx_loop(network, lane); })
          ->daemonize();
  }
  if (params_.e2e)
    s4u::Actor::create(node_.nic->get_name() + "_e2e", node_.nic, [this] { e2e_loop(); })->daemonize();
  s4u::Engine::on_simulation_end_cb([this] { log_e2e_statistics(); });
}

void Nic::submit(std::unique_ptr<Message> message, uint64_t pio_bytes)
{
  take_memory_work(*message);
  // A Put the process queued may come at the rank's time, later than the
  // clock (RankPortals::deferred_until): its writes start there.
  RankPortals* caller = message->op ? &world_.ranks[message->op->rank] : nullptr;
  if (params_.model_pci_commands) {
    const double at = caller != nullptr ? caller->time() : sim_now();
    const bool alone = writes_alone(*message, pio_bytes, at); // (lone_writes.cpp)
    if (not alone && caller != nullptr)
      caller->settle();
    double start = std::max(at, sim_now());
    if (pio_bytes > 0) { // PIO: payload to the NIC's scratch memory, fence, then the command
      // (Alone, the command follows at the payload's end: one sleep to the
      // command's end, lone_writes.cpp, and no date of its own for the fence.)
      double pio_end = 0;
      if (alone) {
        pio_end = lone_write_end(start, pio_bytes);
      } else {
        write_over_pcie(false, start, pio_bytes, caller);
        pio_end = sim_now();
      }
      account_pcie(statistics_, node_.nid, trace::Kind::PciePio, rank_of(*message), pio_bytes, start, pio_end);
      start = pio_end;
    }
    write_over_pcie(alone, start, static_cast<uint64_t>(options::header_bytes()), caller);
    account_pcie(statistics_, node_.nid, trace::Kind::PcieCommand, rank_of(*message),
                 static_cast<uint64_t>(options::header_bytes()), start, sim_now());
    lone_until_ = 0; // (the command is in: another write may begin)
  }
  if (caller != nullptr)
    caller->settle(); // (without PCIe commands modelled, the command is in at the rank's time)
  enqueue(MessagePtr(message.release()), true);
}

void Nic::enqueue(MessagePtr message, bool holds_slot)
{
  // On its way from now on (a message waiting for a slot is one a rank's
  // call creates: it cannot land before what LandingBounds allows for those).
  world_.landing.begin_tx(*message, sim_now());
  const int lane = tx_lane(*message);
  const VirtualNetwork network = message->network();
  auto& commands = queue(network);
  if (holds_slot)
    commands.take_slot(); // (may block: an actor's, or a push that cannot, Nic::handles_in_maestro)
  if (tx_in_maestro(network, lane, *message))
    start_tx_in_maestro(network, lane, {std::move(message), holds_slot});
  else
    commands.push_unbounded({std::move(message), holds_slot}, lane);
}

bool Nic::tx_in_maestro(VirtualNetwork network, int lane, const Message& message)
{
  // (Not while many messages are on their way: the engine would most likely
  // send it through a mailbox at the end of its delay anyway, after that
  // detour, which cost a 1,024-rank put ring 8% of its wall time.)
  return options::tx_in_maestro() && queue(network).consumer_idle(lane) && message.payload_captured &&
         not message.needs_dma_read && message.kind != Message::Kind::BxiAck && params_.tx_delay_s > 0 &&
         not may_lose_messages() && not world_.links_may_fail && not wire_.mailboxes_in_use();
}

void Nic::start_tx_in_maestro(VirtualNetwork network, int lane, TxItem item)
{
  // The engine takes it now and sleeps its delay: the simulation runs the
  // delay itself, and what is queued meanwhile waits for the engine.
  queue(network).hold(lane);
  item.started = sim_now();
  TxInMaestro& pending = tx_in_maestro_[static_cast<int>(network)][static_cast<size_t>(lane)];
  pending.item = std::move(item);
  pending.pending = true;
  pending.call = s4bxi::call_at(pending.item.started + params_.tx_delay_s,
                                [this, network, lane] { end_tx_in_maestro(network, lane); });
}

void Nic::end_tx_in_maestro(VirtualNetwork network, int lane)
{
  TxInMaestro& pending = tx_in_maestro_[static_cast<int>(network)][static_cast<size_t>(lane)];
  pending.pending = false;
  TxItem item = std::move(pending.item);
  auto& commands = queue(network);
  if (wire_.mailboxes_in_use()) {
    // Its engine's actor sends it (through a mailbox), at once: its delay ran.
    item.delay_ran = true;
    statistics_.tx_sent_back++;
    commands.release_hold(lane, &item);
    return;
  }
  if (not item.message->acked) // (else a retransmission acknowledged while it waited)
    transmit(item.message.get(), nullptr, &item.started);
  else
    world_.landing.ended(*item.message);
  world_.landing.end_tx(*item.message);
  statistics_.sent_from_maestro++;
  if (item.holds_slot)
    commands.release_slot();
  commands.release_hold(lane);
}

void Nic::write_command()
{
  if (params_.model_pci_commands) {
    const double start = sim_now();
    write_over_pcie(false, start, static_cast<uint64_t>(options::header_bytes()));
    account_pcie(statistics_, node_.nid, trace::Kind::PcieCommand, -1, static_cast<uint64_t>(options::header_bytes()),
                 start, sim_now());
  }
}

void Nic::inject(std::unique_ptr<Message> message)
{
  message->issued_by_nic = true;
  take_memory_work(*message);
  enqueue(MessagePtr(message.release()), false);
}

void Nic::tx_loop(VirtualNetwork network, int lane)
{
  auto& commands = queue(network);
  // Killed (the job's end) while the simulation ran its delay for it: that
  // message is never sent, as when the engine is killed in its own sleep.
  s4u::this_actor::on_exit([this, network, lane](bool) {
    TxInMaestro& pending = tx_in_maestro_[static_cast<int>(network)][static_cast<size_t>(lane)];
    if (pending.pending)
      s4bxi::cancel_call(pending.call);
    pending.pending = false;
  });
  while (true) {
    TxItem item = commands.pop(lane);
    if (not item.message->acked) // else a retransmission acknowledged while it waited
      transmit(item.message.get(), nullptr, item.delay_ran ? &item.started : nullptr);
    else
      world_.landing.ended(*item.message);
    world_.landing.end_tx(*item.message);
    if (item.holds_slot)
      commands.release_slot();
  }
}

void Nic::transmit(Message* message, const Message* acknowledged, const double* delay_ran_since)
{
  const double start = delay_ran_since != nullptr ? *delay_ran_since : sim_now();
  const uint64_t length = message->payload_captured ? message->payload.size() : message->op->length;
  if (not message->payload_captured && message->op && not world_.ranks[message->op->rank].alive) {
    // Its rank ended before the NIC read the payload: its memory is gone and
    // nobody is left to tell. Counted, and reported once at the end.
    statistics_.operations_dropped++;
    world_.landing.ended(*message); // never sent
    return;
  }
  if (not message->payload_captured) {
    if (message->op)
      touch_memory(world_.ranks[message->op->rank]);
    message->payload.resize(length);
    const uint64_t copied = params_.copied(length);
    const bool read = portals::read_region(message->payload_pid, message->payload_region, message->payload_offset,
                                           message->payload.data(), copied);
    fill_rest_with_zeros(message->payload, read ? copied : 0);
    if (not read)
      XBT_WARN("rank memory at offset %llu of its buffer (%llu bytes) could not be read; sending zeros",
               static_cast<unsigned long long>(message->payload_offset), static_cast<unsigned long long>(length));
    message->payload_captured = true;
  }
  auto dma_read = dma_reads_.end();
  if (message->needs_dma_read && length > 0) {
    // A DMA read: the request crosses PCIe, then the data streams back. The
    // wire transfer is pipelined with it but cannot start before the first
    // PCIe packet has arrived (thesis 4.3.3).
    s4bxi::sleep_for(params_.pci_latency_s);
    note_lone_overlap();
    dma_read = dma_reads_.insert(dma_reads_.end(), s4u::Comm::sendto_async(node_.cpu, node_.nic, length));
    const double first_packet = static_cast<double>(std::min<uint64_t>(length, kPciePacketBytes));
    s4bxi::sleep_for(params_.pci_latency_s + first_packet / params_.pci_transfer_cap_Bps);
  }
  if (message->kind != Message::Kind::BxiAck && delay_ran_since == nullptr) // (a BXI ACK has none: e2e.cpp)
    s4bxi::sleep_for(params_.tx_delay_s);

  // Once put on the wire, the message is shared with the receiving RX engine
  // (and kept by E2E until acknowledged): nothing changes it any more.
  const bool early_send = message->kind == Message::Kind::Put && length <= params_.early_send_limit;
  std::shared_ptr<InitiatorOp> op = message->op;
  const uint64_t bytes_on_wire = wire_bytes(length);
  auto kind_index = static_cast<int>(message->kind);
  const trace::Kind kind = kind_of(*message);
  const trace::Event traced{.kind = trace::Kind::Tx, .node = node_.nid, .rank = rank_of(*message),
                            .vn = static_cast<int>(message->network()), .bytes = length, .start = start,
                            .what = trace::name(kind), .dst = static_cast<int>(message->dst_nid),
                            .actor = tx_lane(*message), .retry = retry_of(*message),
                            .note = message->duplicate_answer ? "answer to a duplicate" : nullptr};
  message->sent_at = sim_now();
  send_on_wire(message, bytes_on_wire, acknowledged);
  statistics_.messages_sent[kind_index]++;
  statistics_.payload_bytes_sent += length;
  statistics_.wire_bytes_sent += bytes_on_wire;
  auto& traffic = statistics_.sent_by_kind[static_cast<int>(kind)];
  traffic.messages++;
  traffic.payload_bytes += length;
  traffic.wire_bytes += bytes_on_wire;

  // Small payloads stay in the NIC's E2E context: the buffer is reusable now,
  // and its MD may be released, whatever the NIC still does for reliability
  // (it retransmits from its own copy) and whether an acknowledgment is owed.
  if (early_send && op)
    deliver_send_event(*op, ipc::FailKind::Ok);
  if (dma_read != dma_reads_.end()) {
    (*dma_read)->wait();
    account_pcie(statistics_, node_.nid, trace::Kind::PcieDmaRead, traced.rank, length, start,
                 (*dma_read)->get_finish_time());
    dma_reads_.erase(dma_read);
  }
  if (trace::active != nullptr) {
    trace::Event busy = traced;
    busy.end = sim_now();
    trace::active->record(busy);
  }
  if (not message->reliable)
    sent_unreliably(*message);
}

void Nic::rx_loop(VirtualNetwork network, int lane)
{
  RxLane& received = rx_lanes_[static_cast<int>(network)][static_cast<size_t>(lane)];
  wire_.serve(received, rx_delay_s(network));
  if (options::acks_at_landing())
    received.handle_at_landing([this, network, lane](MessagePtr message) {
      const double landed = message->landed_at;
      handle_received(network, lane, std::move(message), landed, false);
    });
  if (options::rx_in_maestro())
    received.handle_in_maestro([this, network, lane](MessagePtr& message) {
      if (not handles_in_maestro(network))
        return false;
      const double landed = message->landed_at;
      handle_received(network, lane, std::move(message), landed, true);
      return true;
    });
  while (true) {
    MessagePtr message = received.next();
    handle_received(network, lane, std::move(message), received.taken_at(), received.delay_ran());
  }
}

bool Nic::handles_in_maestro(VirtualNetwork network) const
{
  // Nothing of the handling may block maestro: the response to a request
  // takes a slot of the command queue (one is free now, and nobody waits for
  // one), and what the handling sends goes host to host (where an actor
  // would take a mailbox, maestro has none). Not with faults (a lost message
  // is sent again from a handler of its own) nor quick ACKs (the target
  // completes the initiator's operation).
  if (may_lose_messages() || world_.links_may_fail || params_.quick_acks || wire_.mailboxes_in_use())
    return false;
  return network != VirtualNetwork::Request || not queues_[static_cast<int>(VirtualNetwork::Response)]->push_blocks();
}

void Nic::handle_received(VirtualNetwork network, int lane, MessagePtr message, double taken, bool delay_ran)
{
  trace::Event busy;
  if (trace::active != nullptr) {
    const uint64_t length = message->payload.size();
    trace::active->record(wire_event(*message, wire_bytes(length), message->sent_at, message->landed_at));
    busy = {.kind = trace::Kind::Rx, .node = node_.nid, .rank = rank_of(*message), .vn = static_cast<int>(network),
            .bytes = length, .start = taken, .what = trace::name(kind_of(*message)),
            .src = static_cast<int>(message->src_nid), .actor = lane, .retry = retry_of(*message)};
  }
  // (A BXI ACK only clears an E2E entry. A message handed over at the end
  // of the delay, s4bxi/lone-arrivals, is handled at once.)
  if (message->kind != Message::Kind::BxiAck && not delay_ran)
    s4bxi::sleep_until(taken + rx_delay_s(network));
  const MessagePtr handled = message; // on its way until every event of its handling is written
  {
    const RankPortals::NotificationsHeld held;
    if (network == VirtualNetwork::Request)
      handle_request(std::move(message));
    else
      handle_response(std::move(message));
    world_.landing.ended(*handled);
  }
  if (trace::active != nullptr) {
    busy.end = sim_now();
    trace::active->record(busy);
  }
}

void Nic::respond(const Message& request, Message::Kind kind, ipc::FailKind fail, uint64_t mlength, uint64_t offset,
                  bool portals_ack, bool overflow_list, PayloadBytes payload)
{
  if (kind == Message::Kind::Ack && not portals_ack) {
    // No Portals ACK is owed: the request needs its BXI ACK only (none
    // without E2E, and the initiator expects nothing then).
    if (request.reliable)
      send_bxi_ack(request);
    return;
  }
  if (kind == Message::Kind::Ack && params_.quick_acks) {
    quick_ack(request, fail, mlength, offset, overflow_list);
    return;
  }
  MessagePtr response = response_to(request, node_.nid, kind, fail, mlength, offset, portals_ack, overflow_list);
  response->payload = std::move(payload);
  response->needs_dma_read = kind == Message::Kind::GetResponse; // Get responses always use DMA
  if (request.reliable) {
    // The response acknowledges the request, and answers it again if it
    // comes again.
    response->answers = true;
    response->answered_seq = request.seq;
    e2e_.answers[request.src_nid][request.seq] = response;
  }
  // Responses are generated by the NIC itself: no PCIe command write.
  enqueue(std::move(response), true);
}

namespace {

// Whether `owner`'s process will copy these bytes itself when its main
// thread's call returns (job/staged_writes.hpp): one piece of memory, all of
// it copied, and no other thread of the process calling (one may look at the
// memory meanwhile).
bool staged_by_the_process(RankPortals& owner, const portals::MemoryRegion& region, uint64_t offset,
                           std::span<const unsigned char> bytes, uint64_t length, uint64_t copied)
{
  RankPortals& process = owner.process();
  if (not options::staged_writes() || not process.staged.is_open() || copied != length || bytes.size() < length ||
      process.calling_lanes != 0)
    return false;
  bool whole = false; // in the region's first piece
  uint64_t start = 0;
  region.for_each_piece(offset, length, [&](uint64_t address, uint64_t piece, uint64_t position) {
    whole = position == 0 && piece == length;
    start = address;
    return false; // (the first piece tells)
  });
  return whole && process.staged.stage(start, bytes.data(), length);
}

} // namespace

void Nic::write_to_host(RankPortals& owner, const portals::MemoryRegion& region, uint64_t offset,
                        std::span<const unsigned char> bytes, uint64_t length, ipc::FailKind& fail)
{
  if (length == 0)
    return;
  // The bytes land in memory now, so that no event about them can be seen
  // before them (or the process copies them before its call returns); the
  // PCIe write itself is modelled in the background.
  // Beyond s4bxi/max-memcpy the bytes are not copied (a performance option).
  const uint64_t copied = params_.copied(length);
  const pid_t pid = owner.process().os_pid;
  if (not staged_by_the_process(owner, region, offset, bytes, length, copied) &&
      (bytes.size() < length || not portals::write_region(pid, region, offset, bytes.data(), copied)))
    fail = ipc::FailKind::Segv;
  load_host_link(length); // (dma_writes.cpp)
  // In the background: in the trace it ends when it would alone on the bus.
  const double now = sim_now();
  account_pcie(statistics_, node_.nid, trace::Kind::PcieDmaWrite, trace::active ? trace::active->rank_of(pid) : -1,
               length, now,
               now + params_.pci_latency_s +
                   static_cast<double>(length) / std::min(params_.pci_bandwidth_Bps, params_.pci_transfer_cap_Bps));
}

} // namespace s4bxi::nic
