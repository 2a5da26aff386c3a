// Helpers shared by the files that implement the Portals calls (api*.cpp):
// replies, and finding the objects that handles name. Not for other users.
#pragma once

#include "../nic/message.hpp"
#include "../world.hpp"

#include "protocol.hpp"

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

// The MDs of an operation stay in use (PtlMDRelease answers PTL_IN_USE): the
// one it sends from until its SEND event, the one its reply lands in until
// the reply (nic/initiator.cpp), both until a pending triggered operation is
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
