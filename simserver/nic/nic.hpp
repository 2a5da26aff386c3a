// The BXI NIC of one node (thesis, chapter 4): per virtual network a TX engine
// that consumes a command queue and puts messages on the wire, and an RX engine
// that receives from the wire, matches, moves data to host memory and emits
// events and responses. Each engine is a SimGrid actor on the node's NIC host.
#pragma once

#include "command_queue.hpp"
#include "message.hpp"
#include "traffic.hpp"
#include "../world.hpp"

#include <simgrid/s4u/Mailbox.hpp>

#include <array>
#include <memory>

namespace s4bxi::nic {

struct NicStatistics {
  uint64_t messages_sent[4] = {};    // by Message::Kind
  uint64_t payload_bytes_sent = 0;
  uint64_t wire_bytes_sent = 0;
  std::array<Traffic, trace::kMessageKinds> sent_by_kind{}; // indexed by trace::Kind
  uint64_t pcie_bytes_to_nic = 0;  // commands, PIO payloads, DMA reads
  uint64_t pcie_bytes_to_host = 0; // DMA writes of received data (events: RankStatistics::events_written)
};

class Nic {
public:
  Nic(World& world, const platform::Node& node);
  Nic(const Nic&) = delete;
  Nic& operator=(const Nic&) = delete;

  void start();

  // Called by a rank's proxy actor, on the node's CPU host: models the CPU
  // writing the command (and a PIO payload) over PCIe, then queues it.
  void submit(std::unique_ptr<Message> message, uint64_t pio_bytes);

  // Models the CPU writing one command over PCIe, for commands that the NIC
  // keeps instead of sending (a triggered operation being registered).
  void write_command();

  // Queues a message that the NIC issues itself (a released triggered
  // operation): no PCIe command write, no slot of the host's command queue.
  // Never blocks, so it may be called from any actor.
  void inject(std::unique_ptr<Message> message);

  [[nodiscard]] const NicStatistics& statistics() const { return statistics_; }

private:
  void tx_loop(VirtualNetwork network);
  void rx_loop(VirtualNetwork network);
  void transmit(Message* message);
  // Target side (target.cpp): matching, data, events, response.
  void handle_request(std::unique_ptr<Message> message);
  // Initiator side (initiator.cpp): reply data, SEND/ACK/REPLY events and counts.
  void handle_response(std::unique_ptr<Message> message);
  void respond(const Message& request, Message::Kind kind, ipc::FailKind fail, uint64_t mlength, uint64_t offset,
               bool portals_ack, std::vector<unsigned char> payload = {});
  // Writes `length` bytes at `offset` of `region` in process `pid`; sets
  // `fail` to PTL_NI_SEGV if the memory is not there.
  void write_to_host(pid_t pid, const portals::MemoryRegion& region, uint64_t offset,
                     const std::vector<unsigned char>& bytes, uint64_t length, ipc::FailKind& fail);
  void deliver_send_event(const InitiatorOp& op, ipc::FailKind fail);

  simgrid::s4u::Mailbox* inbox(VirtualNetwork network) { return inboxes_[static_cast<int>(network)]; }
  CommandQueue<Message*>& queue(VirtualNetwork network) { return *queues_[static_cast<int>(network)]; }

  World& world_;
  platform::Node node_;
  std::array<std::unique_ptr<CommandQueue<Message*>>, kVirtualNetworks> queues_;
  std::array<simgrid::s4u::Mailbox*, kVirtualNetworks> inboxes_{};
  NicStatistics statistics_;
};

} // namespace s4bxi::nic
