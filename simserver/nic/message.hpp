// What travels between NICs, and what an initiator NIC remembers about an
// operation until its response comes back. Since the simulation is one
// process, a message carries its payload bytes and a pointer to the initiator's
// context directly; only its simulated size crosses the simulated wire.
#pragma once

#include "../portals/matching.hpp"
#include "protocol.hpp"

#include <cstdint>
#include <memory>
#include <vector>

namespace s4bxi::nic {

// Virtual networks: requests and responses progress independently.
enum class VirtualNetwork { Request = 0, Response = 1 };
inline constexpr int kVirtualNetworks = 2;

struct InitiatorOp {
  unsigned rank = 0;
  uint32_t ni_slot = 0;
  ipc::Handle md_handle = ipc::kHandleInvalid;
  ipc::MemoryDescriptor md{}; // as bound when the operation started
  portals::Operation op = portals::Operation::Put;
  uint64_t local_offset = 0;
  uint64_t length = 0;
  uint64_t user_ptr = 0;
  ipc::AckRequest ack_req = ipc::AckRequest::Ack;
  ipc::ProcessId target{};
  uint32_t pt_index = 0;
  uint64_t match_bits = 0;
  bool send_event_sent = false; // SEND already delivered (small Put, at departure)
};

struct Message {
  enum class Kind { Put, Get, Ack, GetResponse } kind = Kind::Put;
  unsigned src_nid = 0;
  unsigned dst_nid = 0;
  uint32_t dst_pid = 0;
  uint32_t ni_slot = 0;
  uint32_t pt_index = 0;
  uint64_t hdr_data = 0;
  portals::IncomingHeader header{};
  ipc::AckRequest ack_req = ipc::AckRequest::Ack;
  std::shared_ptr<InitiatorOp> op;

  // Payload bytes. `payload_captured` is false for a DMA Put whose bytes the
  // TX engine reads from `payload_address` in `payload_pid` when it processes it.
  std::vector<unsigned char> payload;
  bool payload_captured = true;
  bool needs_dma_read = false; // the TX engine models a PCIe read of the payload
  uint64_t payload_address = 0;
  pid_t payload_pid = -1;

  // Responses.
  uint64_t mlength = 0;
  uint64_t offset = 0;
  ipc::FailKind fail = ipc::FailKind::Ok;
  bool portals_ack = false; // the initiator wants an ACK event (not only the BXI-level ack)

  [[nodiscard]] VirtualNetwork network() const
  {
    return kind == Kind::Put || kind == Kind::Get ? VirtualNetwork::Request : VirtualNetwork::Response;
  }
};

} // namespace s4bxi::nic
