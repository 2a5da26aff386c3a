#include "matching.hpp"

#include <algorithm>

namespace s4bxi::portals {

using namespace ipc::option;

bool entry_accepts(const ListEntry& entry, const IncomingHeader& header, bool logical_ni)
{
  const auto& e = entry.entry;
  uint32_t needed = kEntryOpPut;
  switch (header.op) {
    case Operation::Put:
    case Operation::Atomic: needed = kEntryOpPut; break;
    case Operation::Get: needed = kEntryOpGet; break;
    case Operation::FetchAtomic: needed = kEntryOpPut | kEntryOpGet; break;
  }
  if ((e.options & needed) != needed)
    return false;
  if (e.uid != kAnyId && e.uid != header.uid)
    return false;
  if (not entry.matching)
    return true; // an LE takes every message of the allowed kinds
  if (((header.match_bits ^ e.match_bits) & ~e.ignore_bits) != 0)
    return false;
  if (logical_ni)
    return e.match_id.rank_or_nid == kAnyId || e.match_id.rank_or_nid == header.initiator_rank;
  const bool nid_ok = e.match_id.rank_or_nid == kAnyNidPid || e.match_id.rank_or_nid == header.initiator.rank_or_nid;
  const bool pid_ok = e.match_id.pid == kAnyNidPid || e.match_id.pid == header.initiator.pid;
  return nid_ok && pid_ok;
}

std::optional<Placement> place(const ListEntry& entry, const IncomingHeader& header)
{
  const auto& e = entry.entry;
  Placement placement;
  placement.offset = (e.options & kEntryManageLocal) != 0 ? entry.local_offset : header.remote_offset;
  const uint64_t room = placement.offset >= e.length ? 0 : e.length - placement.offset;
  if ((e.options & kEntryNoTruncate) != 0 && header.rlength > room)
    return std::nullopt;
  placement.mlength = std::min(header.rlength, room);
  return placement;
}

uint64_t address_in(const ListEntry& entry, uint64_t offset)
{
  if ((entry.entry.options & kIovec) == 0)
    return entry.entry.start + offset;
  return entry.region.address_at(offset).value_or(0);
}

bool unlinks_after(const ListEntry& entry)
{
  const auto& e = entry.entry;
  if ((e.options & kEntryUseOnce) != 0)
    return true;
  if ((e.options & kEntryManageLocal) != 0 && e.min_free > 0)
    return e.length - std::min(e.length, entry.local_offset) < e.min_free;
  return false;
}

} // namespace s4bxi::portals
