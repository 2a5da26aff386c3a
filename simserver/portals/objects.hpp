// The Portals objects of one network interface, as the server keeps them.
// Programs only ever see handles to these.
#pragma once

#include "protocol.hpp"
#include "slot_table.hpp"

#include <cstdint>
#include <deque>
#include <list>
#include <vector>

namespace s4bxi::portals {

// An event becomes visible to the program once the NIC's PCIe write of it has
// landed in host memory (`visible_at`, simulated seconds).
struct PendingEvent {
  double visible_at;
  ipc::Event event;
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
};

struct MemoryDescriptor {
  ipc::MemoryDescriptor md{};
  unsigned operations_in_flight = 0;
};

struct ListEntry {
  ipc::ListEntry entry{};
  uint64_t user_ptr = 0;
  uint32_t pt_index = 0;
  ipc::ListKind list = ipc::ListKind::Priority;
  bool matching = true;     // ME (true) or LE
  uint64_t local_offset = 0; // next offset for PTL_ME_MANAGE_LOCAL
  bool linked = true;
};

// A message that landed in an overflow-list entry: the target remembers its
// header, so that a later priority-list append matching it can report where
// the data is (PTL_EVENT_PUT_OVERFLOW / GET_OVERFLOW).
struct UnexpectedHeader {
  bool is_put = true;
  uint64_t match_bits = 0;
  uint64_t rlength = 0;
  uint64_t mlength = 0;
  uint64_t remote_offset = 0;
  uint64_t hdr_data = 0;
  uint64_t start = 0; // where the data is, in the overflow entry's buffer
  ipc::ProcessId initiator{}; // (nid, pid)
  uint32_t initiator_rank = 0;
  uint32_t uid = 0;
};

struct PortalTableEntry {
  bool allocated = false;
  bool enabled = false;
  uint32_t options = 0;
  ipc::Handle eq = ipc::kHandleNone;
  std::list<uint32_t> priority; // entry indices, in append order
  std::list<uint32_t> overflow;
  std::list<UnexpectedHeader> unexpected; // oldest first
};

struct NetworkInterface {
  uint32_t slot = 0; // matching x logical, see handles.hpp
  bool matching = true;
  bool logical = true;
  unsigned references = 0; // PtlNIInit calls not yet matched by PtlNIFini
  ipc::NILimits limits{};
  std::vector<PortalTableEntry> portal_table;
  std::vector<ipc::ProcessId> map; // logical rank -> (nid, pid); empty until set
  SlotTable<EventQueue> eqs;
  SlotTable<CountingEvent> cts;
  SlotTable<MemoryDescriptor> mds;
  SlotTable<ListEntry> entries;
  uint64_t drop_count = 0;
};

} // namespace s4bxi::portals
