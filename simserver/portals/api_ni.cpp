// PtlNIInit, PtlNIFini, PtlNIStatus, PtlGetId/PtlGetPhysId, PtlSetMap and
// PtlGetMap: the network interfaces of a rank, the limits they grant and a
// logical NI's map.
#include "api.hpp"

#include "../job/rank_memory.hpp"
#include "../nic/nic.hpp"
#include "api_internal.hpp"

#include <cstring>

namespace s4bxi::portals {

using ipc::Reply;
using ipc::Status;
using namespace ipc::option;

using detail::find_ni;
using detail::status;

namespace {

constexpr uint32_t kPidAny = 0xFFFF;

uint32_t slot_of(bool matching, bool logical)
{
  return (matching ? 0U : 1U) | (logical ? 0U : 2U);
}

// Feature bits of ptl_ni_limits_t: the same in every flavour of portals4.h
// (tests/unit/abi_layout_*.c), which the preload copies as they are.
constexpr uint32_t kTargetBindInaccessible = 0x1;
constexpr uint32_t kTotalDataOrdering = 0x2;

// The limits an NI of this node can have: generous where only tables are at
// stake, but finite so that programs that size their tables from them behave;
// what depends on the NIC model is the model's.
ipc::NILimits our_limits(const nic::Nic& nic, bool matching)
{
  ipc::NILimits limits{};
  limits.max_entries = 1 << 20;
  limits.max_unexpected_headers = 1 << 16;
  limits.max_mds = 1 << 20;
  limits.max_cts = 1 << 16;
  limits.max_eqs = 1 << 16;
  limits.max_pt_index = 255;
  limits.max_iovecs = 1024;
  limits.max_list_size = 1 << 20;
  limits.max_triggered_ops = 1 << 16;
  limits.max_msg_size = 1ULL << 32;
  limits.max_atomic_size = 512;
  limits.max_fetch_atomic_size = 512;
  limits.max_waw_ordered_size = 64;
  limits.max_war_ordered_size = 64;
  // A payload up to the PIO limit is in the command by the time the call
  // returns (Api::issue reads it then), so the program may reuse its buffer at
  // once; a larger one is read by DMA later, while the program runs on.
  const auto& node = nic.parameters();
  limits.max_volatile_size = matching ? node.pio_limit_matching : node.pio_limit_plain;
  // An entry may cover memory the process has not mapped (SOS binds the whole
  // address space): a message that reaches such memory fails with
  // PTL_NI_SEGV, as a NIC's address translation would.
  limits.features = kTargetBindInaccessible;
  // The NICs handle the messages between two of them in the order they were
  // issued (nic.hpp, inbox), unless one is lost and sent again after later ones.
  if (not nic.may_lose_messages())
    limits.features |= kTotalDataOrdering;
  return limits;
}

// What PtlNIInit grants: as Sandia's reference implementation, each desired
// limit within what the NI can have (0 and anything larger get the most), and
// the desired features it has. Without desired limits, the most of each and
// no feature (the program asked for none).
ipc::NILimits granted_limits(const ipc::NILimits* desired, const nic::Nic& nic, bool matching)
{
  ipc::NILimits ours = our_limits(nic, matching);
  ipc::NILimits granted = ours;
  if (desired == nullptr) {
    granted.features = 0;
    return granted;
  }
  auto take = [](auto wish, auto have) { return wish > 0 && wish < have ? wish : have; };
  granted.max_entries = take(desired->max_entries, ours.max_entries);
  granted.max_unexpected_headers = take(desired->max_unexpected_headers, ours.max_unexpected_headers);
  granted.max_mds = take(desired->max_mds, ours.max_mds);
  granted.max_cts = take(desired->max_cts, ours.max_cts);
  granted.max_eqs = take(desired->max_eqs, ours.max_eqs);
  granted.max_pt_index = take(desired->max_pt_index, ours.max_pt_index);
  granted.max_list_size = take(desired->max_list_size, ours.max_list_size);
  granted.max_iovecs = take(desired->max_iovecs, ours.max_iovecs);
  granted.max_triggered_ops = take(desired->max_triggered_ops, ours.max_triggered_ops);
  granted.max_msg_size = take(desired->max_msg_size, ours.max_msg_size);
  granted.max_atomic_size = take(desired->max_atomic_size, ours.max_atomic_size);
  granted.max_fetch_atomic_size = take(desired->max_fetch_atomic_size, ours.max_fetch_atomic_size);
  granted.max_volatile_size = take(desired->max_volatile_size, ours.max_volatile_size);
  granted.features = desired->features & ours.features;
  return granted;
}

// A logical NI's map: at most this many entries (PTL_NO_SPACE beyond: the
// server would have to hold them), each a ptl_process_t, 8 bytes in every ABI
// (a few more allowed for padding).
constexpr uint64_t kMaxMapEntries = 1U << 24;
constexpr uint64_t kMaxMapEntrySize = 64;

} // namespace

Reply Api::ni_init(RankPortals& rank, const ipc::NIInitArgs& args)
{
  if (args.iface != 0 && args.iface != 0xFFFFFFFFU)
    return status(Status::ArgInvalid);
  const bool matching = (args.options & kNIMatching) != 0;
  const bool logical = (args.options & kNILogical) != 0;
  const uint32_t slot = slot_of(matching, logical);
  if (args.requested_pid != kPidAny && args.requested_pid != rank.pid) {
    // Another Portals pid on this node: take it if nobody has it.
    if (world_.find(rank.nid(), args.requested_pid) != nullptr)
      return status(Status::PidInUse);
    world_.by_address.erase({rank.nid(), rank.pid});
    rank.pid = args.requested_pid;
    world_.by_address[{rank.nid(), rank.pid}] = rank.rank;
  }
  auto& ni = rank.process().nis[slot];
  if (not ni) {
    ni = std::make_unique<NetworkInterface>();
    ni->slot = slot;
    ni->matching = matching;
    ni->logical = logical;
    ni->nic = world_.nics[rank.node].get();
    ni->limits = granted_limits(args.has_desired ? &args.desired : nullptr, *ni->nic, matching);
    ni->portal_table.resize(static_cast<size_t>(ni->limits.max_pt_index) + 1);
    ni->eqs.set_capacity(static_cast<uint32_t>(ni->limits.max_eqs));
    ni->cts.set_capacity(static_cast<uint32_t>(ni->limits.max_cts));
    ni->mds.set_capacity(static_cast<uint32_t>(ni->limits.max_mds));
    ni->entries.set_capacity(static_cast<uint32_t>(ni->limits.max_entries));
    if (logical) // the runtime installs the job's map (PtlSetMap may replace it)
      for (const auto& peer : world_.ranks)
        ni->map.push_back({peer.nid(), peer.pid});
  }
  ni->references++;
  Reply reply = status(Status::Ok);
  reply.result.limits = ni->limits;
  reply.which = encode_handle(HandleKind::NI, slot, 0);
  return reply;
}

Reply Api::ni_fini(RankPortals& rank, ipc::Handle handle)
{
  NetworkInterface* ni = find_ni(rank, handle);
  if (ni == nullptr)
    return status(Status::ArgInvalid);
  if (--ni->references == 0)
    rank.process().nis[ni->slot].reset();
  return status(Status::Ok);
}

Reply Api::ni_status(RankPortals& rank, const ipc::NIStatusArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || args.register_index > 2)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  reply.result.value = args.register_index == 0 ? ni->drop_count : 0;
  return reply;
}

Reply Api::get_id(RankPortals& rank, ipc::Handle handle, bool physical)
{
  NetworkInterface* ni = find_ni(rank, handle);
  if (ni == nullptr)
    return status(Status::ArgInvalid);
  Reply reply = status(Status::Ok);
  if (ni->logical && not physical)
    reply.result.id = {rank.rank, 0};
  else
    reply.result.id = {rank.nid(), rank.pid};
  return reply;
}

Reply Api::set_map(RankPortals& rank, const ipc::MapArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not ni->logical || args.count == 0 || args.entry_size < 8 || args.entry_size > kMaxMapEntrySize)
    return status(Status::ArgInvalid);
  if (args.count > kMaxMapEntries)
    return status(Status::NoSpace);
  std::vector<unsigned char> raw(args.count * args.entry_size);
  if (not job::read_rank_memory(rank.os_pid, args.address, raw.data(), raw.size()))
    return status(Status::ArgInvalid);
  ni->map.resize(args.count);
  for (uint64_t i = 0; i < args.count; ++i) {
    std::memcpy(&ni->map[i].rank_or_nid, raw.data() + i * args.entry_size, 4);
    std::memcpy(&ni->map[i].pid, raw.data() + i * args.entry_size + 4, 4);
  }
  return status(Status::Ok);
}

Reply Api::get_map(RankPortals& rank, const ipc::MapArgs& args)
{
  NetworkInterface* ni = find_ni(rank, args.ni);
  if (ni == nullptr || not ni->logical || args.entry_size < 8 || args.entry_size > kMaxMapEntrySize)
    return status(Status::ArgInvalid);
  if (ni->map.empty())
    return status(Status::NoSpace);
  const uint64_t copied = std::min<uint64_t>(args.count, ni->map.size());
  if (copied > 0) {
    std::vector<unsigned char> raw(copied * args.entry_size, 0);
    for (uint64_t i = 0; i < copied; ++i) {
      std::memcpy(raw.data() + i * args.entry_size, &ni->map[i].rank_or_nid, 4);
      std::memcpy(raw.data() + i * args.entry_size + 4, &ni->map[i].pid, 4);
    }
    if (not job::write_rank_memory(rank.os_pid, args.address, raw.data(), raw.size()))
      return status(Status::ArgInvalid);
  }
  Reply reply = status(Status::Ok);
  reply.result.value = ni->map.size();
  return reply;
}

} // namespace s4bxi::portals
