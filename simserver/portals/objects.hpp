// The Portals objects of one network interface, as the server keeps them.
// Programs only ever see handles to these.
#pragma once

#include "memory_region.hpp"
#include "protocol.hpp"
#include "slot_table.hpp"

#include <cstdint>
#include <deque>
#include <list>
#include <optional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace s4bxi::nic {
class Nic;
struct Message;
} // namespace s4bxi::nic

namespace s4bxi::portals {

// What a request asks the target to do with its data. PtlSwap is a
// FetchAtomic whose operation is a swap.
enum class Operation { Put, Get, Atomic, FetchAtomic };

// An operation waiting on a counting event (the PtlTriggered* calls): it is
// released, by the NIC, when the counter's success + failure reaches
// `threshold`.
struct TriggeredOp {
  enum class Kind { Message, CTInc, CTSet };
  Kind kind = Kind::Message;
  uint64_t threshold = 0;
  uint64_t sequence = 0;                 // issue order, which breaks ties
  std::shared_ptr<nic::Message> message; // Message: ready to go, payload read when it leaves
  ipc::Handle ct = ipc::kHandleInvalid;  // CTInc, CTSet: the counter to update
  ipc::CTEvent value{};
};

// An event becomes visible to the program once the NIC's PCIe write of it has
// landed in host memory (`visible_at`, simulated seconds).
struct PendingEvent {
  double visible_at;
  ipc::Event event;
  double written_at; // when the NIC wrote it (for diagnostics)
};

struct EventQueue {
  size_t capacity = 0;
  std::deque<PendingEvent> events;
  bool dropped = false; // an event was lost because the queue was full
};

struct CountingEvent {
  ipc::CTEvent value{};
  // Increments whose PCIe write has not landed yet, in arrival order.
  struct Pending {
    double visible_at;
    ipc::CTEvent delta;
  };
  std::deque<Pending> pending;

  // Pending triggered operations, by (threshold, issue order).
  std::map<std::pair<uint64_t, uint64_t>, TriggeredOp> triggered;

  // Folds the increments that have landed by `now` into `value`.
  const ipc::CTEvent& at(double now)
  {
    while (not pending.empty() && pending.front().visible_at <= now) {
      value.success += pending.front().delta.success;
      value.failure += pending.front().delta.failure;
      pending.pop_front();
    }
    return value;
  }

  // The count as the NIC knows it: increments on their way to host memory
  // included (triggered operations live on the NIC).
  [[nodiscard]] uint64_t nic_count() const
  {
    uint64_t count = value.success + value.failure;
    for (const auto& increment : pending)
      count += increment.delta.success + increment.delta.failure;
    return count;
  }
};

// With PTL_IOVEC, md.length is the total length of the vector's segments.
struct MemoryDescriptor {
  ipc::MemoryDescriptor md{};
  MemoryRegion region;
  unsigned operations_in_flight = 0; // including pending triggered operations
};

// With PTL_IOVEC, entry.length is the total length of the vector's segments.
struct ListEntry {
  ipc::ListEntry entry{};
  MemoryRegion region;
  uint64_t serial = 0; // unique per NI, unlike the slot index
  uint64_t user_ptr = 0;
  uint32_t pt_index = 0;
  ipc::ListKind list = ipc::ListKind::Priority;
  bool matching = true;     // ME (true) or LE
  uint64_t local_offset = 0; // next offset for PTL_ME_MANAGE_LOCAL
  bool linked = true; // false: unlinked at append, its handle kept for PtlMEUnlink (api_lists.cpp)
};

// What the target knows about an incoming request: the header a message
// carries (nic/message.hpp), which matching reads (matching.hpp).
struct IncomingHeader {
  Operation op = Operation::Put;
  ipc::ProcessId initiator{};  // (nid, pid)
  uint32_t initiator_rank = 0; // logical rank of the initiator
  uint32_t uid = 0;
  uint64_t match_bits = 0;
  uint64_t rlength = 0;
  uint64_t remote_offset = 0;
};

// A message that landed in an overflow-list entry: the target remembers its
// header, so that a later priority-list append matching it can report where
// the data is (PTL_EVENT_PUT_OVERFLOW / GET_OVERFLOW).
struct UnexpectedHeader {
  Operation op = Operation::Put;
  ipc::AtomicOp atomic_op = ipc::AtomicOp::Min;
  ipc::AtomicType atomic_type = ipc::AtomicType::Int8;
  uint64_t match_bits = 0;
  uint64_t rlength = 0;
  uint64_t mlength = 0;
  uint64_t remote_offset = 0;
  uint64_t hdr_data = 0;
  uint64_t start = 0; // where the data is, in the overflow entry's buffer
  ipc::ProcessId initiator{}; // (nid, pid)
  uint32_t initiator_rank = 0;
  uint32_t uid = 0;
  uint64_t owner = 0; // serial of the overflow entry that holds the data
};

// An overflow entry that unlinked itself while unexpected headers still point
// into its buffer: PTL_EVENT_AUTO_FREE is due when the last one goes.
struct AwaitingFree {
  uint64_t user_ptr = 0;
  uint32_t options = 0;
};

struct PortalTableEntry {
  bool allocated = false;
  bool enabled = false;
  uint32_t options = 0;
  ipc::Handle eq = ipc::kHandleNone;
  std::list<uint32_t> priority; // entry indices, in append order
  std::list<uint32_t> overflow;
  std::list<UnexpectedHeader> unexpected; // oldest first
  std::map<uint64_t, AwaitingFree> awaiting_free; // by overflow entry serial
};

struct NetworkInterface {
  uint32_t slot = 0; // matching x logical, see handles.hpp
  bool matching = true;
  bool logical = true;
  unsigned references = 0; // PtlNIInit calls not yet matched by PtlNIFini
  ipc::NILimits limits{};
  std::vector<PortalTableEntry> portal_table;
  // The indices of its allocated entries, in no order: what every answer's
  // append permits look at (Api::write_append_permits), rather than the whole
  // table (256 entries and more, a few kB of cold memory per answer with 1,024 ranks).
  std::vector<uint32_t> allocated_pts;
  std::vector<ipc::ProcessId> map; // logical rank -> (nid, pid); empty until set
  SlotTable<EventQueue> eqs;
  SlotTable<CountingEvent> cts;
  SlotTable<MemoryDescriptor> mds;
  SlotTable<ListEntry> entries;
  // The indices of the next entries the process appends itself, in the order
  // it takes them (ipc::AppendPermit).
  std::deque<uint32_t> reserved_entries;
  uint64_t drop_count = 0;
  nic::Nic* nic = nullptr;          // of the rank's node
  uint64_t unexpected_headers = 0;  // over all portal table entries
  uint64_t next_entry_serial = 1;
  uint64_t next_trigger_sequence = 0;
  uint64_t triggered_ops = 0;       // pending, over all counters of this NI
};

} // namespace s4bxi::portals
