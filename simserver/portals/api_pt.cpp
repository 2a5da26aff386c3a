// PtlPTAlloc, PtlPTFree, PtlPTEnable and PtlPTDisable: the portal table
// entries of an NI.
#include "api.hpp"

#include "api_internal.hpp"

#include <algorithm>

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;
using namespace ipc::option;

using detail::find_ni;
using detail::status;
using detail::valid_optional;

Reply Api::pt_alloc(RankPortals& rank, const ipc::PTAllocArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not valid_optional(rank, args.eq, HandleKind::EQ, ni->slot))
    return status(Status::ArgInvalid);
  if ((args.options & kPTFlowControl) != 0 && args.eq == ipc::kHandleNone)
    return status(Status::PtEqNeeded);
  uint32_t index = args.requested_index;
  if (index == ipc::kAnyPtIndex) {
    auto free_entry = std::find_if(ni->portal_table.begin(), ni->portal_table.end(),
                                   [](const PortalTableEntry& pt) { return not pt.allocated; });
    if (free_entry == ni->portal_table.end())
      return status(Status::PtFull);
    index = static_cast<uint32_t>(free_entry - ni->portal_table.begin());
  } else if (index >= ni->portal_table.size()) {
    return status(Status::ArgInvalid);
  } else if (ni->portal_table[index].allocated) {
    return status(Status::PtInUse);
  }
  auto& pt = ni->portal_table[index];
  pt = PortalTableEntry{};
  pt.allocated = true;
  ni->allocated_pts.push_back(index);
  // PTL_PT_ALLOC_DISABLED: disabled until PtlPTEnable; meanwhile a message
  // fails as at any disabled entry (PTL_NI_PT_DISABLED, no event here).
  pt.enabled = (args.options & kPTAllocDisabled) == 0;
  pt.options = args.options;
  pt.eq = args.eq;
  Reply reply = status(Status::Ok);
  reply.result.value = index;
  return reply;
}

Reply Api::pt_free(RankPortals& rank, const ipc::PTArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.pt_index >= ni->portal_table.size() || not ni->portal_table[args.pt_index].allocated)
    return status(Status::ArgInvalid);
  auto& pt = ni->portal_table[args.pt_index];
  if (not pt.priority.empty() || not pt.overflow.empty())
    return status(Status::PtInUse);
  ni->unexpected_headers -= std::min<uint64_t>(ni->unexpected_headers, pt.unexpected.size());
  pt = PortalTableEntry{};
  std::erase(ni->allocated_pts, args.pt_index);
  return status(Status::Ok);
}

Reply Api::pt_enable(RankPortals& rank, const ipc::PTArgs& args, bool enable)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.pt_index >= ni->portal_table.size() || not ni->portal_table[args.pt_index].allocated)
    return status(Status::ArgInvalid);
  ni->portal_table[args.pt_index].enabled = enable;
  return status(Status::Ok);
}

} // namespace s4bxi::portals
