// PtlMDBind and PtlMDRelease: memory descriptors, contiguous or I/O vectors.
#include "api.hpp"

#include "api_internal.hpp"
#include "memory_region.hpp"

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;
using namespace ipc::option;

using detail::created;
using detail::find_ni;
using detail::find_object;
using detail::status;
using detail::valid_optional;

Reply Api::md_bind(RankPortals& rank, const ipc::MDBindArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not valid_optional(rank, args.md.eq, HandleKind::EQ, ni->slot) ||
      not valid_optional(rank, args.md.ct, HandleKind::CT, ni->slot))
    return status(Status::ArgInvalid);
  MemoryDescriptor md;
  md.md = args.md;
  if ((args.md.options & kIovec) != 0) {
    // The vector is read once, now (the specification lets the
    // implementation copy it); the MD is then its segments end to end.
    auto region = load_vector(rank, *ni, args.md.start, args.md.length);
    if (not region)
      return status(Status::ArgInvalid);
    md.region = std::move(*region);
    md.md.length = md.region.length();
  } else {
    md.region = MemoryRegion::contiguous(args.md.start, args.md.length);
  }
  return created(ni->mds, std::move(md), HandleKind::MD, ni->slot);
}

std::optional<MemoryRegion> Api::load_vector(RankPortals& rank, const NetworkInterface& ni, uint64_t address,
                                             uint64_t count)
{
  if (count > static_cast<uint64_t>(ni.limits.max_iovecs))
    return std::nullopt;
  return load_iovec(rank.os_pid, address, count);
}

Reply Api::md_release(RankPortals& rank, ipc::Handle handle)
{
  NetworkInterface* ni = nullptr;
  MemoryDescriptor* md = find_object(rank, handle, HandleKind::MD, &NetworkInterface::mds, &ni);
  if (md == nullptr)
    return status(Status::ArgInvalid);
  if (md->operations_in_flight > 0)
    return status(Status::InUse);
  ni->mds.erase(decode_handle(handle)->index);
  return status(Status::Ok);
}

} // namespace s4bxi::portals
