// Target-side matching rules of the Portals 4.1 specification (section 3.12).
#include "portals/matching.hpp"

#include <gtest/gtest.h>

using namespace s4bxi::portals;
using namespace s4bxi::ipc::option;

namespace {

ListEntry me(uint64_t match_bits, uint64_t ignore_bits, uint32_t options = kEntryOpPut | kEntryOpGet)
{
  ListEntry entry;
  entry.entry.start = 0x1000;
  entry.entry.length = 100;
  entry.entry.match_bits = match_bits;
  entry.entry.ignore_bits = ignore_bits;
  entry.entry.match_id = {kAnyId, 0};
  entry.entry.uid = kAnyId;
  entry.entry.options = options;
  entry.matching = true;
  return entry;
}

IncomingHeader put(uint64_t match_bits, uint64_t length = 10, uint64_t offset = 0, uint32_t rank = 3)
{
  IncomingHeader header;
  header.op = Operation::Put;
  header.match_bits = match_bits;
  header.rlength = length;
  header.remote_offset = offset;
  header.initiator_rank = rank;
  header.initiator = {7, 2};
  header.uid = 1000;
  return header;
}

} // namespace

TEST(Matching, MatchBitsMustBeEqualOutsideIgnoreBits)
{
  EXPECT_TRUE(entry_accepts(me(0x42, 0), put(0x42), true));
  EXPECT_FALSE(entry_accepts(me(0x42, 0), put(0x43), true));
  EXPECT_TRUE(entry_accepts(me(0x40, 0x0F), put(0x4F), true));
  EXPECT_FALSE(entry_accepts(me(0x40, 0x0F), put(0x5F), true));
}

TEST(Matching, OperationMustBeEnabledOnTheEntry)
{
  EXPECT_FALSE(entry_accepts(me(1, 0, kEntryOpGet), put(1), true));
  IncomingHeader get = put(1);
  get.op = Operation::Get;
  EXPECT_TRUE(entry_accepts(me(1, 0, kEntryOpGet), get, true));
  EXPECT_FALSE(entry_accepts(me(1, 0, kEntryOpPut), get, true));
}

TEST(Matching, LogicalMatchIdSelectsTheInitiatorRank)
{
  ListEntry entry = me(1, 0);
  entry.entry.match_id = {3, 0};
  EXPECT_TRUE(entry_accepts(entry, put(1, 10, 0, 3), true));
  EXPECT_FALSE(entry_accepts(entry, put(1, 10, 0, 4), true));
}

TEST(Matching, PhysicalMatchIdHasSeparateNidAndPidWildcards)
{
  ListEntry entry = me(1, 0);
  entry.entry.match_id = {7, kAnyNidPid};
  EXPECT_TRUE(entry_accepts(entry, put(1), false));
  entry.entry.match_id = {8, kAnyNidPid};
  EXPECT_FALSE(entry_accepts(entry, put(1), false));
  entry.entry.match_id = {kAnyNidPid, 2};
  EXPECT_TRUE(entry_accepts(entry, put(1), false));
}

TEST(Matching, UidIsChecked)
{
  ListEntry entry = me(1, 0);
  entry.entry.uid = 1000;
  EXPECT_TRUE(entry_accepts(entry, put(1), true));
  entry.entry.uid = 999;
  EXPECT_FALSE(entry_accepts(entry, put(1), true));
}

TEST(Matching, ListEntriesIgnoreMatchBits)
{
  ListEntry le = me(0, 0);
  le.matching = false;
  EXPECT_TRUE(entry_accepts(le, put(0xDEADBEEF), true));
}

TEST(Placement, TruncatesToTheRoomLeft)
{
  auto where = place(me(0, 0), put(0, 80, 50));
  ASSERT_TRUE(where);
  EXPECT_EQ(where->offset, 50u);
  EXPECT_EQ(where->mlength, 50u);
  where = place(me(0, 0), put(0, 10, 200));
  ASSERT_TRUE(where);
  EXPECT_EQ(where->mlength, 0u);
}

TEST(Placement, NoTruncateRejectsWhatDoesNotFit)
{
  EXPECT_FALSE(place(me(0, 0, kEntryOpPut | kEntryNoTruncate), put(0, 80, 50)));
  EXPECT_TRUE(place(me(0, 0, kEntryOpPut | kEntryNoTruncate), put(0, 50, 50)));
}

TEST(Placement, LocallyManagedOffsetIgnoresTheRemoteOffset)
{
  ListEntry entry = me(0, 0, kEntryOpPut | kEntryManageLocal);
  entry.local_offset = 30;
  auto where = place(entry, put(0, 10, 77));
  ASSERT_TRUE(where);
  EXPECT_EQ(where->offset, 30u);
  EXPECT_EQ(where->mlength, 10u);
}

TEST(Unlink, UseOnceAndMinFree)
{
  EXPECT_TRUE(unlinks_after(me(0, 0, kEntryOpPut | kEntryUseOnce)));
  EXPECT_FALSE(unlinks_after(me(0, 0, kEntryOpPut)));
  ListEntry entry = me(0, 0, kEntryOpPut | kEntryManageLocal);
  entry.entry.min_free = 20;
  entry.local_offset = 70; // 30 left
  EXPECT_FALSE(unlinks_after(entry));
  entry.local_offset = 90; // 10 left
  EXPECT_TRUE(unlinks_after(entry));
}
