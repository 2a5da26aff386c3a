// What travels between NICs, and what an initiator NIC remembers about an
// operation until its response comes back. Since the simulation is one
// process, a message carries its payload bytes and a pointer to the initiator's
// context directly; only its simulated size crosses the simulated wire.
#pragma once

#include "../portals/memory_region.hpp"
#include "../portals/objects.hpp"
#include "landing_bounds.hpp"
#include "memory_work.hpp"
#include "payload_bytes.hpp"
#include "protocol.hpp"

#include <boost/intrusive_ptr.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace s4bxi::nic {

// Virtual networks: requests and responses progress independently.
enum class VirtualNetwork { Request = 0, Response = 1 };
inline constexpr int kVirtualNetworks = 2;

// One side of an operation at the initiator: the MD it sends from (put side)
// or receives into (get side), as bound when the operation started.
struct LocalBuffer {
  ipc::Handle handle = ipc::kHandleNone;
  ipc::MemoryDescriptor md{};
  portals::MemoryRegion region;
  uint64_t offset = 0;
};

struct InitiatorOp {
  unsigned rank = 0;
  uint32_t ni_slot = 0;
  portals::Operation op = portals::Operation::Put;
  LocalBuffer put; // Put and atomics: the data sent (SEND, ACK events)
  LocalBuffer get; // Get, FetchAtomic and Swap: where the reply lands (REPLY event)
  uint64_t length = 0;
  uint64_t user_ptr = 0;
  ipc::AckRequest ack_req = ipc::AckRequest::Ack;
  ipc::ProcessId target{};
  uint32_t pt_index = 0;
  uint64_t match_bits = 0;
  ipc::AtomicOp atomic_op = ipc::AtomicOp::Min; // atomics: reported in the events
  ipc::AtomicType atomic_type = ipc::AtomicType::Int8;
  bool send_event_sent = false; // SEND already delivered (small payload, at departure)
  bool put_released = false;     // the MD it sends from no longer counts it as in flight
  bool get_released = false;     // nor the MD its reply lands in
  bool completed = false;        // its last event is out (answer, failure): later answers are ignored
  // What the process took for its SEND event (a Put it queued with a
  // forecast, nic/put_forecast.hpp): checked when the event is written.
  std::optional<ipc::ForecastPut> forecast;
  // Held while the NIC may still read the initiator's memory (a DMA read of
  // the payload) or write it (a Get's or fetching atomic's reply data).
  MemoryWork initiator_memory;

  [[nodiscard]] bool sends_data() const { return op != portals::Operation::Get; }
  [[nodiscard]] bool receives_data() const
  {
    return op == portals::Operation::Get || op == portals::Operation::FetchAtomic;
  }
};

// A reference count that copies do not carry: a copy is another message.
struct RefCount {
  uint32_t count = 0;
  RefCount() = default;
  RefCount(const RefCount&) noexcept {}
  RefCount& operator=(const RefCount&) noexcept { return *this; }
};

struct Message {
  // Put is any request that carries a payload (PtlPut and the atomics); the
  // header's operation tells them apart. A BXI ACK acknowledges one message
  // for end-to-end reliability only (e2e.cpp); it is never acknowledged itself.
  enum class Kind { Put, Get, Ack, GetResponse, BxiAck } kind = Kind::Put;
  unsigned src_nid = 0; // node indices (World::nics), not Portals NIDs
  unsigned dst_nid = 0;
  uint32_t dst_pid = 0;
  uint32_t ni_slot = 0;
  uint32_t pt_index = 0;
  uint64_t hdr_data = 0;
  portals::IncomingHeader header{};
  ipc::AckRequest ack_req = ipc::AckRequest::Ack;
  std::shared_ptr<InitiatorOp> op;

  // Atomic requests.
  ipc::AtomicOp atomic_op = ipc::AtomicOp::Min;
  ipc::AtomicType atomic_type = ipc::AtomicType::Int8;
  std::array<unsigned char, ipc::kMaxAtomicOperand> operand{};

  // Payload bytes. `payload_captured` is false for a payload that the TX
  // engine reads from `payload_region` (at `payload_offset`) in `payload_pid`
  // when it processes the message (DMA).
  PayloadBytes payload;
  bool payload_captured = true;
  bool needs_dma_read = false; // the TX engine models a PCIe read of the payload
  portals::MemoryRegion payload_region;
  uint64_t payload_offset = 0;
  pid_t payload_pid = -1;
  // Issued by the NIC itself (a released triggered operation): it holds no
  // slot of the host's command queue.
  bool issued_by_nic = false;
  // A request, until its target's NIC has handled it (memory_work.hpp).
  MemoryWork target_memory;

  // Responses.
  uint64_t mlength = 0;
  uint64_t offset = 0;
  ipc::FailKind fail = ipc::FailKind::Ok;
  bool portals_ack = false; // the initiator wants an ACK (event or count), not only the BXI-level ack
  // The list of the entry that took the request (ACK events carry it: a
  // program tells an expected from an unexpected delivery by it).
  bool overflow_list = false;

  // End-to-end reliability (e2e.cpp). Sequence numbers count the messages of
  // one source NIC to one destination NIC.
  bool reliable = false;         // the sender's E2E keeps it until acknowledged: the receiver acknowledges it
  bool unreliable = false;       // a Put from a PTL_MD_UNRELIABLE MD: never made reliable, a loss is final
  bool sequenced = false;        // `seq` given (at the first transmission)
  bool duplicate_answer = false; // a kept response sent again for a duplicate request: not kept again
  uint64_t seq = 0;
  uint64_t floor = 0;            // every lower `seq` of the sender to this receiver is acknowledged or given up
  bool answers = false;          // `answered_seq` names the message this one acknowledges (responses, BXI ACKs)
  uint64_t answered_seq = 0;
  // A BXI ACK of a response: its handling only forgets the response, and
  // writes nothing to its node's host (LandingBounds).
  bool acknowledges_response = false;
  int retries = 0;               // retransmissions so far
  bool acked = false;            // acknowledged: a retransmission waiting in a TX queue is dropped
  RefCount refs;
  TransitMark transit; // among the messages on their way (landing_bounds.hpp)

  double sent_at = 0; // simulated time a TX engine put it on the wire (for the trace)
  double landed_at = 0; // simulated time it reached its destination's NIC (wire.hpp; for the trace)

  [[nodiscard]] VirtualNetwork network() const
  {
    return kind == Kind::Put || kind == Kind::Get ? VirtualNetwork::Request : VirtualNetwork::Response;
  }
};
inline constexpr int kMessageKinds = static_cast<int>(Message::Kind::BxiAck) + 1;

// Messages are shared: the E2E engine of the sender keeps a message it may
// have to send again while the receiver handles it (nobody changes a message
// once it is on the wire, but its E2E bookkeeping).
inline void intrusive_ptr_add_ref(Message* message)
{
  ++message->refs.count;
}
inline void intrusive_ptr_release(Message* message)
{
  if (--message->refs.count == 0)
    delete message;
}
using MessagePtr = boost::intrusive_ptr<Message>;

// The answer of the target's NIC to `request` (an ACK or a response), from
// the node `from` back to the request's sender.
inline MessagePtr response_to(const Message& request, unsigned from, Message::Kind kind, ipc::FailKind fail,
                              uint64_t mlength, uint64_t offset, bool portals_ack, bool overflow_list = false)
{
  MessagePtr response(new Message);
  response->kind = kind;
  response->src_nid = from;
  response->dst_nid = request.src_nid;
  response->op = request.op;
  response->fail = fail;
  response->mlength = mlength;
  response->offset = offset;
  response->portals_ack = portals_ack;
  response->overflow_list = overflow_list;
  return response;
}

} // namespace s4bxi::nic
