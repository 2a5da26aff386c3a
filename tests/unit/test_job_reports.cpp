// The pieces of the job's reports: rank lists as ranges, and the livelock
// watch's rule (failures alone for a stretch of simulated time).
#include "job/blocked_ranks.hpp"
#include "job/livelock_watch.hpp"

#include <gtest/gtest.h>

TEST(BlockedRanks, RankListsAreWrittenAsRanges)
{
  EXPECT_EQ(s4bxi::job::rank_ranges({0}), "0");
  EXPECT_EQ(s4bxi::job::rank_ranges({0, 1, 2, 5, 7, 8}), "0-2, 5, 7-8");
  EXPECT_EQ(s4bxi::job::rank_ranges({}), "");
}

TEST(LivelockWatch, OnlyFailuresForTheWholeStretchAreALivelock)
{
  s4bxi::job::LivelockWatch watch;
  std::string said;
  watch.on_livelock = [&said](const std::string& sentence) { said = sentence; };
  const double window = 1.0; // s4bxi/livelock-after's default
  // Failures spread over less than the window: nothing.
  for (int i = 0; i < 2000; ++i)
    watch.failed(i * (window / 4000), 3, "PtlPut to node 1 portal 4, failing with PTL_NI_PT_DISABLED");
  EXPECT_EQ(said, "");
  // A success starts the stretch again.
  watch.succeeded(0.6);
  for (int i = 0; i < 2000; ++i)
    watch.failed(0.6 + i * (window / 2000), 3, "PtlPut to node 1 portal 4, failing with PTL_NI_PT_DISABLED");
  EXPECT_EQ(said, "");
  watch.failed(1.7, 3, "PtlPut to node 1 portal 4, failing with PTL_NI_PT_DISABLED");
  EXPECT_NE(said.find("livelock: for 1.1 s of simulated time 2001 operations failed and none succeeded"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("rank 3 repeats PtlPut to node 1 portal 4, failing with PTL_NI_PT_DISABLED (2001 times in a row)"),
            std::string::npos)
      << said;
}

TEST(LivelockWatch, FewFailuresAreNotALivelock)
{
  s4bxi::job::LivelockWatch watch;
  bool said = false;
  watch.on_livelock = [&said](const std::string&) { said = true; };
  for (int i = 0; i < 999; ++i)
    watch.failed(i * 0.01, 0, "PtlGet to node 1 portal 2, failing with PTL_NI_DROPPED");
  EXPECT_FALSE(said) << "999 failures over 10 s: below the minimum count";
}
