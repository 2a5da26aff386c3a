// Runs that go wrong: a rank crashes, a rank exits early with an error, every
// rank waits forever, the user interrupts the run. Each must end promptly
// with the specified status and sentence, and leave nothing behind (checked
// by the fixture).
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <csignal>
#include <sstream>

namespace e2e {
namespace {

// The text of a test program's source, and the line (1-based) of the first
// line containing `text` (0 if none).
std::string source_of(const std::string &program_name)
{
    return read_file(std::string(E2E_PROGRAMS_SOURCE_DIR) + "/" + program_name + ".c");
}

int line_of(const std::string &source, const std::string &text)
{
    std::istringstream in(source);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
        if (line.find(text) != std::string::npos)
            return number;
    return 0;
}

class Failures : public E2ETest {};

// The launcher gets `signal` after `delay` (a run that would not end by itself).
RunOptions signalled_after(std::chrono::milliseconds delay, int signal)
{
    RunOptions opts;
    opts.signal_after = delay;
    opts.signal = signal;
    opts.timeout = std::chrono::milliseconds(20000);
    return opts;
}

TEST_F(Failures, SegfaultingRankIsReported)
{
    auto r = run({"-n", "2", program("crash_segv")});
    EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << describe(r);
    EXPECT_TRUE(contains(
        r.err, "s4bxi-run: rank 1 was killed by signal 11 (Segmentation fault)"))
        << describe(r);
    EXPECT_FALSE(icontains(r.err, "deadlock"))
        << "a crash is not a deadlock\n" << describe(r);
    EXPECT_LT(r.wall_s, 30.0) << describe(r);
}

// The crash report: where (function, file, line of the program), the
// faulting address, the simulated time, the last Portals call, a backtrace,
// and the same in the --report file.
TEST_F(Failures, CrashIsReportedWithItsPlaceInTheProgram)
{
    TempDir dir;
    const std::string report = dir.file("run.json");
    auto r = run({"-n", "2", "--report", report, program("crash_where"), "segv"});
    EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << describe(r);
    const std::string source = source_of("crash_where");
    const std::string place = "crash_where.c:" + std::to_string(line_of(source, "/* the crash */"));
    EXPECT_TRUE(contains(r.err, "rank 1 was killed by signal 11 (Segmentation fault) at address 0x0 in "
                                "store_through() at " + place + ", at simulated time "))
        << describe(r);
    EXPECT_TRUE(contains(r.err, ", last Portals call PtlCTWait; the other ranks were stopped")) << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run:   #0 store_through() at " + place)) << describe(r);
    EXPECT_TRUE(contains(r.err, " main() at crash_where.c:")) << describe(r);

    std::string error;
    auto doc = json::parse(read_file(report), &error);
    ASSERT_TRUE(doc.has_value()) << error;
    const json::Value *crash = doc->get("per_rank")->array.at(1).get("crash");
    ASSERT_TRUE(crash != nullptr && crash->kind == json::Value::Kind::Object) << read_file(report);
    EXPECT_EQ(crash->get("signal")->number, SIGSEGV);
    EXPECT_EQ(crash->get("address")->string, "0x0");
    EXPECT_EQ(crash->get("backtrace")->array.at(0).string, "store_through() at " + place);
    EXPECT_EQ(doc->get("per_rank")->array.at(0).get("crash")->kind, json::Value::Kind::Null);
    EXPECT_TRUE(contains(doc->get("stop_reason")->string, "rank 1 was killed by signal 11")) << read_file(report);
}

// abort() from a nested call: the report names the program's function that
// called abort, past the C library's frames.
TEST_F(Failures, AbortIsReportedWhereTheProgramCalledIt)
{
    auto r = run({"-n", "2", program("crash_where"), "abort"});
    EXPECT_EQ(r.exit_code, 128 + SIGABRT) << describe(r);
    const std::string place = "crash_where.c:" + std::to_string(line_of(source_of("crash_where"), "/* the abort */"));
    EXPECT_TRUE(contains(r.err, "rank 1 was killed by signal 6 (Aborted) in nested_abort() at " + place))
        << describe(r);
    EXPECT_TRUE(contains(r.err, "abort() at ")) << "the backtrace shows abort itself\n" << describe(r);
}

// A crash in a helper thread: that thread's stack.
TEST_F(Failures, CrashInAThreadIsReportedWithThatThreadsStack)
{
    auto r = run({"-n", "2", program("crash_where"), "thread"});
    EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << describe(r);
    const std::string place =
        "crash_where.c:" + std::to_string(line_of(source_of("crash_where"), "/* the thread's crash */"));
    EXPECT_TRUE(contains(r.err, "at address 0x0 in thread_body() at " + place)) << describe(r);
}

// The program's own handler runs first and decides: no crash report.
TEST_F(Failures, ProgramsOwnSignalHandlerRunsFirst)
{
    auto r = run({"-n", "2", program("crash_where"), "handled"});
    EXPECT_EQ(r.exit_code, 7) << describe(r);
    EXPECT_TRUE(contains(r.err, "crash_where: the program's own handler ran")) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 exited with status 7")) << describe(r);
    EXPECT_FALSE(contains(r.err, "#0 ")) << describe(r);
}

TEST_F(Failures, RankExitingWithErrorIsReported)
{
    auto r = run({"-n", "2", program("early_exit")});
    EXPECT_EQ(r.exit_code, 3) << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: rank 1 exited with status 3"))
        << describe(r);
    EXPECT_FALSE(icontains(r.err, "deadlock")) << describe(r);
    EXPECT_LT(r.wall_s, 30.0) << describe(r);
}

TEST_F(Failures, DeadlockIsDetectedAndExplained)
{
    TempDir dir;
    const std::string report = dir.file("run.json");
    auto r = run({"-n", "2", "--report", report, program("deadlock")});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    // The waiting ranks, grouped, with the call they wait in and where the
    // program made it (deadlock.c, the line of its PtlEQWait, in main).
    const int line = line_of(source_of("deadlock"), "PtlEQWait(eq, &ev)");
    EXPECT_TRUE(contains(r.err, "deadlock: no rank can make progress (ranks 0-1 in PtlEQWait on EQ ")) << describe(r);
    EXPECT_TRUE(contains(r.err, "at deadlock.c:" + std::to_string(line) + " in main()")) << describe(r);
    EXPECT_FALSE(contains(r.err, "returned from PtlEQWait"))
        << "a waiting rank was woken up\n" << describe(r);
    EXPECT_LT(r.wall_s, 30.0) << describe(r);
    // The same in the report, per rank.
    std::string error;
    auto doc = json::parse(read_file(report), &error);
    ASSERT_TRUE(doc.has_value()) << error;
    for (const auto &rank : doc->get("per_rank")->array) {
        const json::Value *blocked = rank.get("blocked");
        ASSERT_TRUE(blocked != nullptr && blocked->kind == json::Value::Kind::Object) << read_file(report);
        EXPECT_EQ(blocked->get("call_site")->string, "deadlock.c:" + std::to_string(line) + " in main()");
        EXPECT_TRUE(contains(blocked->get("in")->string, "PtlEQWait on EQ ")) << read_file(report);
    }
    EXPECT_TRUE(contains(doc->get("stop_reason")->string, "deadlock: ")) << read_file(report);
}

// 64 ranks deadlocked at two places: two groups, each with its call site, so
// that the report stays one short sentence.
TEST_F(Failures, DeadlockOfManyRanksIsGroupedByCallSite)
{
    auto r = run({"-n", "64", "--platform", "fattree:2;8,8;1,8;1,1", program("deadlock_groups")});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    const std::string source = source_of("deadlock_groups");
    EXPECT_TRUE(contains(r.err, "rank 0 in PtlCTWait on CT ")) << describe(r);
    EXPECT_TRUE(contains(r.err, "at deadlock_groups.c:" + std::to_string(line_of(source, "PtlCTWait(")) +
                                    " in lonely_wait(); ranks 1-63 in PtlEQWait on EQ "))
        << describe(r);
    EXPECT_TRUE(contains(r.err, "at deadlock_groups.c:" + std::to_string(line_of(source, "PtlEQWait(")) +
                                    " in exchange())"))
        << describe(r);
    for (const auto &text : lines(r.err)) {
        if (contains(text, "deadlock:")) {
            EXPECT_LT(text.size(), 400u) << "the report of 64 ranks should be short\n" << describe(r);
        }
    }
}

// A rank retrying forever against a portal that flow control disabled and
// nobody enables again: not a hang, but one sentence saying what it repeats,
// after s4bxi/livelock-after simulated seconds (short here).
TEST_F(Failures, LivelockIsDetectedAndExplained)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/livelock-after:0.02", program("retry_forever")});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "livelock")) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 0 repeats PtlPut to node 1 portal 4, failing with PTL_NI_PT_DISABLED"))
        << describe(r);
    auto summary = parse_summary(r.err);
    ASSERT_TRUE(summary) << describe(r);
    EXPECT_GE(summary->simulated_s, 0.02) << describe(r);
}

// The same retries, bounded: failures alone are not a livelock.
TEST_F(Failures, BoundedRetriesAreNotALivelock)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/livelock-after:0.0001", program("retry_forever"), "bounded"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_FALSE(contains(r.err, "livelock")) << describe(r);
}

// A rank blocked in the kernel outside any emulated call (reading a pipe
// nobody writes): the simulation goes on without it (parked), and since no
// other rank can ever write to the pipe and nothing else can happen, it is a
// deadlock, reported as such, with the system call and what it reads.
TEST_F(Failures, RankBlockedOutsideEmulatedCallsIsADeadlock)
{
    RunOptions opts;
    opts.timeout = std::chrono::milliseconds(20000);
    auto r = run({"-n", "2", program("stall_pipe")}, opts);
    EXPECT_FALSE(r.timed_out) << describe(r);
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "deadlock: no rank can make progress (rank 0 in PtlEQWait")) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 in read(fd ")) << describe(r);
    EXPECT_TRUE(contains(r.err, ": pipe:[")) << describe(r);
    EXPECT_TRUE(contains(r.err, "outside any emulated call")) << describe(r);
    EXPECT_LT(r.wall_s, 10.0) << describe(r);
}

// The same with parking off (s4bxi/park-after:0): the simulation waits for
// the blocked rank; the launcher says which rank, in which system call, on
// what, and since no other rank can run to write to the pipe, it is a
// deadlock too.
TEST_F(Failures, RankBlockedOutsideEmulatedCallsWithoutParkingIsADeadlock)
{
    RunOptions opts;
    opts.timeout = std::chrono::milliseconds(20000);
    auto r = run({"-n", "2", "--cfg=s4bxi/park-after:0", "--cfg=s4bxi/stall-notice-after:0.3", program("stall_pipe")},
                 opts);
    EXPECT_FALSE(r.timed_out) << describe(r);
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "for rank 1's next call")) << describe(r);
    EXPECT_TRUE(contains(r.err, "deadlock: rank 1 is blocked in the kernel in read(fd ")) << describe(r);
    EXPECT_TRUE(contains(r.err, ": pipe:[")) << describe(r);
    EXPECT_TRUE(contains(r.err, "no other rank can run to end it (rank 0 ")) << describe(r);
}

// A rank that runs without calling anything, with preemption off: said too
// (it may spin on memory).
TEST_F(Failures, RankRunningWithoutCallsIsExplained)
{
    const RunOptions opts = signalled_after(std::chrono::milliseconds(1500), SIGINT);
    auto r = run({"-n", "1", "--cfg=s4bxi/stall-notice-after:0.3", "--cfg=s4bxi/sync-quantum:0",
                  program("forever_compute")}, opts);
    EXPECT_FALSE(r.timed_out) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 0 is running without calling anything")) << describe(r);
}

// Ctrl-C while a rank computes forever (no call the simulation could act
// on): the launcher must stop every rank and the server, and exit non-zero.
TEST_F(Failures, InterruptStopsEverything)
{
    const RunOptions opts = signalled_after(std::chrono::milliseconds(1000), SIGINT);
    auto r = run({"-n", "2", program("forever_compute")}, opts);
    EXPECT_FALSE(r.timed_out);
    EXPECT_NE(r.exit_code, 0) << describe(r);
    EXPECT_LT(r.wall_s, 6.0)
        << "the run should end within 5 s of SIGINT\n" << describe(r);
}

TEST_F(Failures, TerminateStopsEverything)
{
    const RunOptions opts = signalled_after(std::chrono::milliseconds(1000), SIGTERM);
    auto r = run({"-n", "2", program("forever_compute")}, opts);
    EXPECT_NE(r.exit_code, 0) << describe(r);
    EXPECT_LT(r.wall_s, 6.0)
        << "the run should end within 5 s of SIGTERM\n" << describe(r);
}

} // namespace
} // namespace e2e
