// PtlMEAppend/PtlLEAppend, PtlMEUnlink/PtlLEUnlink, PtlMESearch/PtlLESearch.
#include "api.hpp"

#include "../actor_sleep.hpp"
#include "../model_options.hpp"
#include "api_internal.hpp"
#include "event_delivery.hpp"
#include "lists.hpp"
#include "matching.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <cmath>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_portals);

namespace s4bxi::portals {

using detail::find_ni;
using detail::status;
using detail::valid_optional;
using ipc::Reply;
using ipc::Status;
using namespace ipc::option;

Reply Api::append(RankPortals& rank, const ipc::AppendArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || ni->matching != (args.is_matching != 0) || args.pt_index >= ni->portal_table.size() ||
      not ni->portal_table[args.pt_index].allocated || not valid_optional(rank, args.entry.ct, HandleKind::CT, ni->slot) ||
      (args.list != ipc::ListKind::Priority && args.list != ipc::ListKind::Overflow))
    return status(Status::ArgInvalid);
  auto& pt = ni->portal_table[args.pt_index];
  auto& list = args.list == ipc::ListKind::Priority ? pt.priority : pt.overflow;
  if (list.size() >= static_cast<size_t>(ni->limits.max_list_size))
    return status(Status::ListTooLong);
  ListEntry entry;
  entry.entry = args.entry;
  if ((args.entry.options & kIovec) != 0) {
    auto region = load_vector(rank, *ni, args.entry.start, args.entry.length);
    if (not region)
      return status(Status::ArgInvalid);
    entry.region = std::move(*region);
    entry.entry.length = entry.region.length();
  } else {
    entry.region = MemoryRegion::contiguous(args.entry.start, args.entry.length);
  }
  entry.user_ptr = args.user_ptr;
  entry.pt_index = args.pt_index;
  entry.list = args.list;
  entry.matching = args.is_matching != 0;
  entry.serial = ni->next_entry_serial++;
  std::optional<uint32_t> index;
  if (args.reserved != 0) {
    // Appended by the process itself with the handle it already returned:
    // the first of those set aside (it takes them in order; the proxy checks
    // the handle).
    if (ni->reserved_entries.empty())
      return status(Status::ArgInvalid);
    index = ni->reserved_entries.front();
    ni->reserved_entries.pop_front();
    ni->entries.insert_at(*index, std::move(entry));
  } else {
    index = ni->entries.insert(std::move(entry));
    if (not index && not ni->reserved_entries.empty()) {
      // The table is full but for the indices set aside: the process, which
      // waits for this call, appends nothing itself before the next reply
      // (its queued calls ran before it), so one is the program's.
      index = ni->reserved_entries.back();
      ni->reserved_entries.pop_back();
      ni->entries.insert_at(*index, std::move(entry));
    }
  }
  if (not index)
    return status(Status::NoSpace);
  ListEntry& linked = *ni->entries.find(*index);
  Reply reply = status(Status::Ok);
  reply.result.handle = encode_handle(linked.matching ? HandleKind::ME : HandleKind::LE, ni->slot, *index);
  if (args.list == ipc::ListKind::Priority &&
      walk_unexpected(rank, *ni, pt, args.pt_index, linked, UnexpectedWalk::Append) > 0 &&
      ((args.entry.options & kEntryUseOnce) != 0 ||
       ((args.entry.options & kEntryLocalIncUhRlength) != 0 && unlinks_after(linked)))) {
    // A use-once entry spent its one use on a message that had already
    // arrived, or a PTL_ME_LOCAL_INC_UH_RLENGTH entry has less than min_free
    // left once the matching headers are taken: it is never linked, but it is
    // unlinked as far as events go.
    if ((args.entry.options & kEntryEventUnlinkDisable) == 0) {
      ipc::Event event{};
      event.type = ipc::EventKind::AutoUnlink;
      event.user_ptr = args.user_ptr;
      event.pt_index = args.pt_index;
      post_event(rank, *ni, pt.eq, event);
    }
    if ((args.entry.options & kEntryUseOnce) != 0) {
      ni->entries.erase(*index); // its handle is stale at once
    } else {
      // A program cannot tell whether such an entry got linked (it depends
      // on the headers that had arrived), so it unlinks it anyway, and
      // Sandia's implementation answers PTL_OK (its
      // test_manage_local_and_inc_uh_rlength): the handle stays valid, for
      // an entry in no list, until PtlMEUnlink.
      linked.linked = false;
    }
    if (rank.link_forecast != nullptr)
      check_link_forecast(rank, *rank.link_forecast, nullptr); // (it expected the entry linked)
    return reply;
  }
  list.push_back(*index);
  const PendingEvent* link = nullptr;
  if ((args.entry.options & kEntryEventLinkDisable) == 0) {
    ipc::Event event{};
    event.type = ipc::EventKind::Link;
    event.user_ptr = args.user_ptr;
    event.pt_index = args.pt_index;
    link = post_event(rank, *ni, pt.eq, event);
  }
  if (rank.link_forecast != nullptr)
    check_link_forecast(rank, *rank.link_forecast, link);
  return reply;
}

void Api::check_link_forecast(const RankPortals& rank, const ipc::ForecastLink& forecast, const PendingEvent* link)
{
  // The process went on from the forecast (preload/queued_appends.hpp): it
  // took this LINK event for the one it expected, landing when it expected
  // (within the rounding of its nanosecond clock). Anything else, the whole
  // append included, is checked by its replays and RankProxy::run_queued_call.
  world_.link_forecasts++;
  if (link != nullptr && std::abs(link->visible_at - forecast.landing) <= forecast.tolerance_s() &&
      ipc::same_fields(link->event, forecast.event))
    return;
  if (world_.link_forecast_misses++ == 0)
    XBT_WARN("rank %u's append did not go as its process forecast: its LINK event %s %.12g s, forecast landing at "
             "%.12g s (a bug: please report it; counted in the report's link_forecasts)",
             rank.rank, link != nullptr ? "landed at" : "is none,", link != nullptr ? link->visible_at : 0.0,
             forecast.landing);
}

void Api::write_append_permits(RankPortals& rank, std::span<ipc::AppendPermit> permits)
{
  size_t written = 0;
  for (auto& ni : rank.process().nis) {
    if (ni == nullptr || written == permits.size())
      continue;
    // Indices set aside per NI, kept from reply to reply until used.
    while (ni->reserved_entries.size() < ipc::kAppendPermitEntries) {
      const std::optional<uint32_t> index = ni->entries.reserve();
      if (not index)
        break; // the NI has no room for another entry
      ni->reserved_entries.push_back(*index);
    }
    if (ni->reserved_entries.empty())
      continue;
    ipc::AppendPermit& permit = permits[written++];
    permit = ipc::AppendPermit{};
    permit.ni = encode_handle(HandleKind::NI, ni->slot, 0);
    permit.matching = ni->matching ? 1 : 0;
    for (const uint32_t index : ni->reserved_entries)
      permit.entries[permit.entry_count++] =
          encode_handle(ni->matching ? HandleKind::ME : HandleKind::LE, ni->slot, index);
    // Room in both lists for as many entries as the process may append.
    const auto most = static_cast<size_t>(ni->limits.max_list_size);
    const bool link_forecasts = options::link_forecasts() && options::local_polls();
    for (const uint32_t i : ni->allocated_pts) {
      const PortalTableEntry& pt = ni->portal_table[i];
      if (i >= ipc::kAppendPermitPts)
        continue;
      if (pt.priority.size() + permit.entry_count <= most && pt.overflow.size() + permit.entry_count <= most)
        permit.pts_with_room[i / 64] |= uint64_t{1} << (i % 64);
      if (pt.unexpected.empty())
        permit.pts_without_unexpected[i / 64] |= uint64_t{1} << (i % 64);
      if (link_forecasts && pt.eq != ipc::kHandleNone && permit.pt_queue_count < ipc::kAppendPermitQueues)
        permit.pt_queues[permit.pt_queue_count++] = {i, pt.eq};
    }
  }
  for (; written < permits.size(); ++written)
    permits[written] = ipc::AppendPermit{};
}

Reply Api::unlink(RankPortals& rank, ipc::Handle handle)
{
  auto decoded = decode_handle(handle);
  if (not decoded || (decoded->kind != HandleKind::ME && decoded->kind != HandleKind::LE))
    return status(Status::ArgInvalid);
  NetworkInterface* ni = rank.ni(decoded->ni);
  ListEntry* entry = ni ? ni->entries.find(decoded->index) : nullptr;
  if (entry == nullptr)
    return status(Status::ArgInvalid);
  if (entry->linked) {
    auto& pt = ni->portal_table[entry->pt_index];
    (entry->list == ipc::ListKind::Priority ? pt.priority : pt.overflow).remove(decoded->index);
  }
  ni->entries.erase(decoded->index);
  return status(Status::Ok);
}

Reply Api::search(RankPortals& rank, const ipc::SearchArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || ni->matching != (args.is_matching != 0) || args.pt_index >= ni->portal_table.size() ||
      not ni->portal_table[args.pt_index].allocated || not valid_optional(rank, args.entry.ct, HandleKind::CT, ni->slot) ||
      (args.op != ipc::SearchOp::Only && args.op != ipc::SearchOp::Delete))
    return status(Status::ArgInvalid);
  auto& pt = ni->portal_table[args.pt_index];
  // The same walk as a priority append, with an entry that is never linked
  // (so its buffer, I/O vector or not, is never looked at).
  ListEntry entry;
  entry.entry = args.entry;
  entry.user_ptr = args.user_ptr;
  entry.pt_index = args.pt_index;
  entry.matching = args.is_matching != 0;
  const auto walk = args.op == ipc::SearchOp::Only ? UnexpectedWalk::SearchOnly : UnexpectedWalk::SearchDelete;
  // Counting searches (the current generation of Sandia's ABI, Portals 4.3):
  // the search entry's counter counts, whatever its event options: each
  // match adds to success (its mlength with PTL_ME_EVENT_CT_BYTES),
  // SEARCH_ONLY and SEARCH_DELETE alike, and the search's end adds one
  // failure: always for a persistent entry, only when nothing matched for a
  // use-once entry (it consumes one header). Sandia's own tests
  // (test_search_only_counter_{me,le}: {2,1} for two matches, with neither
  // PTL_ME_EVENT_CT_OVERFLOW nor PTL_ME_EVENT_CT_COMM) pass on its
  // implementation. Otherwise (the legacy Sandia and BXI ABIs) Portals 4.1's
  // behaviour: a search counts only what a search-delete consumes, through
  // PTL_ME_EVENT_CT_OVERFLOW.
  const bool counting = args.counting != 0;
  const std::size_t matches = walk_unexpected(rank, *ni, pt, args.pt_index, entry, walk, counting);
  if (matches == 0 && (args.entry.options & kEntryEventCommDisable) == 0) {
    ipc::Event event{};
    event.type = ipc::EventKind::Search;
    event.ni_fail_type = ipc::FailKind::NoMatch;
    event.user_ptr = args.user_ptr;
    event.pt_index = args.pt_index;
    post_event(rank, *ni, pt.eq, event);
  }
  if (counting && ((args.entry.options & kEntryUseOnce) == 0 || matches == 0))
    post_counter(rank, *ni, args.entry.ct, 0, 1);
  // The search is done by the NIC while the call waits, as in Sandia's
  // implementation: it returns once what it wrote back (its events, its
  // counts) is in the host's memory, so a PtlCTGet or PtlEQGet right after
  // it sees them.
  const double written = event_landing_time(rank);
  if (written > sim_now())
    s4bxi::sleep_until(written);
  return status(Status::Ok);
}

} // namespace s4bxi::portals
