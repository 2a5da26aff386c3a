// Self-checking Portals programs: each exits 0 only if every check passed,
// and prints "<program>: rank R: all checks passed" per rank.
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <cstdio>

namespace e2e {
namespace {

class Programs : public E2ETest {
protected:
};

// Put and Get from 0 B to 4 MiB, both directions, with guard bytes.
TEST_F(Programs, PutGetDataIntegrity)
{
    auto r = run({"-n", "2", program("put_get_integrity")});
    expect_all_passed(r, "put_get_integrity", 2);
    EXPECT_TRUE(contains(r.out, "from 0 B to 4194304 B")) << describe(r);
}

// Match bits, ignore bits, use-once, priority order, overflow list,
// truncation, drops, LE on a non-matching NI.
TEST_F(Programs, MatchListEntries)
{
    auto r = run({"-n", "2", program("me_matching")});
    expect_all_passed(r, "me_matching", 2);
}

// SEND/ACK/PUT/GET/REPLY event fields; counting events.
TEST_F(Programs, EventQueuesAndCounters)
{
    auto r = run({"-n", "2", program("eq_ct_events")});
    expect_all_passed(r, "eq_ct_events", 2);
}

// Exact return codes for bogus handles and arguments.
TEST_F(Programs, InvalidArgumentsReturnSpecifiedCodes)
{
    auto r = run({"-n", "1", program("invalid_args")});
    expect_all_passed(r, "invalid_args", 1);
}

// PMI_RANK/PMI_SIZE, the rank map and round-robin placement on the default
// platform (2 nodes).
// The ranks also get the launcher's environment (a variable of the test's),
// with the emulator's own variables replacing any of the same name (a stale
// PMI_RANK), no blocked signal and no caught signal.
TEST_F(Programs, RankIdentityAndPlacement)
{
    setenv("S4BXI_TEST_INHERITED", "yes", 1);
    setenv("PMI_RANK", "77", 1);
    auto r = run({"-n", "2", program("rank_env"), "--nodes=2", "--expect-inherited"});
    unsetenv("S4BXI_TEST_INHERITED");
    unsetenv("PMI_RANK");
    expect_all_passed(r, "rank_env", 2);
}

// Linked against another libportals.so.4 (one whose calls all fail): the
// preloaded emulator library must be the one that answers.
TEST_F(Programs, RunsWhenLinkedAgainstAnotherPortalsLibrary)
{
    auto r = run({"-n", "2", program("other_lib_user")});
    expect_all_passed(r, "other_lib_user", 2);
    EXPECT_FALSE(contains(r.err, "non-emulated")) << describe(r);
}

// A rank that only polls PtlEQGet/PtlCTGet while the other sleeps 2 simulated
// seconds twice: the events arrive at the right simulated times, and the
// polls do not each cost a round trip (DESIGN.md, "Polling").
TEST_F(Programs, PollingOnlyRankIsCheap)
{
    auto r = run({"-n", "2", program("poll_loop")});
    expect_all_passed(r, "poll_loop", 2);
    long polls = -1, ct_polls = -1;
    for (const auto &line : lines(r.out))
        if (sscanf(line.c_str(), "poll_loop: %ld empty PtlEQGet, %ld PtlCTGet", &polls, &ct_polls) == 2)
            break;
    ASSERT_GE(polls, 0) << describe(r);
    // 2 s of 100 ns polls would be 2e7 round trips; blocking after a streak keeps it small.
    EXPECT_LT(polls, 10000) << describe(r);
    EXPECT_LT(ct_polls, 10000) << describe(r);
}

// OpenMPI's progress loop: PtlEQGet on one EQ, a zero-timeout PtlEQPoll on
// two; the message lands in the second. A rank blocked after a streak of
// empty polls must wake for any object it polled (it used to wait for the
// last one only, a false deadlock), and polls must stay few.
TEST_F(Programs, PollingSeveralObjectsWakesForAnyOfThem)
{
    auto r = run({"-n", "2", program("poll_two_eqs")});
    expect_all_passed(r, "poll_two_eqs", 2);
    long polls = -1, ct_polls = -1;
    for (const auto &line : lines(r.out))
        if (sscanf(line.c_str(), "poll_two_eqs: %ld empty EQ polls, %ld empty CT polls", &polls, &ct_polls) == 2)
            break;
    ASSERT_GE(polls, 0) << describe(r);
    EXPECT_LT(polls, 10000) << describe(r);
    EXPECT_LT(ct_polls, 10000) << describe(r);
    // The 2 s rank 0 spent polling are charged as polling, not waiting.
    TempDir dir;
    const std::string report = dir.file("run.json");
    r = run({"-n", "2", "--cfg=s4bxi/compute:none", "--report", report, program("poll_two_eqs")});
    expect_all_passed(r, "poll_two_eqs", 2);
    std::string error;
    auto doc = json::parse(read_file(report), &error);
    ASSERT_TRUE(doc.has_value()) << error;
    for (const auto &entry : doc->get("per_rank")->array) {
        if (entry.get("rank")->number == 0) {
            EXPECT_GT(entry.get("poll_s")->number, 1.99) << describe(r);
        }
    }
}

// A bounded loop of polls with nothing else in between, while the other rank
// waits for what comes after it: blocking the poller until its EQ changes
// would be a false deadlock. Each poll is charged one poll period, so the
// loop lasts polls x s4bxi/poll-cost (the default 100 ns) of simulated time,
// plus what was still in flight when it began (the barrier's last
// acknowledgments: a blocked poller polls again once nothing else is pending).
TEST_F(Programs, BoundedPollLoopIsNotADeadlockAndKeepsItsTime)
{
    for (const char *polls : {"3", "1000", "20000"}) {
        auto r = run({"-n", "2", "--cfg=s4bxi/compute:none", program("poll_bounded"), polls});
        expect_all_passed(r, "poll_bounded", 2);
        long made = -1;
        double simulated = -1;
        for (const auto &line : lines(r.out))
            if (sscanf(line.c_str(), "poll_bounded: %ld polls in %lf simulated s", &made, &simulated) == 2)
                break;
        ASSERT_EQ(made, atol(polls)) << describe(r);
        EXPECT_GE(simulated, made * 100e-9 - 1e-12) << describe(r);
        EXPECT_LT(simulated, made * 100e-9 + 1e-6) << describe(r);
    }
}

// Ranks that poll without end while nothing else can happen: a deadlock,
// reported with what each rank does, in bounded wall time. (300 polls: each
// wakes the polling process, which on a loaded machine, two CPU hogs beside
// the test, took up to 30 ms: 2,000 polls ran past the harness's limit.)
TEST_F(Programs, PollingForeverIsReportedAsADeadlock)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/poll-deadlock-after:300", program("poll_bounded"), "forever"});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 0 polling in vain (PtlEQGet) at poll_bounded.c:")) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 in PtlEQWait")) << describe(r);
    EXPECT_LT(r.wall_s, 30.0) << describe(r);
}

// A message that lands in an overflow entry at the simulated time its
// receive is appended (scanned over 3000 one-nanosecond offsets) is reported
// once, as PUT or PUT_OVERFLOW, never lost between the lists.
TEST_F(Programs, ArrivalDuringAppendIsNeverLost)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/compute:none", program("arrival_during_append")});
    expect_all_passed(r, "arrival_during_append", 2);
    EXPECT_TRUE(contains(r.out, "3000 trials, every Put reported")) << describe(r);
}

// --ppn and --placement block: ranks fill a node before the next.
TEST_F(Programs, BlockPlacementWithRanksPerNode)
{
    auto r = run({"-n", "6", "--platform", "fattree:2;4,4;1,2;1,2", "--ppn", "2", "--placement", "block",
                  program("rank_env"), "--block=2"});
    expect_all_passed(r, "rank_env", 6);
    r = run({"-n", "6", "--platform", "fattree:2;4,4;1,2;1,2", "--ppn", "2", program("rank_env"), "--nodes=16"});
    expect_all_passed(r, "rank_env", 6);
}

// A generated two-level fat tree of 16 nodes: 4 ranks on 4 nodes, two of
// them behind another leaf switch.
TEST_F(Programs, FatTreePlatform)
{
    auto r = run({"-n", "4", "--platform", "fattree:2;4,4;1,2;1,2",
                  program("rank_env"), "--nodes=16"});
    expect_all_passed(r, "rank_env", 4);
}

// Same program, with "--" between the options and the program.
TEST_F(Programs, DoubleDashSeparatesProgram)
{
    auto r = run({"-n", "2", "--", program("rank_env")});
    expect_all_passed(r, "rank_env", 2);
}

} // namespace
} // namespace e2e
