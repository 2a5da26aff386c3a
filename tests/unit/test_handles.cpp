#include "portals/handles.hpp"
#include "portals/slot_table.hpp"

#include <gtest/gtest.h>

using namespace s4bxi::portals;

TEST(Handles, RoundTripAndNeverCollideWithReservedValues)
{
  for (auto kind : {HandleKind::NI, HandleKind::EQ, HandleKind::CT, HandleKind::MD, HandleKind::ME, HandleKind::LE})
    for (uint32_t ni = 0; ni < kNISlots; ++ni)
      for (uint32_t index : {0U, 1U, 12345U, kMaxIndex}) {
        auto handle = encode_handle(kind, ni, index);
        // The Sandia ABI's PTL_EQ_NONE, PTL_CT_NONE and PTL_INVALID_HANDLE.
        EXPECT_NE(handle, 0x3fffffffU);
        EXPECT_NE(handle, 0x5fffffffU);
        EXPECT_NE(handle, 0xffffffffU);
        auto decoded = decode_handle(handle);
        ASSERT_TRUE(decoded);
        EXPECT_EQ(decoded->kind, kind);
        EXPECT_EQ(decoded->ni, ni);
        EXPECT_EQ(decoded->index, index);
      }
}

TEST(Handles, GarbageDoesNotDecode)
{
  EXPECT_FALSE(decode_handle(0));
  EXPECT_FALSE(decode_handle(s4bxi::ipc::kHandleNone));
  EXPECT_FALSE(decode_handle(s4bxi::ipc::kHandleInvalid));
  EXPECT_FALSE(decode_handle(7U << 29));
}

TEST(SlotTable, ReusesFreedSlotsAndRespectsCapacity)
{
  SlotTable<int> table(2);
  auto a = table.insert(1);
  auto b = table.insert(2);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(table.insert(3));
  table.erase(*a);
  EXPECT_EQ(table.find(*a), nullptr);
  auto c = table.insert(4);
  ASSERT_TRUE(c);
  EXPECT_EQ(*c, *a);
  EXPECT_EQ(*table.find(*c), 4);
  EXPECT_EQ(table.live(), 2u);
}

// An index set aside (for an entry the process appends itself) is never
// given by insert, counts against the capacity, and holds nothing until
// insert_at; given back unused, insert may give it again.
TEST(SlotTable, ReservedIndexIsSetAsideUntilUsedOrGivenBack)
{
  SlotTable<int> table(2);
  auto reserved = table.reserve();
  ASSERT_TRUE(reserved);
  EXPECT_EQ(table.find(*reserved), nullptr);
  auto other = table.insert(1);
  ASSERT_TRUE(other);
  EXPECT_NE(*other, *reserved);
  EXPECT_FALSE(table.insert(2)); // full: the reserved index counts
  table.insert_at(*reserved, 3);
  EXPECT_EQ(*table.find(*reserved), 3);
  table.erase(*reserved);
  auto again = table.reserve();
  ASSERT_TRUE(again);
  table.unreserve(*again);
  auto reused = table.insert(4);
  ASSERT_TRUE(reused);
  EXPECT_EQ(*reused, *again);
  EXPECT_EQ(table.live(), 2u);
}
