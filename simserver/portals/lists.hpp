// What happens to list entries and unexpected headers besides matching an
// arriving message: automatic unlinking (PTL_EVENT_AUTO_UNLINK, and
// PTL_EVENT_AUTO_FREE once an overflow entry's buffer holds no unexpected
// message any more), and the walk of the unexpected list done by a
// priority-list append and by PtlMESearch/PtlLESearch.
#pragma once

#include "../world.hpp"

#include <cstddef>

namespace s4bxi::portals {

// Unlinks and frees an entry that used itself up (use once, or locally
// managed with less than min_free left).
void auto_unlink(RankPortals& rank, NetworkInterface& ni, PortalTableEntry& pt, uint32_t entry_index);

enum class UnexpectedWalk {
  Append,       // *_OVERFLOW event per match, header removed
  SearchOnly,   // PTL_EVENT_SEARCH per match, header kept
  SearchDelete, // as Append
};

// Walks the unexpected list of `pt` (oldest first) for the headers that
// `entry` accepts, stopping after the first one if the entry is use-once,
// and reports each one as `walk` says (events in pt's EQ, overflow counts on
// the entry's CT with PTL_ME_EVENT_CT_OVERFLOW). Returns the number of matches.
//
// `counting` (searches only): the search counts on the entry's CT, as in the
// current generation of Sandia's ABI (Portals 4.3): every match, SEARCH_ONLY
// included, is a success, whatever the entry's event options (the caller
// counts the search's end as a failure). Without it, the 4.1 behaviour: only
// what a search-delete consumes is counted, with PTL_ME_EVENT_CT_OVERFLOW.
//
// A persistent, locally managed ME appended with PTL_ME_LOCAL_INC_UH_RLENGTH
// takes each matching header into its local offset (by the header's
// rlength): the walk stops at the header after which it has less than
// min_free left (unlinks_after(entry) tells the caller so).
std::size_t walk_unexpected(RankPortals& rank, NetworkInterface& ni, PortalTableEntry& pt, uint32_t pt_index,
                            ListEntry& entry, UnexpectedWalk walk, bool counting = false);

} // namespace s4bxi::portals
