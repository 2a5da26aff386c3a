// The target-side rules of the Portals 4 specification that decide which list
// entry a message lands in, and where in it. Pure functions, no simulation.
#pragma once

#include "objects.hpp"

#include <cstdint>
#include <optional>

namespace s4bxi::portals {

inline constexpr uint32_t kAnyId = 0xFFFFFFFFU; // wildcard in match_id fields (after conversion)
inline constexpr uint32_t kAnyNidPid = 0xFFFFU;  // PTL_NID_ANY / PTL_PID_ANY

// True if `entry` accepts `header` (operation allowed, match bits, initiator).
// Atomics need PTL_ME_OP_PUT; those that return data also PTL_ME_OP_GET.
bool entry_accepts(const ListEntry& entry, const IncomingHeader& header, bool logical_ni);

struct Placement {
  uint64_t offset = 0;  // in the entry's buffer
  uint64_t mlength = 0; // bytes actually moved
};

// Where the message goes in a matching entry, or nullopt if the entry rejects
// it (PTL_ME_NO_TRUNCATE and the message does not fit).
std::optional<Placement> place(const ListEntry& entry, const IncomingHeader& header);

// Address in the rank's memory of the byte at `offset` of the entry's buffer
// (through its I/O vector for a PTL_IOVEC entry; 0 if there is no such byte).
uint64_t address_in(const ListEntry& entry, uint64_t offset);

// Whether the entry must be unlinked after this message was placed in it
// (use-once, or locally managed and with less than min_free left).
bool unlinks_after(const ListEntry& entry);

} // namespace s4bxi::portals
