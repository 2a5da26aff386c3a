#include "queued_appends.hpp"

#include <algorithm>

namespace s4bxi::preload::queued_appends {
namespace {

// (Fixed-size state only, with nothing to destroy: see local_polls.cpp.)
ipc::AppendPermit permits_of_rank[ipc::kMaxAppendPermits];
uint32_t taken_of_rank[ipc::kMaxAppendPermits]; // of each permit's entries, in their order

} // namespace

void on_reply(std::span<const ipc::AppendPermit> permits, bool enabled)
{
  // Copied once: the permits are in the process's own writable channel,
  // where a stray write of the program may land (the server checks the
  // handle it gets back anyway).
  for (size_t i = 0; i < ipc::kMaxAppendPermits; ++i) {
    permits_of_rank[i] = enabled && i < permits.size() ? permits[i] : ipc::AppendPermit{};
    permits_of_rank[i].pt_queue_count = std::min(permits_of_rank[i].pt_queue_count, ipc::kAppendPermitQueues);
    permits_of_rank[i].entry_count = std::min(permits_of_rank[i].entry_count, ipc::kAppendPermitEntries);
    taken_of_rank[i] = 0;
  }
}

ipc::Handle admit(const ipc::AppendArgs& args, AppendEvents* events)
{
  ipc::AppendPermit* permit = std::find_if(std::begin(permits_of_rank), std::end(permits_of_rank),
                                           [&args](const ipc::AppendPermit& p) { return p.ni == args.ni; });
  if (args.ni == ipc::kHandleInvalid || permit == std::end(permits_of_rank))
    return ipc::kHandleInvalid;
  uint32_t& taken = taken_of_rank[permit - permits_of_rank];
  // Api::append's checks (portals/api_lists.cpp), as the permit allows them.
  if (taken >= permit->entry_count || permit->matching != args.is_matching || args.pt_index >= ipc::kAppendPermitPts ||
      ((permit->pts_with_room[args.pt_index / 64] >> (args.pt_index % 64)) & 1U) == 0 ||
      args.entry.ct != ipc::kHandleNone || (args.entry.options & ipc::option::kIovec) != 0 ||
      (args.list != ipc::ListKind::Priority && args.list != ipc::ListKind::Overflow))
    return ipc::kHandleInvalid;
  const ipc::Handle entry = permit->entries[taken++];
  if (events != nullptr) {
    const bool no_header_taken =
        args.list == ipc::ListKind::Overflow ||
        ((permit->pts_without_unexpected[args.pt_index / 64] >> (args.pt_index % 64)) & 1U) != 0;
    const bool link = (args.entry.options & ipc::option::kEntryEventLinkDisable) == 0;
    *events = AppendEvents{};
    events->none = no_header_taken && not link;
    if (no_header_taken && link) {
      // (pt_queue_count was bounded in on_reply: the channel is the program's to overwrite.)
      const ipc::AppendPermit& named = *permit;
      const auto* end = named.pt_queues + named.pt_queue_count;
      const auto* queue = std::find_if(named.pt_queues, end, [&args](const ipc::AppendPermit::PtQueue& q) {
        return q.pt_index == args.pt_index;
      });
      if (queue != end)
        events->link_eq = queue->eq;
    }
  }
  return entry;
}

} // namespace s4bxi::preload::queued_appends
