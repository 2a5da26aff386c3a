// The preload's conversions between a portals4.h flavour and the protocol,
// compiled once per flavour (tests/unit/CMakeLists.txt: unit_abi_convert_bxi
// and unit_abi_convert_sandia), so that each expectation below is checked
// against both ABIs' own names and numbers.
#include "abi_convert.hpp"
#include "ni_addressing.hpp"

#include <gtest/gtest.h>

#include <cstring>

// (not "abi": <cxxabi.h>, through GoogleTest, declares a global namespace abi)
namespace conv = s4bxi::preload::abi;
namespace ipc = s4bxi::ipc;
namespace ni_addressing = s4bxi::preload::ni_addressing;

namespace {

constexpr ipc::Handle kSomeHandle = 0x20000005U; // an EQ handle of the server's encoding

// The ABI's constants as handle values (in the BXI ABI they are NULL, which
// GoogleTest would take for an integer).
const ptl_handle_any_t kInvalid = PTL_INVALID_HANDLE;
const ptl_handle_eq_t kEqNone = PTL_EQ_NONE;
const ptl_handle_ct_t kCtNone = PTL_CT_NONE;

ptl_process_t physical(ptl_nid_t nid, ptl_pid_t pid)
{
  ptl_process_t id;
  std::memset(&id, 0, sizeof id);
  id.phys.nid = nid;
  id.phys.pid = pid;
  return id;
}

ptl_process_t logical(ptl_rank_t rank)
{
  ptl_process_t id;
  std::memset(&id, 0, sizeof id);
  id.rank = rank;
  return id;
}

// A pointer handle with bits above the server's 32 (a template, so that
// only the pointer ABI compiles the cast).
template <class AbiHandle>
AbiHandle wider_than_the_server()
{
  if constexpr (std::is_pointer_v<AbiHandle>)
    return reinterpret_cast<AbiHandle>(uintptr_t{0x100000000ULL} | kSomeHandle);
  else
    return AbiHandle{};
}

} // namespace

TEST(AbiConvert, FlavourIsTheHeaders)
{
  EXPECT_EQ(sizeof(ptl_handle_any_t), conv::kBxiAbi ? 8U : 4U);
  EXPECT_EQ(conv::kPointerHandles, conv::kBxiAbi);
}

TEST(AbiConvert, ServerHandlesSurviveTheRoundTrip)
{
  ptl_handle_any_t handle = conv::handle_from_wire(kSomeHandle);
  EXPECT_EQ(conv::handle_bits(handle), kSomeHandle) << "a handle is the server's value, widened in the BXI ABI";
  EXPECT_EQ(conv::handle_to_wire(handle), kSomeHandle);
  EXPECT_EQ(conv::eq_to_wire(handle), kSomeHandle);
  EXPECT_EQ(conv::ct_to_wire(handle), kSomeHandle);
  EXPECT_NE(handle, kInvalid);
}

TEST(AbiConvert, NoneAndInvalidHandlesByName)
{
  EXPECT_EQ(conv::eq_to_wire(kEqNone), ipc::kHandleNone);
  EXPECT_EQ(conv::ct_to_wire(kCtNone), ipc::kHandleNone);
  EXPECT_EQ(conv::handle_to_wire(kInvalid), ipc::kHandleInvalid);
  EXPECT_EQ(conv::handle_from_wire(ipc::kHandleNone, kEqNone), kEqNone);
  EXPECT_EQ(conv::handle_from_wire(ipc::kHandleNone, kCtNone), kCtNone);
  EXPECT_EQ(conv::handle_from_wire(ipc::kHandleInvalid), kInvalid);
  if (conv::kBxiAbi) {
    // NULL is "none" where a call takes one, and invalid elsewhere.
    EXPECT_EQ(conv::handle_to_wire(kEqNone), ipc::kHandleInvalid);
  } else {
    // Each kind has its own none; another kind's is just an invalid value.
    EXPECT_NE(conv::eq_to_wire(kCtNone), ipc::kHandleNone);
    EXPECT_NE(conv::ct_to_wire(kEqNone), ipc::kHandleNone);
  }
}

TEST(AbiConvert, ValuesTheServerCannotHaveIssuedAreInvalid)
{
  // The protocol's reserved "none" given where a handle is expected.
  EXPECT_EQ(conv::handle_to_wire(conv::handle_of_bits<ptl_handle_any_t>(ipc::kHandleNone)), ipc::kHandleInvalid);
  if constexpr (conv::kPointerHandles) {
    // Upper bits set: not a widened 32-bit handle.
    EXPECT_EQ(conv::handle_to_wire(wider_than_the_server<ptl_handle_any_t>()), ipc::kHandleInvalid);
  }
}

TEST(AbiConvert, WildcardsByName)
{
  EXPECT_EQ(conv::pid_to_wire(PTL_PID_ANY), conv::kWirePidAny);
  EXPECT_EQ(conv::pid_to_wire(7), 7U);
  EXPECT_EQ(conv::pt_index_to_wire(static_cast<ptl_pt_index_t>(PTL_PT_ANY)), ipc::kAnyPtIndex);
  EXPECT_EQ(conv::pt_index_to_wire(3), 3U);
  EXPECT_EQ(conv::uid_to_wire(static_cast<ptl_uid_t>(PTL_UID_ANY)), conv::kWireUidAny);
  EXPECT_EQ(conv::uid_to_wire(1000), 1000U);
}

TEST(AbiConvert, MatchIdsAreReadAsTheirNiReadsThem)
{
  using conv::Addressing;
  ipc::ProcessId any_rank = conv::match_id_to_wire(logical(PTL_RANK_ANY), Addressing::Logical);
  EXPECT_EQ(any_rank.rank_or_nid, conv::kWireRankAny);
  // Rank 0 is a rank on a logical NI, even where PTL_NID_ANY is 0 (BXI).
  EXPECT_EQ(conv::match_id_to_wire(logical(0), Addressing::Logical).rank_or_nid, 0U);
  EXPECT_EQ(conv::match_id_to_wire(logical(5), Addressing::Logical).rank_or_nid, 5U);

  ipc::ProcessId anyone = conv::match_id_to_wire(physical(PTL_NID_ANY, PTL_PID_ANY), Addressing::Physical);
  EXPECT_EQ(anyone.rank_or_nid, conv::kWireNidAny);
  EXPECT_EQ(anyone.pid, conv::kWirePidAny);
  ipc::ProcessId someone = conv::match_id_to_wire(physical(3, 9), Addressing::Physical);
  EXPECT_EQ(someone.rank_or_nid, 3U);
  EXPECT_EQ(someone.pid, 9U);

  // Without the NI, PTL_RANK_ANY is still no node id.
  EXPECT_EQ(conv::match_id_to_wire(logical(PTL_RANK_ANY), Addressing::Unknown).rank_or_nid, conv::kWireRankAny);
}

TEST(AbiConvert, NiAddressingIsRememberedPerHandle)
{
  ni_addressing::remember(0x10000000U, true);
  ni_addressing::remember(0x14000000U, false);
  EXPECT_EQ(ni_addressing::of(0x10000000U), conv::Addressing::Logical);
  EXPECT_EQ(ni_addressing::of(0x14000000U), conv::Addressing::Physical);
  EXPECT_EQ(ni_addressing::of(0x18000000U), conv::Addressing::Unknown);
  ni_addressing::remember(0x14000000U, false); // again: no second slot
  EXPECT_EQ(ni_addressing::of(0x14000000U), conv::Addressing::Physical);
}

TEST(AbiConvert, OptionBitsByName)
{
  EXPECT_EQ(conv::ni_options_to_wire(PTL_NI_MATCHING | PTL_NI_LOGICAL),
            ipc::option::kNIMatching | ipc::option::kNILogical);
  EXPECT_EQ(conv::ni_options_to_wire(PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL), 0U);
  EXPECT_FALSE(conv::ni_options_to_wire(PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_LOGICAL));
  EXPECT_FALSE(conv::ni_options_to_wire(PTL_NI_MATCHING | PTL_NI_LOGICAL | 0x100));

  EXPECT_EQ(conv::options_to_wire(PTL_PT_FLOWCTRL | PTL_PT_ONLY_USE_ONCE, conv::kPTBits),
            ipc::option::kPTFlowControl | ipc::option::kPTOnlyUseOnce);
  EXPECT_EQ(conv::options_to_wire(PTL_IOVEC | PTL_MD_EVENT_CT_BYTES, conv::kMDBits),
            ipc::option::kIovec | ipc::option::kMDEventCtBytes);
  EXPECT_EQ(conv::options_to_wire(PTL_ME_MANAGE_LOCAL | PTL_ME_OP_PUT, conv::kMEBits),
            ipc::option::kEntryManageLocal | ipc::option::kEntryOpPut);
  EXPECT_FALSE(conv::options_to_wire(PTL_ME_MANAGE_LOCAL, conv::kLEBits)) << "an ME-only option on an LE";
  EXPECT_EQ(conv::options_to_wire(PTL_LE_EVENT_CT_BYTES | PTL_LE_IS_ACCESSIBLE, conv::kLEBits),
            ipc::option::kEntryEventCtBytes | ipc::option::kEntryIsAccessible);
}

TEST(AbiConvert, SmallEnumerationsByName)
{
  EXPECT_EQ(conv::list_to_wire(PTL_OVERFLOW_LIST), ipc::ListKind::Overflow);
  EXPECT_EQ(conv::ack_to_wire(PTL_CT_ACK_REQ), ipc::AckRequest::CtAck);
  EXPECT_EQ(conv::ack_to_wire(PTL_OC_ACK_REQ), ipc::AckRequest::OcAck);
  EXPECT_FALSE(conv::ack_to_wire(static_cast<ptl_ack_req_t>(77)));
  EXPECT_EQ(conv::event_kind_from_wire(ipc::EventKind::Link), PTL_EVENT_LINK);
  EXPECT_EQ(conv::event_kind_from_wire(ipc::EventKind::AutoUnlink), PTL_EVENT_AUTO_UNLINK);
  EXPECT_EQ(conv::fail_from_wire(ipc::FailKind::PermViolation), static_cast<ptl_ni_fail_t>(PTL_NI_PERM_VIOLATION));
  EXPECT_EQ(conv::status_from_wire(ipc::Status::EqEmpty), PTL_EQ_EMPTY);
  EXPECT_EQ(conv::status_from_wire(ipc::Status::PtInUse), PTL_PT_IN_USE);
}

TEST(AbiConvert, Timeouts)
{
  EXPECT_EQ(conv::timeout_to_wire(PTL_TIME_FOREVER), -1);
  EXPECT_EQ(conv::timeout_to_wire(0), 0);
  EXPECT_EQ(conv::timeout_to_wire(250), 250);
  if constexpr (std::is_signed_v<ptl_time_t>) {
    EXPECT_EQ(conv::timeout_to_wire(static_cast<ptl_time_t>(-5)), -1) << "BXI: any negative timeout waits forever";
  }
}
