// Translations between the program's portals4.h ABI and the ABI-neutral
// protocol. Everything is converted name by name (never by numeric value), so
// the protocol's numbering and the header's are free to differ.
//
// A value that has no name in the ABI cannot be encoded: the conversions
// report it, and the caller answers PTL_ARG_INVALID without a round trip.
// Everything that can be encoded is sent, and the server judges it.
//
// The library is built once per binary flavour of portals4.h (include/bxi,
// include/sandia or include/sandia-legacy first on the include path); these
// helpers compile against each, and differ only where the ABIs differ in
// kind, not in numbers: handle width, the "none" handles, wildcard values and
// the names one flavour has and another has not.
#pragma once

#include "portals4.h"
#include "protocol.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#if defined(S4BXI_PORTALS4_ABI_BXI) == defined(S4BXI_PORTALS4_ABI_SANDIA)
#error "portals4.h must be one of the emulator's flavours (include/bxi, include/sandia or include/sandia-legacy)"
#endif

namespace s4bxi::preload::abi {

#ifdef S4BXI_PORTALS4_ABI_BXI
inline constexpr bool kBxiAbi = true;
#else
inline constexpr bool kBxiAbi = false;
#endif
// The current generation of Sandia's numbering (2023-24): PtlAbort and
// PTL_ABORTED instead of PTL_INTERRUPTED, no ACK_DISABLE, counting searches.
#if defined(S4BXI_PORTALS4_ABI_SANDIA) && !defined(S4BXI_PORTALS4_SANDIA_LEGACY)
#define S4BXI_ABI_SANDIA_CURRENT 1
inline constexpr bool kSandiaCurrentAbi = true;
#else
inline constexpr bool kSandiaCurrentAbi = false;
#endif

// ---- handles ---------------------------------------------------------------
// A handle the program holds is the server's 32-bit handle: the value itself
// in the Sandia ABI, widened to a pointer in the BXI ABI (the server never
// issues 0, so a handle is never NULL). A value the server cannot have issued
// (upper bits set, the protocol's reserved values) travels as invalid.
//
// In the Sandia ABI the "none" constants are distinct per object kind; only
// the matching one means "none" (a PTL_CT_NONE given as an EQ stays an
// invalid value for the server to reject). In the BXI ABI every "none" and
// PTL_INVALID_HANDLE are NULL: NULL means "none" where the call accepts one
// (eq_to_wire, ct_to_wire) and is invalid elsewhere.

inline constexpr bool kPointerHandles = std::is_pointer_v<ptl_handle_any_t>;

// Templates, so that only the branch of this ABI's handle type is compiled.
template <class AbiHandle>
inline uint64_t handle_bits(AbiHandle handle)
{
  if constexpr (std::is_pointer_v<AbiHandle>)
    return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handle));
  else
    return static_cast<uint64_t>(handle);
}

template <class AbiHandle>
inline AbiHandle handle_of_bits(uint32_t bits)
{
  if constexpr (std::is_pointer_v<AbiHandle>)
    return reinterpret_cast<AbiHandle>(static_cast<uintptr_t>(bits));
  else
    return static_cast<AbiHandle>(bits);
}

inline ipc::Handle handle_to_wire(ptl_handle_any_t handle)
{
  if (handle == PTL_INVALID_HANDLE)
    return ipc::kHandleInvalid;
  const uint64_t bits = handle_bits(handle);
  if (bits > UINT32_MAX or bits == ipc::kHandleNone)
    return ipc::kHandleInvalid;
  return static_cast<ipc::Handle>(bits);
}

inline ipc::Handle eq_to_wire(ptl_handle_eq_t handle)
{
  return handle == PTL_EQ_NONE ? ipc::kHandleNone : handle_to_wire(handle);
}

inline ipc::Handle ct_to_wire(ptl_handle_ct_t handle)
{
  return handle == PTL_CT_NONE ? ipc::kHandleNone : handle_to_wire(handle);
}

// `none` is the ABI's "none" value for the kind of object the handle names.
inline ptl_handle_any_t handle_from_wire(ipc::Handle handle, ptl_handle_any_t none = PTL_INVALID_HANDLE)
{
  if (handle == ipc::kHandleNone)
    return none;
  if (handle == ipc::kHandleInvalid)
    return PTL_INVALID_HANDLE;
  return handle_of_bits<ptl_handle_any_t>(handle);
}

// ---- identifiers and wildcards ---------------------------------------------
// The wildcards as the protocol carries them (the server's matching and
// PtlNIInit compare with these values). Each ABI names its own: in the BXI
// ABI, PTL_NID_ANY and PTL_PID_ANY are 0 and PTL_RANK_ANY is 0x7fffff.
inline constexpr uint32_t kWireRankAny = 0xFFFFFFFFU;
inline constexpr uint32_t kWireNidAny = 0xFFFFU;
inline constexpr uint32_t kWirePidAny = 0xFFFFU;
inline constexpr uint32_t kWireUidAny = 0xFFFFFFFFU;

// The requested pid of PtlNIInit.
inline uint32_t pid_to_wire(ptl_pid_t pid)
{
  return pid == static_cast<ptl_pid_t>(PTL_PID_ANY) ? kWirePidAny : static_cast<uint32_t>(pid);
}

// The requested index of PtlPTAlloc.
inline uint32_t pt_index_to_wire(ptl_pt_index_t index)
{
  return index == static_cast<ptl_pt_index_t>(PTL_PT_ANY) ? ipc::kAnyPtIndex : static_cast<uint32_t>(index);
}

inline uint32_t uid_to_wire(ptl_uid_t uid)
{
  return uid == static_cast<ptl_uid_t>(PTL_UID_ANY) ? kWireUidAny : static_cast<uint32_t>(uid);
}

// How an entry's match_id is read depends on the NI: a rank on a logical NI,
// a (nid, pid) pair on a physical one. The caller says which when it knows
// (see ni_addressing.hpp); otherwise each word gets the wildcard reading that
// cannot be a real identifier of the other kind.
enum class Addressing { Logical, Physical, Unknown };

inline ipc::ProcessId match_id_to_wire(const ptl_process_t& id, Addressing addressing)
{
  const uint32_t word = id.phys.nid; // overlays id.rank in both ABIs
  const bool rank_any = word == static_cast<uint32_t>(PTL_RANK_ANY);
  const bool nid_any = word == static_cast<uint32_t>(PTL_NID_ANY);
  const bool pid_any = id.phys.pid == static_cast<ptl_pid_t>(PTL_PID_ANY);
  ipc::ProcessId out{word, pid_any ? kWirePidAny : static_cast<uint32_t>(id.phys.pid)};
  switch (addressing) {
  case Addressing::Logical:
    if (rank_any)
      out.rank_or_nid = kWireRankAny;
    break;
  case Addressing::Physical:
    if (nid_any)
      out.rank_or_nid = kWireNidAny;
    break;
  case Addressing::Unknown:
    // PTL_RANK_ANY is no real node id in either ABI; PTL_NID_ANY is rank 0
    // in the BXI ABI (and already the protocol's value in the Sandia one),
    // so without knowing the NI it stays what it is.
    if (rank_any)
      out.rank_or_nid = kWireRankAny;
    break;
  }
  return out;
}

// ---- return codes ------------------------------------------------------------

inline int status_from_wire(ipc::Status status)
{
  switch (status) {
  case ipc::Status::Ok: return PTL_OK;
  case ipc::Status::ArgInvalid: return PTL_ARG_INVALID;
  case ipc::Status::CtNoneReached: return PTL_CT_NONE_REACHED;
  case ipc::Status::EqDropped: return PTL_EQ_DROPPED;
  case ipc::Status::EqEmpty: return PTL_EQ_EMPTY;
  case ipc::Status::Fail: return PTL_FAIL;
  case ipc::Status::InUse: return PTL_IN_USE;
#ifdef S4BXI_ABI_SANDIA_CURRENT
  // PTL_INTERRUPTED is gone; the reference implementation fails instead.
  case ipc::Status::Interrupted: return PTL_FAIL;
  case ipc::Status::Aborted: return PTL_ABORTED;
#else
  case ipc::Status::Interrupted: return PTL_INTERRUPTED;
  case ipc::Status::Aborted: return PTL_FAIL; // no PtlAbort in this ABI: never sent
#endif
  case ipc::Status::ListTooLong: return PTL_LIST_TOO_LONG;
  case ipc::Status::NoInit: return PTL_NO_INIT;
  case ipc::Status::NoSpace: return PTL_NO_SPACE;
  case ipc::Status::PidInUse: return PTL_PID_IN_USE;
  case ipc::Status::PtFull: return PTL_PT_FULL;
  case ipc::Status::PtEqNeeded: return PTL_PT_EQ_NEEDED;
  case ipc::Status::PtInUse: return PTL_PT_IN_USE;
  case ipc::Status::Ignored: return PTL_IGNORED;
  }
  return PTL_FAIL; // a status this library does not know: a newer server
}

// ---- option bits -------------------------------------------------------------

struct BitName {
  unsigned int abi;
  uint32_t wire;
};

inline constexpr BitName kPTBits[] = {
    {PTL_PT_ONLY_USE_ONCE, ipc::option::kPTOnlyUseOnce},
    {PTL_PT_ONLY_TRUNCATE, ipc::option::kPTOnlyTruncate},
    {PTL_PT_FLOWCTRL, ipc::option::kPTFlowControl},
#ifdef PTL_PT_ALLOC_DISABLED // current Sandia generation only
    {PTL_PT_ALLOC_DISABLED, ipc::option::kPTAllocDisabled},
#endif
#ifdef PTL_PT_MATCH_UNORDERED // not in the BXI ABI
    // A hint that matching may ignore order; matching in order honours it.
    {PTL_PT_MATCH_UNORDERED, 0},
#endif
};

inline constexpr BitName kMDBits[] = {
    {PTL_IOVEC, ipc::option::kIovec},
    {PTL_MD_EVENT_SUCCESS_DISABLE, ipc::option::kMDEventSuccessDisable},
    {PTL_MD_EVENT_CT_SEND, ipc::option::kMDEventCtSend},
    {PTL_MD_EVENT_CT_REPLY, ipc::option::kMDEventCtReply},
    {PTL_MD_EVENT_CT_ACK, ipc::option::kMDEventCtAck},
    {PTL_MD_EVENT_CT_BYTES, ipc::option::kMDEventCtBytes},
    {PTL_MD_UNORDERED, ipc::option::kMDUnordered},
    {PTL_MD_EVENT_SEND_DISABLE, ipc::option::kMDEventSendDisable},
    {PTL_MD_VOLATILE, ipc::option::kMDVolatile},
#ifdef PTL_MD_UNRELIABLE // current Sandia generation only
    {PTL_MD_UNRELIABLE, ipc::option::kMDUnreliable},
#endif
};

// MEs and LEs share their first bit names; the ME-only ones (the last
// kMEOnlyBits of the table) are bits without a name on an LE.
#ifdef PTL_LE_ACK_DISABLE // not in the current Sandia generation
inline constexpr unsigned int kLEAckDisable = PTL_LE_ACK_DISABLE;
#else
inline constexpr unsigned int kLEAckDisable = 0;
#endif
inline constexpr unsigned int kLEOptionNames =
    PTL_IOVEC | PTL_LE_OP_PUT | PTL_LE_OP_GET | PTL_LE_USE_ONCE | kLEAckDisable | PTL_LE_UNEXPECTED_HDR_DISABLE |
    PTL_LE_IS_ACCESSIBLE | PTL_LE_EVENT_LINK_DISABLE | PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_FLOWCTRL_DISABLE |
    PTL_LE_EVENT_SUCCESS_DISABLE | PTL_LE_EVENT_OVER_DISABLE | PTL_LE_EVENT_UNLINK_DISABLE | PTL_LE_EVENT_CT_COMM |
    PTL_LE_EVENT_CT_OVERFLOW | PTL_LE_EVENT_CT_BYTES;
inline constexpr BitName kMEBits[] = {
    {PTL_IOVEC, ipc::option::kIovec},
    {PTL_ME_OP_PUT, ipc::option::kEntryOpPut},
    {PTL_ME_OP_GET, ipc::option::kEntryOpGet},
    {PTL_ME_USE_ONCE, ipc::option::kEntryUseOnce},
#ifdef PTL_ME_ACK_DISABLE
    {PTL_ME_ACK_DISABLE, ipc::option::kEntryAckDisable},
#endif
    {PTL_ME_UNEXPECTED_HDR_DISABLE, ipc::option::kEntryUnexpectedHdrDisable},
    {PTL_ME_IS_ACCESSIBLE, ipc::option::kEntryIsAccessible},
    {PTL_ME_EVENT_LINK_DISABLE, ipc::option::kEntryEventLinkDisable},
    {PTL_ME_EVENT_COMM_DISABLE, ipc::option::kEntryEventCommDisable},
    {PTL_ME_EVENT_FLOWCTRL_DISABLE, ipc::option::kEntryEventFlowctrlDisable},
    {PTL_ME_EVENT_SUCCESS_DISABLE, ipc::option::kEntryEventSuccessDisable},
    {PTL_ME_EVENT_OVER_DISABLE, ipc::option::kEntryEventOverDisable},
    {PTL_ME_EVENT_UNLINK_DISABLE, ipc::option::kEntryEventUnlinkDisable},
    {PTL_ME_EVENT_CT_COMM, ipc::option::kEntryEventCtComm},
    {PTL_ME_EVENT_CT_OVERFLOW, ipc::option::kEntryEventCtOverflow},
    {PTL_ME_EVENT_CT_BYTES, ipc::option::kEntryEventCtBytes},
    {PTL_ME_MANAGE_LOCAL, ipc::option::kEntryManageLocal},
    {PTL_ME_NO_TRUNCATE, ipc::option::kEntryNoTruncate},
    {PTL_ME_MAY_ALIGN, ipc::option::kEntryMayAlign},
#ifdef PTL_ME_LOCAL_INC_UH_RLENGTH // current Sandia generation only
    {PTL_ME_LOCAL_INC_UH_RLENGTH, ipc::option::kEntryLocalIncUhRlength},
#endif
};
#ifdef PTL_ME_LOCAL_INC_UH_RLENGTH
inline constexpr std::size_t kMEOnlyBits = 4;
#else
inline constexpr std::size_t kMEOnlyBits = 3;
#endif
inline constexpr std::span<const BitName> kLEBits = std::span(kMEBits).first(std::size(kMEBits) - kMEOnlyBits);
static_assert(
    [] {
      for (const BitName& name : kMEBits) {
        bool le_name = (name.abi & ~kLEOptionNames) == 0;
        bool in_le_table = &name < kMEBits + kLEBits.size();
        if (le_name != in_le_table)
          return false;
      }
      return true;
    }(),
    "kLEBits must be exactly the LE option names");

// Empty when `options` has a bit that the table does not name.
inline std::optional<uint32_t> options_to_wire(unsigned int options, std::span<const BitName> names)
{
  uint32_t wire = 0;
  for (const BitName& name : names) {
    if ((options & name.abi) != 0) {
      wire |= name.wire;
      options &= ~name.abi;
    }
  }
  if (options != 0)
    return std::nullopt;
  return wire;
}

// The protocol has one bit per pair (matching or not, logical or physical),
// so exactly one member of each pair must be given for the request to say
// anything.
inline std::optional<uint32_t> ni_options_to_wire(unsigned int options)
{
  constexpr unsigned int kNames = PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_LOGICAL | PTL_NI_PHYSICAL;
  if ((options & ~kNames) != 0)
    return std::nullopt;
  bool matching = (options & PTL_NI_MATCHING) != 0;
  bool logical = (options & PTL_NI_LOGICAL) != 0;
  if (matching == ((options & PTL_NI_NO_MATCHING) != 0) or logical == ((options & PTL_NI_PHYSICAL) != 0))
    return std::nullopt;
  return (matching ? ipc::option::kNIMatching : 0U) | (logical ? ipc::option::kNILogical : 0U);
}

// ---- small enumerations --------------------------------------------------------

inline std::optional<ipc::ListKind> list_to_wire(ptl_list_t list)
{
  switch (list) {
  case PTL_PRIORITY_LIST: return ipc::ListKind::Priority;
  case PTL_OVERFLOW_LIST: return ipc::ListKind::Overflow;
  default: return std::nullopt;
  }
}

inline std::optional<ipc::AckRequest> ack_to_wire(ptl_ack_req_t ack)
{
  switch (ack) {
  case PTL_NO_ACK_REQ: return ipc::AckRequest::None;
  case PTL_ACK_REQ: return ipc::AckRequest::Ack;
  case PTL_CT_ACK_REQ: return ipc::AckRequest::CtAck;
  case PTL_OC_ACK_REQ: return ipc::AckRequest::OcAck;
  default: return std::nullopt;
  }
}

// PTL_TIME_FOREVER is 0xffffffff (unsigned) in the Sandia ABI and -1 (long)
// in the BXI ABI, where any negative timeout waits forever as well.
inline int64_t timeout_to_wire(ptl_time_t timeout_ms)
{
  if (timeout_ms == PTL_TIME_FOREVER)
    return -1;
  const int64_t value = static_cast<int64_t>(timeout_ms);
  return value < 0 ? -1 : value;
}

inline ptl_event_kind_t event_kind_from_wire(ipc::EventKind kind)
{
  switch (kind) {
  case ipc::EventKind::Get: return PTL_EVENT_GET;
  case ipc::EventKind::GetOverflow: return PTL_EVENT_GET_OVERFLOW;
  case ipc::EventKind::Put: return PTL_EVENT_PUT;
  case ipc::EventKind::PutOverflow: return PTL_EVENT_PUT_OVERFLOW;
  case ipc::EventKind::Atomic: return PTL_EVENT_ATOMIC;
  case ipc::EventKind::AtomicOverflow: return PTL_EVENT_ATOMIC_OVERFLOW;
  case ipc::EventKind::FetchAtomic: return PTL_EVENT_FETCH_ATOMIC;
  case ipc::EventKind::FetchAtomicOverflow: return PTL_EVENT_FETCH_ATOMIC_OVERFLOW;
  case ipc::EventKind::Reply: return PTL_EVENT_REPLY;
  case ipc::EventKind::Send: return PTL_EVENT_SEND;
  case ipc::EventKind::Ack: return PTL_EVENT_ACK;
  case ipc::EventKind::PtDisabled: return PTL_EVENT_PT_DISABLED;
  case ipc::EventKind::Link: return PTL_EVENT_LINK;
  case ipc::EventKind::AutoUnlink: return PTL_EVENT_AUTO_UNLINK;
  case ipc::EventKind::AutoFree: return PTL_EVENT_AUTO_FREE;
  case ipc::EventKind::Search: return PTL_EVENT_SEARCH;
  }
  return static_cast<ptl_event_kind_t>(kind); // unknown to this library: a newer server
}

inline ptl_ni_fail_t fail_from_wire(ipc::FailKind fail)
{
  switch (fail) {
  case ipc::FailKind::Ok: return PTL_NI_OK;
  case ipc::FailKind::Undeliverable: return PTL_NI_UNDELIVERABLE;
  case ipc::FailKind::PtDisabled: return PTL_NI_PT_DISABLED;
  case ipc::FailKind::Dropped: return PTL_NI_DROPPED;
  case ipc::FailKind::PermViolation: return PTL_NI_PERM_VIOLATION;
  case ipc::FailKind::OpViolation: return PTL_NI_OP_VIOLATION;
  case ipc::FailKind::Segv: return PTL_NI_SEGV;
  case ipc::FailKind::NoMatch: return PTL_NI_NO_MATCH;
  }
  return PTL_NI_UNDELIVERABLE; // unknown to this library: still a failure
}

// ---- structures ------------------------------------------------------------------

// Both words travel: the rank overlays the nid, and the server knows whether
// the NI is logical (rank) or physical (nid, pid).
inline ipc::ProcessId process_to_wire(const ptl_process_t& process)
{
  return ipc::ProcessId{process.phys.nid, process.phys.pid};
}

inline ptl_process_t process_from_wire(const ipc::ProcessId& process)
{
  ptl_process_t out{};
  out.phys.nid = process.rank_or_nid;
  out.phys.pid = process.pid;
  return out;
}

// ptl_ni_limits_t and ipc::NILimits have the same members by name, in both
// directions (the ABI's types may be narrower or wider).
template <class To, class From> To copy_limits(const From& limits)
{
  To out{};
  out.max_entries = limits.max_entries;
  out.max_unexpected_headers = limits.max_unexpected_headers;
  out.max_mds = limits.max_mds;
  out.max_cts = limits.max_cts;
  out.max_eqs = limits.max_eqs;
  out.max_pt_index = limits.max_pt_index;
  out.max_iovecs = limits.max_iovecs;
  out.max_list_size = limits.max_list_size;
  out.max_triggered_ops = limits.max_triggered_ops;
  out.features = limits.features;
  out.max_msg_size = limits.max_msg_size;
  out.max_atomic_size = limits.max_atomic_size;
  out.max_fetch_atomic_size = limits.max_fetch_atomic_size;
  out.max_waw_ordered_size = limits.max_waw_ordered_size;
  out.max_war_ordered_size = limits.max_war_ordered_size;
  out.max_volatile_size = limits.max_volatile_size;
  return out;
}

inline ipc::NILimits limits_to_wire(const ptl_ni_limits_t& limits)
{
  return copy_limits<ipc::NILimits>(limits);
}

inline ptl_ni_limits_t limits_from_wire(const ipc::NILimits& limits)
{
  return copy_limits<ptl_ni_limits_t>(limits);
}

inline uint64_t address_of(const void* pointer)
{
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
}

inline void* pointer_of(uint64_t address)
{
  return reinterpret_cast<void*>(static_cast<uintptr_t>(address));
}

inline ptl_event_t event_from_wire(const ipc::Event& event)
{
  ptl_event_t out{};
  out.start = pointer_of(event.start);
  out.user_ptr = pointer_of(event.user_ptr);
  out.hdr_data = event.hdr_data;
  out.match_bits = event.match_bits;
  out.rlength = event.rlength;
  out.mlength = event.mlength;
  out.remote_offset = event.remote_offset;
  out.initiator = process_from_wire(event.initiator);
  out.uid = event.uid;
  out.pt_index = event.pt_index;
  out.type = event_kind_from_wire(event.type);
  out.ptl_list = event.overflow_list != 0 ? PTL_OVERFLOW_LIST : PTL_PRIORITY_LIST;
  out.ni_fail_type = fail_from_wire(event.ni_fail_type);
  // No atomic operation reaches the protocol yet; these carry the ABI's
  // numbering when they do.
  out.atomic_operation = static_cast<ptl_op_t>(event.atomic_operation);
  out.atomic_type = static_cast<ptl_datatype_t>(event.atomic_type);
  return out;
}

inline ptl_ct_event_t ct_event_from_wire(const ipc::CTEvent& event)
{
  return ptl_ct_event_t{event.success, event.failure};
}

inline ipc::CTEvent ct_event_to_wire(const ptl_ct_event_t& event)
{
  return ipc::CTEvent{event.success, event.failure};
}

} // namespace s4bxi::preload::abi
