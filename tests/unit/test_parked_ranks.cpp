// When the simulation may still wait for a parked rank (job/parked_ranks.hpp):
// a rank with a thread in the crash handler, which sleeps until the server has
// read its stack, is ending, not deadlocked.
#include "job/job_control.hpp"
#include "job/parked_ranks.hpp"
#include "nic/nic.hpp"
#include "world.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <memory>

namespace {

struct OneRankWorld {
  s4bxi::World world;
  std::unique_ptr<s4bxi::ipc::Channel> channel = std::make_unique<s4bxi::ipc::Channel>();
  OneRankWorld()
  {
    world.ranks.resize(1);
    world.ranks[0].channel = channel.get();
    // A process that does not exist: none of its threads runs.
    world.ranks[0].os_pid = -1;
  }
};

} // namespace

TEST(ParkedRanks, NothingToWakeWithoutACrashInProgress)
{
  OneRankWorld job;
  EXPECT_EQ(s4bxi::job::why_parked_may_wake(job.world), "");
}

// Seen under load: a rank's helper thread crashed, its main thread waited in
// pthread_join, and the run ended as a deadlock before the crash was read.
TEST(ParkedRanks, ARankInItsCrashHandlerMayStillEnd)
{
  OneRankWorld job;
  job.channel->crash_signal.store(SIGSEGV);
  EXPECT_EQ(s4bxi::job::why_parked_may_wake(job.world), "a thread of rank 0 is in its crash handler")
      << "a crash in progress was taken for a deadlock";
}

TEST(ParkedRanks, ACrashFlagThatLastsIsNoLongerWaitedFor)
{
  OneRankWorld job;
  job.channel->crash_signal.store(SIGSEGV);
  // The handler waits 5 s at most: a flag seen 11 s ago is a stray write.
  job.world.ranks[0].crash_seen_s = s4bxi::job::wall_clock_now() - 11.0;
  EXPECT_EQ(s4bxi::job::why_parked_may_wake(job.world), "");
}

// Seen beside CPU hogs (hpcc, 1 run in 70): a parked lane (a thread of Open
// MPI asleep in a futex, after three calls) was taken for a running thread,
// since its current call (what it waits for in the kernel) was taken for a
// call in the server; the outside holder then held the simulation for it
// forever, the ranks' own calls taken and never served.
TEST(ParkedRanks, AParkedLaneIsLookedAtThroughItsOwnThread)
{
  OneRankWorld job;
  s4bxi::RankPortals& lane = job.world.lanes.emplace_back();
  s4bxi::ipc::Lane channel_lane;
  lane.rank = 0;
  lane.owner = &job.world.ranks[0];
  lane.lane = &channel_lane;
  lane.os_pid = -1;
  lane.os_tid = 4242;
  lane.parked = true;
  lane.current_call = "futex(0x7f6cedd0f040), outside any emulated call";
  EXPECT_EQ(lane.thread_in_call(), 0) << "a parked thread is in no call";
  EXPECT_EQ(s4bxi::job::threads_of(job.world, lane).only, 4242);
  lane.parked = false;
  lane.current_call = "PtlEQGet";
  EXPECT_EQ(lane.thread_in_call(), 4242);
  EXPECT_EQ(s4bxi::job::threads_of(job.world, lane).only, -1) << "a thread in a call runs nothing of its own";
}
