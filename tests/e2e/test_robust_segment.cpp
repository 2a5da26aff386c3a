// A rank cannot crash the server through the shared segment: the server keeps
// its own copy of the layout, the segment's size is sealed, each rank maps
// only its own channel writable, and a damaged channel ends the run with a
// sentence that names the rank, the report written, the others stopped.
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <algorithm>
#include <thread>

namespace e2e {
namespace {

class RobustSegment : public E2ETest {
protected:
    // Rank 1 damages the segment in `mode` (programs/scribble_segment.c);
    // the server must end the run itself: a sentence, a report, a status
    // that is not the server's own crash.
    RunResult damaged(const std::string &mode, const TempDir &dir, const std::vector<std::string> &cfg = {})
    {
        RunOptions options;
        options.timeout = std::chrono::seconds(30);
        std::vector<std::string> args{"-n", "3", "--report", dir.file("report.json")};
        args.insert(args.end(), cfg.begin(), cfg.end());
        args.insert(args.end(), {program("scribble_segment"), mode});
        return run(args, options);
    }

    void expect_reported_end(const RunResult &r, const TempDir &dir, const std::string &sentence)
    {
        EXPECT_NE(r.exit_code, 0) << describe(r);
        EXPECT_EQ(r.term_signal, 0) << "the server itself died\n" << describe(r);
        EXPECT_TRUE(contains(r.err, sentence)) << describe(r);
        EXPECT_TRUE(contains(r.err, "the other ranks were stopped")) << describe(r);
        EXPECT_TRUE(parse_summary(r.err).has_value()) << describe(r);
        std::string error;
        auto report = json::parse(read_file(dir.file("report.json")), &error);
        ASSERT_TRUE(report.has_value()) << error << "\n" << describe(r);
    }
};

// 16 bytes over the segment's header killed the server (SIGSEGV, exit 139,
// no report): it read the channels' offset from there at every access.
TEST_F(RobustSegment, WriteOverTheHeaderStopsTheRankThatDidIt)
{
    TempDir dir;
    auto r = damaged("header", dir);
    expect_reported_end(r, dir, "rank 1 wrote outside its channel, into the emulator's shared memory");
    EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << describe(r);
}

// Scribbling over another rank's channel gave that rank a garbage return code.
TEST_F(RobustSegment, WriteOverAnotherRanksChannelStopsTheRankThatDidIt)
{
    TempDir dir;
    auto r = damaged("neighbour", dir);
    expect_reported_end(r, dir, "rank 1 wrote outside its channel, into the emulator's shared memory");
}

// A rank that truncates (or grows) the segment through the descriptor it
// inherits made the server's next access a SIGBUS: its size is sealed.
TEST_F(RobustSegment, SegmentCannotBeResized)
{
    auto r = run({"-n", "3", program("scribble_segment"), "truncate"});
    expect_all_passed(r, "scribble_segment", 3);
}

// Its own writable mapping of the descriptor, garbage over the header and
// the scheduling page: the server never reads the layout back, the ranks
// only when they start, and the scheduling words only decide who spins.
TEST_F(RobustSegment, GarbageOverTheHeaderThroughAnotherMappingChangesNothing)
{
    auto r = run({"-n", "3", program("scribble_segment"), "remap"});
    expect_all_passed(r, "scribble_segment", 3);
}

// Garbage over its own channel: the rank is named and the run ends.
TEST_F(RobustSegment, GarbageOverItsOwnChannelNamesTheRank)
{
    TempDir dir;
    auto r = damaged("own", dir);
    expect_reported_end(r, dir, "rank 1 overwrote its channel to the emulator");
}

// Steps of polls the process answered itself that match nothing in its
// queues (portals/api_polls.cpp, replay_local_poll): the rank wrote over them.
// (Compute off: a poll is answered in the process only if it ends within a
// PCIe write of the last reply, and measured compute is longer.)
TEST_F(RobustSegment, GarbageOverItsLocalPollStepsNamesTheRank)
{
    TempDir dir;
    auto r = damaged("steps", dir, {"--cfg=s4bxi/compute:none"});
    expect_reported_end(r, dir, "rank 1 overwrote its channel to the emulator");
}

// The same over a PtlPut the process queued for the server (preload/queued_puts.hpp).
TEST_F(RobustSegment, GarbageOverItsQueuedPutNamesTheRank)
{
    TempDir dir;
    auto r = damaged("queued", dir, {"--cfg=s4bxi/compute:none"});
    expect_reported_end(r, dir, "rank 1 overwrote its channel to the emulator");
}

// A thread of rank 1 keeps writing over the relay of the server's futex wakes
// (ipc/wake_relay.hpp: the page is one every rank writes): no rank keeps
// warm long, the relay named is no rank, requests are taken back at once and
// their slots point nowhere. No wake may be lost: the run goes on, whoever
// makes them (the waiters that drain the relay as they leave it, or the
// server when an answer is not taken; server_waiting.relayed_missed counts
// those, a few per run here). (More ranks than cores: only then do waiting
// ranks sleep.)
TEST_F(RobustSegment, GarbageOverTheWakeRelayLosesNoWake)
{
    TempDir dir;
    const unsigned ranks = std::max(4U, std::thread::hardware_concurrency() + 2);
    RunOptions options;
    options.timeout = std::chrono::seconds(60);
    auto r = run({"-n", std::to_string(ranks), "--report", dir.file("report.json"), program("scribble_segment"),
                  "relay_lost"},
                 options);
    expect_all_passed(r, "scribble_segment", static_cast<int>(ranks));
    std::string error;
    auto report = json::parse(read_file(dir.file("report.json")), &error);
    ASSERT_TRUE(report.has_value()) << error << "\n" << describe(r);
    const json::Value *waiting = report->get("server_waiting");
    ASSERT_TRUE(waiting && waiting->get("relayed") && waiting->get("relayed_missed")) << read_file(dir.file("report.json"));
    EXPECT_GT(waiting->get("relayed")->number, 0) << "no wake was handed to the relay named\n"
                                                  << read_file(dir.file("report.json"));
    EXPECT_LE(waiting->get("relayed_missed")->number, waiting->get("relayed")->number);
}

} // namespace
} // namespace e2e
