// Ranks blocked in the kernel outside any emulated call (a pipe between two
// ranks): after s4bxi/park-after real seconds the simulation goes on without
// the blocked rank, and its clock resumes at the simulated time it woke, as
// a wait (simserver/job/parked_ranks.hpp). The deadlock case is in
// test_failures.cpp.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class BlockedInKernel : public E2ETest {};

// Rank 1 reads a pipe created before the ranks were started; rank 0 sleeps
// 2 ms of simulated time, then writes. Before, the simulation waited for
// rank 1's next call, so rank 0's sleep never ended.
TEST_F(BlockedInKernel, PipeBetweenRanksCreatedBeforeTheyStart)
{
    RunOptions opts;
    opts.shared_pipe = true;
    opts.timeout = std::chrono::milliseconds(20000);
    auto r = run({"-n", "2", program("pipe_between_ranks"), std::to_string(kSharedPipeRead),
                  std::to_string(kSharedPipeWrite)},
                 opts);
    EXPECT_FALSE(r.timed_out) << describe(r);
    expect_all_passed(r, "pipe_between_ranks", 2);
    EXPECT_TRUE(contains(r.out, "pipe_between_ranks: rank 1 woke ")) << describe(r);
    // The blocked time is a wait of rank 1, not compute.
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s.has_value()) << describe(r);
    EXPECT_GE(s->simulated_s, 0.002) << describe(r);
}

// The same, rank 0 computing between its sleep and the write: when rank 1
// wakes, the simulation has not reached rank 0's clock (it goes by what rank
// 0 has surely computed, which the kernel tells late). Before, rank 1 resumed
// at the simulation's time, before the write, in about half the runs.
TEST_F(BlockedInKernel, ARankWokenByAComputingRankDoesNotWakeBeforeTheWrite)
{
    RunOptions opts;
    opts.shared_pipe = true;
    opts.timeout = std::chrono::milliseconds(20000);
    auto r = run({"-n", "2", program("pipe_between_ranks"), std::to_string(kSharedPipeRead),
                  std::to_string(kSharedPipeWrite), "compute"},
                 opts);
    EXPECT_FALSE(r.timed_out) << describe(r);
    expect_all_passed(r, "pipe_between_ranks", 2);
    EXPECT_TRUE(contains(r.out, "pipe_between_ranks: rank 1 woke ")) << describe(r);
}

// Polls the process answered itself just before it slept in the kernel are
// replayed when the server parks it, at the simulated time they were made:
// replayed at its next call, after the simulation went on without it (rank
// 0's sleep, the Put's landing), the empty poll of the queue where the Put's
// event lands would have found that event ("do not match"). The trace shows
// that rank 1 was parked (a WAIT "blocked in the kernel"). Parking is decided
// in real time (every thread of the process seen asleep for
// s4bxi/park-after): on a loaded machine a run may not park it, and then
// checks nothing of the replay; the run is made again, up to 5 times, until
// one does.
TEST_F(BlockedInKernel, PollsAnsweredBeforeAParkAreReplayedWhenItIsParked)
{
    bool parked = false;
    for (int attempt = 0; attempt < 5 && not parked; ++attempt) {
        const auto traced = run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/park-after:0.005"},
                                       {"-n", "2", program("polls_before_pmi"),
                                        std::string(E2E_BINARY_DIR) + "/lib/libs4bxi-pmi.so", "park"});
        expect_all_passed(traced.result, "polls_before_pmi", 2);
        EXPECT_FALSE(contains(traced.result.err, "do not match")) << describe(traced.result);
        parked = contains(traced.events, "rank1,blocked in the kernel");
    }
    EXPECT_TRUE(parked) << "rank 1 was never parked in 5 runs";
}

// A rank blocked writing to a full pipe (its standard output, read slowly)
// is not parked: the simulated results do not depend on the reader's speed.
TEST_F(BlockedInKernel, RankBlockedWritingItsOutputIsNotParked)
{
    auto time_after_barrier = [](const RunResult &r) {
        for (const auto &line : lines(r.out))
            if (line.rfind("flood_stdout: simulated time", 0) == 0)
                return line;
        return std::string("(none)");
    };
    const std::string command = launcher() + " -n 2 --cfg=s4bxi/compute:none " + program("flood_stdout") + " " +
                                unique_marker();
    auto fast = run_command({"/bin/sh", "-c", command});
    // The same, its output read only after half a second (1 MiB fills the pipe).
    auto slow = run_command({"/bin/sh", "-c", command + " | (sleep 0.5; cat)"});
    EXPECT_EQ(fast.exit_code, 0) << describe(fast);
    EXPECT_EQ(slow.exit_code, 0) << describe(slow);
    EXPECT_GE(slow.wall_s, 0.5) << describe(slow);
    EXPECT_NE(time_after_barrier(fast), "(none)") << describe(fast);
    EXPECT_EQ(time_after_barrier(slow), time_after_barrier(fast)) << describe(slow);
}

} // namespace
} // namespace e2e
