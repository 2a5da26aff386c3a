// The threads of a rank are independent (issue 20, item 1): each thread that
// calls the emulator has a lane of its own, served at its own simulated time,
// so that one thread's blocking call never holds another thread's call,
// sleep, clock or exit. See programs/thread_lanes.c.
#include "e2e_test.hpp"

#include <cstdio>
#include <set>

namespace e2e {
namespace {

class ThreadLanes : public E2ETest {
protected:
    // `abi`: "" (Sandia's current generation), "sandia-legacy" or "bxi".
    RunResult run_mode(const std::string& mode, int nranks, const std::vector<std::string>& options = {},
                       const std::string& abi = "")
    {
        std::vector<std::string> args = options;
        if (!abi.empty())
            args.insert(args.end(), {"--abi", abi});
        args.insert(args.end(),
                    {"-n", std::to_string(nranks), program(abi.empty() ? "thread_lanes" : abi + "/thread_lanes"), mode});
        return run(args);
    }

    void expect_all_passed(const RunResult& r, int nranks)
    {
        expect_success(r, nranks);
        for (int rank = 0; rank < nranks; ++rank)
            EXPECT_TRUE(contains(r.out, "thread_lanes: rank " + std::to_string(rank) + ": all checks passed"))
                << "rank " << rank << " did not pass\n" << describe(r);
        EXPECT_FALSE(contains(r.err, "deadlock")) << describe(r);
    }
};

// A helper's usleep returns while the main thread waits in PtlEQWait, and
// takes its own simulated time: the Put it makes afterwards ends the wait.
TEST_F(ThreadLanes, ASleepRunsWhileAnotherThreadWaits)
{
    for (int nranks : {1, 2}) {
        auto r = run_mode("sleep-while-waiting", nranks);
        expect_all_passed(r, nranks);
    }
}

// Same program, same options, compute not measured: the same simulated
// times, run after run (the helper's first call is served at its own clock).
TEST_F(ThreadLanes, ThreadsAreDeterministicWithoutMeasuredCompute)
{
    std::string first;
    for (int run_index = 0; run_index < 3; ++run_index) {
        auto r = run_mode("sleep-while-waiting", 2, {"--cfg=s4bxi/compute:none"});
        expect_all_passed(r, 2);
        // (The ranks' lines come in any order: their processes write them.)
        std::set<std::string> rank_lines;
        for (const auto& line : lines(r.out))
            if (contains(line, "helper slept"))
                rank_lines.insert(line);
        const auto summary = parse_summary(r.err);
        ASSERT_TRUE(summary.has_value()) << describe(r);
        char end[64];
        std::snprintf(end, sizeof end, "simulated end %.9f s", summary->simulated_s);
        std::string figures = end;
        for (const auto& line : rank_lines)
            figures += "\n" + line;
        if (run_index == 0)
            first = figures;
        else
            EXPECT_EQ(figures, first) << describe(r);
    }
}

// Eight threads wait on eight EQs while the main thread sleeps and then
// sends them a Put each: no wait holds another thread's calls.
TEST_F(ThreadLanes, EightThreadsWaitOnEightQueues)
{
    for (int nranks : {1, 2}) {
        auto r = run_mode("eight-waiters", nranks);
        expect_all_passed(r, nranks);
        EXPECT_LT(r.wall_s, 10.0) << describe(r);
    }
}

// The same in the other binary flavours (their own libportals).
TEST_F(ThreadLanes, EveryFlavourHasIndependentThreads)
{
    for (const std::string abi : {"sandia-legacy", "bxi"}) {
        SCOPED_TRACE(abi);
        expect_all_passed(run_mode("eight-waiters", 2, {}, abi), 2);
        expect_all_passed(run_mode("sleep-while-waiting", 1, {}, abi), 1);
        auto r = run_mode("exit-from-helper", 1, {}, abi);
        EXPECT_EQ(r.exit_code, 7) << describe(r);
    }
}

// As the reference implementation's abort tests: the aborting thread first
// sleeps 1 s, which it does on its own lane while the workers wait; then its
// PtlAbort ends both waits, twice.
TEST_F(ThreadLanes, AnAbortAfterASleepEndsTheOtherThreadsWaits)
{
    auto r = run_mode("abort-after-sleep", 2);
    expect_all_passed(r, 2);
    EXPECT_TRUE(contains(r.out, "both waits aborted after the sleep, twice")) << describe(r);
    EXPECT_LT(r.wall_s, 10.0) << describe(r);
}

// exit(7) from a helper thread while the main thread is in PtlEQWait: the
// run ends with the program's status, not as a deadlock.
TEST_F(ThreadLanes, ExitFromAHelperWhileTheMainThreadWaits)
{
    auto r = run_mode("exit-from-helper", 2);
    EXPECT_EQ(r.exit_code, 7) << describe(r);
    EXPECT_TRUE(contains(r.err, "exited with status 7")) << describe(r);
    EXPECT_FALSE(contains(r.err, "deadlock")) << describe(r);
    EXPECT_LT(r.wall_s, 10.0) << describe(r);
}

} // namespace
} // namespace e2e
