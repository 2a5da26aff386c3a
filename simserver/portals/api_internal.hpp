// Helpers shared by the files that implement the Portals calls (api*.cpp):
// replies, finding the objects that handles name, creating and freeing them.
// Not for other users.
#pragma once

#include "../job/rank_memory.hpp"
#include "../nic/message.hpp"
#include "../world.hpp"

#include "protocol.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace s4bxi::portals::detail {

inline ipc::Reply status(ipc::Status s)
{
  ipc::Reply reply{};
  reply.status = s;
  return reply;
}

// Finds the NI named by an NI handle.
inline NetworkInterface* find_ni(RankPortals& rank, ipc::Handle handle)
{
  auto decoded = decode_handle(handle);
  if (not decoded || decoded->kind != HandleKind::NI || decoded->index != 0)
    return nullptr;
  return rank.ni(decoded->ni);
}

// Finds an object of kind `kind` and its NI.
template <class T>
T* find_object(RankPortals& rank, ipc::Handle handle, HandleKind kind, SlotTable<T> NetworkInterface::*table,
               NetworkInterface** ni_out = nullptr)
{
  auto decoded = decode_handle(handle);
  if (not decoded || decoded->kind != kind)
    return nullptr;
  NetworkInterface* ni = rank.ni(decoded->ni);
  if (ni == nullptr)
    return nullptr;
  if (ni_out != nullptr)
    *ni_out = ni;
  return (ni->*table).find(decoded->index);
}

// An optional EQ/CT handle given with an object: none, or one of the same NI.
inline bool valid_optional(RankPortals& rank, ipc::Handle handle, HandleKind kind, uint32_t ni_slot)
{
  if (handle == ipc::kHandleNone)
    return true;
  auto decoded = decode_handle(handle);
  if (not decoded || decoded->kind != kind || decoded->ni != ni_slot)
    return false;
  NetworkInterface* ni = rank.ni(ni_slot);
  if (ni == nullptr)
    return false;
  return kind == HandleKind::EQ ? ni->eqs.find(decoded->index) != nullptr : ni->cts.find(decoded->index) != nullptr;
}

// Stores a new object and answers with its handle.
template <class T> ipc::Reply created(SlotTable<T>& table, T value, HandleKind kind, uint32_t ni_slot)
{
  auto index = table.insert(std::move(value));
  if (not index)
    return status(ipc::Status::NoSpace);
  ipc::Reply reply = status(ipc::Status::Ok);
  reply.result.handle = encode_handle(kind, ni_slot, *index);
  return reply;
}

// Frees the EQ or CT named by `handle`; its waiters must see that it is gone.
template <class T>
ipc::Reply freed(RankPortals& rank, ipc::Handle handle, HandleKind kind, SlotTable<T> NetworkInterface::*table)
{
  NetworkInterface* ni = nullptr;
  if (find_object(rank, handle, kind, table, &ni) == nullptr)
    return status(ipc::Status::ArgInvalid);
  (ni->*table).erase(decode_handle(handle)->index);
  rank.notify();
  return status(ipc::Status::Ok);
}

// The handles of a PtlEQPoll/PtlCTPoll: from the request when the process
// put them there, else read from the rank (the low 32 bits of each element
// are the handle in every ABI we serve). The same checks either way.
inline bool read_handles(const RankPortals& rank, const ipc::PollArgs& args, std::vector<ipc::Handle>& out)
{
  if (args.handle_size != 4 && args.handle_size != 8)
    return false;
  // No more handles than the rank's NIs can have objects: a larger size is
  // a wrong argument, not an allocation to attempt.
  uint64_t objects = 0;
  for (const auto& ni : rank.process().nis)
    if (ni)
      objects += static_cast<uint64_t>(std::max(ni->limits.max_eqs, 0)) +
                 static_cast<uint64_t>(std::max(ni->limits.max_cts, 0));
  if (args.size > objects)
    return false;
  if (args.is_inline != 0) {
    if (args.size > ipc::kMaxInlinePollHandles)
      return false;
    out.assign(args.inline_handles, args.inline_handles + args.size);
    return true;
  }
  std::vector<unsigned char> raw(static_cast<size_t>(args.size) * args.handle_size);
  if (not job::read_rank_memory(rank.os_pid, args.handles_address, raw.data(), raw.size()))
    return false;
  out.resize(args.size);
  for (uint32_t i = 0; i < args.size; ++i) {
    uint64_t value = 0;
    std::memcpy(&value, raw.data() + static_cast<size_t>(i) * args.handle_size, args.handle_size);
    out[i] = static_cast<ipc::Handle>(value);
  }
  return true;
}

// The MDs of an operation stay in use (PtlMDRelease answers PTL_IN_USE): the
// one it sends from until its SEND event, the one its reply lands in until
// the reply (initiator.cpp), both until a pending triggered operation is
// cancelled.
inline void hold_buffers(RankPortals& rank, const nic::InitiatorOp& op)
{
  NetworkInterface* ni = rank.ni(op.ni_slot);
  if (ni == nullptr)
    return;
  for (ipc::Handle handle : {op.put.handle, op.get.handle})
    if (auto decoded = decode_handle(handle))
      if (MemoryDescriptor* md = ni->mds.find(decoded->index))
        md->operations_in_flight++;
}

} // namespace s4bxi::portals::detail
