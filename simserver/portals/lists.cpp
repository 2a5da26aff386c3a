#include "lists.hpp"

#include "event_delivery.hpp"
#include "matching.hpp"

#include <algorithm>

namespace s4bxi::portals {

using namespace ipc::option;

namespace {

ipc::EventKind overflow_event(Operation operation)
{
  switch (operation) {
    case Operation::Put: return ipc::EventKind::PutOverflow;
    case Operation::Get: return ipc::EventKind::GetOverflow;
    case Operation::Atomic: return ipc::EventKind::AtomicOverflow;
    case Operation::FetchAtomic: return ipc::EventKind::FetchAtomicOverflow;
  }
  return ipc::EventKind::PutOverflow;
}

void post_auto_free(RankPortals& rank, NetworkInterface& ni, const PortalTableEntry& pt, uint32_t pt_index,
                    uint64_t user_ptr, uint32_t options)
{
  if ((options & kEntryEventUnlinkDisable) != 0)
    return;
  ipc::Event event{};
  event.type = ipc::EventKind::AutoFree;
  event.user_ptr = user_ptr;
  event.pt_index = pt_index;
  event.overflow_list = 1;
  post_event(rank, ni, pt.eq, event);
}

bool holds_headers(const PortalTableEntry& pt, uint64_t owner)
{
  return std::any_of(pt.unexpected.begin(), pt.unexpected.end(),
                     [owner](const UnexpectedHeader& header) { return header.owner == owner; });
}

// Forgets a header; the last one of an overflow entry that unlinked itself
// frees that entry.
std::list<UnexpectedHeader>::iterator remove_header(RankPortals& rank, NetworkInterface& ni, PortalTableEntry& pt,
                                                    uint32_t pt_index, std::list<UnexpectedHeader>::iterator it)
{
  const uint64_t owner = it->owner;
  it = pt.unexpected.erase(it);
  if (ni.unexpected_headers > 0)
    ni.unexpected_headers--;
  auto waiting = pt.awaiting_free.find(owner);
  if (waiting != pt.awaiting_free.end() && not holds_headers(pt, owner)) {
    post_auto_free(rank, ni, pt, pt_index, waiting->second.user_ptr, waiting->second.options);
    pt.awaiting_free.erase(waiting);
  }
  return it;
}

} // namespace

void auto_unlink(RankPortals& rank, NetworkInterface& ni, PortalTableEntry& pt, uint32_t entry_index)
{
  ListEntry* entry = ni.entries.find(entry_index);
  if (entry == nullptr)
    return;
  auto& list = entry->list == ipc::ListKind::Priority ? pt.priority : pt.overflow;
  list.remove(entry_index);
  const uint32_t options = entry->entry.options;
  if ((options & kEntryEventUnlinkDisable) == 0) {
    ipc::Event event{};
    event.type = ipc::EventKind::AutoUnlink;
    event.user_ptr = entry->user_ptr;
    event.pt_index = entry->pt_index;
    event.overflow_list = entry->list == ipc::ListKind::Overflow ? 1 : 0;
    post_event(rank, ni, pt.eq, event);
  }
  if (entry->list == ipc::ListKind::Overflow) {
    // Its buffer is free for the program once no unexpected header points into it.
    if (holds_headers(pt, entry->serial))
      pt.awaiting_free[entry->serial] = {entry->user_ptr, options};
    else
      post_auto_free(rank, ni, pt, entry->pt_index, entry->user_ptr, options);
  }
  ni.entries.erase(entry_index);
}

std::size_t walk_unexpected(RankPortals& rank, NetworkInterface& ni, PortalTableEntry& pt, uint32_t pt_index,
                            ListEntry& entry, UnexpectedWalk walk, bool counting)
{
  const uint32_t options = entry.entry.options;
  const bool use_once = (options & kEntryUseOnce) != 0;
  // PTL_ME_LOCAL_INC_UH_RLENGTH counts only for a persistent, locally managed
  // ME being appended (PTL_ME_MAY_ALIGN, which this model never applies
  // anyway, is ignored with it).
  const bool takes_rlength = walk == UnexpectedWalk::Append && entry.matching && not use_once &&
                             (options & kEntryManageLocal) != 0 && (options & kEntryLocalIncUhRlength) != 0;
  std::size_t matches = 0;
  for (auto it = pt.unexpected.begin(); it != pt.unexpected.end();) {
    IncomingHeader header;
    header.op = it->op;
    header.initiator = it->initiator;
    header.initiator_rank = it->initiator_rank;
    header.uid = it->uid;
    header.match_bits = it->match_bits;
    header.rlength = it->rlength;
    header.remote_offset = it->remote_offset;
    if (not entry_accepts(entry, header, ni.logical)) {
      ++it;
      continue;
    }
    ++matches;
    const bool search_only = walk == UnexpectedWalk::SearchOnly;
    const bool event_wanted = search_only ? (options & (kEntryEventCommDisable | kEntryEventSuccessDisable)) == 0
                                          : (options & (kEntryEventCommDisable | kEntryEventOverDisable)) == 0;
    if (event_wanted) {
      ipc::Event event{};
      event.type = search_only ? ipc::EventKind::Search : overflow_event(it->op);
      event.start = it->start;
      event.user_ptr = entry.user_ptr;
      event.hdr_data = it->hdr_data;
      event.match_bits = it->match_bits;
      event.rlength = it->rlength;
      event.mlength = it->mlength;
      event.remote_offset = it->remote_offset;
      event.initiator = ni.logical ? ipc::ProcessId{it->initiator_rank, 0} : it->initiator;
      event.uid = it->uid;
      event.pt_index = pt_index;
      event.overflow_list = 1;
      if (it->op == Operation::Atomic || it->op == Operation::FetchAtomic) {
        event.atomic_operation = static_cast<uint8_t>(it->atomic_op);
        event.atomic_type = static_cast<uint8_t>(it->atomic_type);
      }
      post_event(rank, ni, pt.eq, event);
    }
    if (counting || (not search_only && (options & kEntryEventCtOverflow) != 0)) {
      const uint64_t amount = (options & kEntryEventCtBytes) != 0 ? it->mlength : 1;
      post_counter(rank, ni, entry.entry.ct, amount, 0);
    }
    const uint64_t rlength = it->rlength;
    it = search_only ? std::next(it) : remove_header(rank, ni, pt, pt_index, it);
    if (use_once)
      break;
    if (takes_rlength) {
      // The header's data is the program's to place at this offset: the
      // entry keeps room for it. min_free is checked after each header; the
      // one that leaves less than min_free is still taken.
      const uint64_t length = entry.entry.length;
      entry.local_offset = rlength >= length - std::min(length, entry.local_offset) ? length
                                                                                    : entry.local_offset + rlength;
      if (unlinks_after(entry))
        break;
    }
  }
  return matches;
}

} // namespace s4bxi::portals
