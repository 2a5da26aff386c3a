// The appends a process answers itself (preload/queued_appends.hpp): what a
// reply's permits cover, with the handle set aside for the entry, once per
// NI and reply; anything else goes to the server.
#include "queued_appends.hpp"

#include <gtest/gtest.h>

namespace s4bxi::preload {
namespace {

constexpr ipc::Handle kNi = 0x28000000;
constexpr ipc::Handle kOtherNi = 0x2c000000;
constexpr ipc::Handle kEntry = 0xa8000021;

class QueuedAppends : public ::testing::Test {
protected:
  ipc::AppendPermit permits[ipc::kMaxAppendPermits]{};

  void SetUp() override
  {
    permits[0].ni = kNi;
    permits[0].matching = 1;
    permits[0].entries[0] = kEntry;
    permits[0].entry_count = 1;
    permits[0].pts_with_room[0] = uint64_t{1} << 12; // PT 12 only
    queued_appends::on_reply(permits, true);
  }

  static ipc::AppendArgs append(uint32_t pt_index = 12)
  {
    ipc::AppendArgs args{};
    args.ni = kNi;
    args.pt_index = pt_index;
    args.list = ipc::ListKind::Priority;
    args.is_matching = 1;
    args.entry.ct = ipc::kHandleNone;
    return args;
  }
};

TEST_F(QueuedAppends, PermittedAppendGetsTheHandleSetAsideOncePerReply)
{
  EXPECT_EQ(queued_appends::admit(append()), kEntry);
  EXPECT_EQ(queued_appends::admit(append()), ipc::kHandleInvalid); // spent until the next reply
  queued_appends::on_reply(permits, true);
  ipc::AppendArgs overflow = append();
  overflow.list = ipc::ListKind::Overflow;
  EXPECT_EQ(queued_appends::admit(overflow), kEntry);
}

// Several handles set aside: one append each, in their order, until they are
// spent; a count beyond what a permit holds (a stray write of the program in
// the channel) holds no more.
TEST_F(QueuedAppends, SeveralAppendsTakeTheHandlesSetAsideInTheirOrder)
{
  permits[0].entries[1] = kEntry + 1;
  permits[0].entries[2] = kEntry + 7;
  permits[0].entry_count = 3;
  queued_appends::on_reply(permits, true);
  EXPECT_EQ(queued_appends::admit(append()), kEntry);
  EXPECT_EQ(queued_appends::admit(append(13)), ipc::kHandleInvalid); // (no room there: none spent)
  EXPECT_EQ(queued_appends::admit(append()), kEntry + 1);
  EXPECT_EQ(queued_appends::admit(append()), kEntry + 7);
  EXPECT_EQ(queued_appends::admit(append()), ipc::kHandleInvalid);
  queued_appends::on_reply(permits, true); // a new reply: all three again
  EXPECT_EQ(queued_appends::admit(append()), kEntry);
  permits[0].entry_count = 1000;
  for (unsigned i = 0; i < ipc::kAppendPermitEntries; ++i)
    permits[0].entries[i] = kEntry + 100 + i;
  queued_appends::on_reply(permits, true);
  unsigned admitted = 0;
  while (queued_appends::admit(append()) != ipc::kHandleInvalid)
    ++admitted;
  EXPECT_EQ(admitted, ipc::kAppendPermitEntries);
}

TEST_F(QueuedAppends, WhatThePermitDoesNotCoverGoesToTheServer)
{
  auto admitted = [this](ipc::AppendArgs args) {
    queued_appends::on_reply(permits, true);
    return queued_appends::admit(args) != ipc::kHandleInvalid;
  };
  EXPECT_FALSE(admitted(append(13)));  // not allocated, or its lists full
  EXPECT_FALSE(admitted(append(300))); // beyond what a permit can tell
  ipc::AppendArgs other = append();
  other.ni = kOtherNi;
  EXPECT_FALSE(admitted(other));
  ipc::AppendArgs le = append();
  le.is_matching = 0; // an LE on a matching NI
  EXPECT_FALSE(admitted(le));
  ipc::AppendArgs counted = append();
  counted.entry.ct = 0x68000001;
  EXPECT_FALSE(admitted(counted));
  ipc::AppendArgs iovec = append();
  iovec.entry.options = ipc::option::kIovec;
  EXPECT_FALSE(admitted(iovec));
  ipc::AppendArgs list = append();
  list.list = static_cast<ipc::ListKind>(5);
  EXPECT_FALSE(admitted(list));
  EXPECT_TRUE(admitted(append()));
}

// Whether the NIC writes an event for the append (portals/api_lists.cpp,
// Api::append): its LINK event, unless disabled; a priority entry's search of
// the unexpected headers, unless the reply saw none on its portal table
// entry (none arrives before the reply's horizon). With none, the process's
// horizon stays where the reply put it.
TEST_F(QueuedAppends, TellsWhetherTheAppendMakesTheNicWriteAnEvent)
{
  permits[0].pts_without_unexpected[0] = uint64_t{1} << 12;
  auto writes_no_event = [this](ipc::AppendArgs args) {
    queued_appends::on_reply(permits, true);
    queued_appends::AppendEvents events;
    EXPECT_EQ(queued_appends::admit(args, &events), kEntry);
    return events.none;
  };
  ipc::AppendArgs linked = append();
  EXPECT_FALSE(writes_no_event(linked)); // its LINK event
  ipc::AppendArgs quiet = append();
  quiet.entry.options = ipc::option::kEntryEventLinkDisable;
  EXPECT_TRUE(writes_no_event(quiet));
  permits[0].pts_without_unexpected[0] = 0; // a header waits: the search may match it
  EXPECT_FALSE(writes_no_event(quiet));
  ipc::AppendArgs overflow = quiet; // an overflow entry searches nothing
  overflow.list = ipc::ListKind::Overflow;
  EXPECT_TRUE(writes_no_event(overflow));
}

// With the queue of its portal table entry named (s4bxi/link-forecasts), an
// append whose one event is its LINK tells where that event goes; one that may
// take an unexpected header, or that makes no event, or on an entry the permit
// does not name, does not.
TEST_F(QueuedAppends, TellsWhereTheLinkEventGoesWhenItIsTheOnlyEvent)
{
  constexpr ipc::Handle kQueue = 0x3c000002;
  permits[0].pts_with_room[0] |= uint64_t{1} << 13;
  permits[0].pt_queues[0] = {13, 0x3c000005};
  permits[0].pt_queues[1] = {12, kQueue};
  permits[0].pt_queue_count = 2;
  auto link_queue = [this](ipc::AppendArgs args) {
    queued_appends::on_reply(permits, true);
    queued_appends::AppendEvents events;
    EXPECT_NE(queued_appends::admit(args, &events), ipc::kHandleInvalid);
    return events.link_eq;
  };
  ipc::AppendArgs linked = append();
  EXPECT_EQ(link_queue(linked), ipc::kHandleInvalid); // a header may wait: it may be taken instead
  permits[0].pts_without_unexpected[0] = uint64_t{1} << 12;
  EXPECT_EQ(link_queue(linked), kQueue);
  ipc::AppendArgs overflow = append();
  overflow.list = ipc::ListKind::Overflow;
  permits[0].pts_without_unexpected[0] = 0; // (an overflow entry takes no header)
  EXPECT_EQ(link_queue(overflow), kQueue);
  ipc::AppendArgs quiet = overflow;
  quiet.entry.options = ipc::option::kEntryEventLinkDisable;
  EXPECT_EQ(link_queue(quiet), ipc::kHandleInvalid);
  EXPECT_EQ(link_queue(append(13)), ipc::kHandleInvalid); // (PT 13 has headers)
  permits[0].pts_without_unexpected[0] = uint64_t{1} << 13;
  EXPECT_EQ(link_queue(append(13)), 0x3c000005U);
  permits[0].pt_queues[0] = permits[0].pt_queues[1];
  permits[0].pt_queue_count = 1;
  EXPECT_EQ(link_queue(append(13)), ipc::kHandleInvalid); // not named
  permits[0].pts_without_unexpected[0] |= uint64_t{1} << 12;
  permits[0].pt_queue_count = 1000; // (a stray write of the program: as many as there can be)
  EXPECT_EQ(link_queue(append(12)), kQueue);
}

TEST_F(QueuedAppends, NoPermitWhenTheRunSaysNo)
{
  queued_appends::on_reply(permits, false); // s4bxi/queued-appends:no
  EXPECT_EQ(queued_appends::admit(append()), ipc::kHandleInvalid);
}

} // namespace
} // namespace s4bxi::preload
