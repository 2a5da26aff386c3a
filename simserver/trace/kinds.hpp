// The kinds of things a run's trace records (docs/trace-format.md), after the
// event types of S4BXI's tracing system (thesis, 4.4). The message kinds come
// first: the report counts what each NIC sends by the same kinds.
#pragma once

#include <cstdint>

namespace s4bxi::trace {

enum class Kind : uint8_t {
  // Messages on the BXI wire, one per message a TX engine sends.
  Put,
  Get,
  Atomic,
  FetchAtomic, // PtlFetchAtomic and PtlSwap
  Ack,
  GetResponse,
  FetchAtomicResponse,
  BxiAck, // end-to-end reliability's acknowledgment of one message
  // NIC engines busy with one message, and end-to-end reliability's wait
  // for the acknowledgment of each message it keeps.
  Tx,
  Rx,
  E2e,
  // PCIe transfers between a node's CPU and its NIC.
  PcieCommand,  // the CPU writes a command
  PciePio,      // the CPU writes a payload (PIO)
  PcieDmaRead,  // the NIC reads a payload from host memory
  PcieDmaWrite, // the NIC writes received data to host memory
  PcieEvent,    // the NIC writes a full or counting event to host memory
  // What a rank does.
  Compute, // measured compute injected on the rank's CPU
  Call,    // a Portals call, from request to reply
  Wait,    // blocked in a wait: PtlEQWait, PtlCTWait, a poll with a timeout, a PMI barrier, a sleep
  Poll,    // time charged to empty polls, and polling blocked until something changes
  Count_
};

inline constexpr int kKinds = static_cast<int>(Kind::Count_);
inline constexpr int kMessageKinds = static_cast<int>(Kind::BxiAck) + 1;

inline constexpr bool is_message(Kind kind)
{
  return static_cast<int>(kind) < kMessageKinds;
}

inline constexpr bool is_pcie(Kind kind)
{
  return kind >= Kind::PcieCommand && kind <= Kind::PcieEvent;
}

inline constexpr bool on_rank_track(Kind kind)
{
  return kind >= Kind::Compute;
}

// The name in events.csv and trace.json ("PUT", "PCI_DMA_READ", ...).
inline constexpr const char* name(Kind kind)
{
  switch (kind) {
    case Kind::Put: return "PUT";
    case Kind::Get: return "GET";
    case Kind::Atomic: return "ATOMIC";
    case Kind::FetchAtomic: return "FETCH_ATOMIC";
    case Kind::Ack: return "ACK";
    case Kind::GetResponse: return "GET_RESPONSE";
    case Kind::FetchAtomicResponse: return "FETCH_ATOMIC_RESPONSE";
    case Kind::BxiAck: return "BXI_ACK";
    case Kind::Tx: return "TX";
    case Kind::Rx: return "RX";
    case Kind::E2e: return "E2E";
    case Kind::PcieCommand: return "PCI_COMMAND";
    case Kind::PciePio: return "PCI_PIO";
    case Kind::PcieDmaRead: return "PCI_DMA_READ";
    case Kind::PcieDmaWrite: return "PCI_DMA_WRITE";
    case Kind::PcieEvent: return "PCI_EVENT";
    case Kind::Compute: return "COMPUTE";
    case Kind::Call: return "CALL";
    case Kind::Wait: return "WAIT";
    case Kind::Poll: return "POLL";
    case Kind::Count_: break;
  }
  return "UNKNOWN";
}

} // namespace s4bxi::trace
