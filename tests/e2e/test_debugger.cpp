// s4bxi-run --gdb: a rank starts under gdb, stopped at main, while the others
// run; the simulated clock of the whole job waits while it is stopped. gdb is
// driven non-interactively here (its commands given through --debugger).
#include "e2e_test.hpp"

#include <algorithm>

namespace e2e {
namespace {

class Debugger : public E2ETest {
protected:
    // The lines of the program's own output that carry its results. gdb and
    // the ranks share the output pipe, and gdb writes a line in pieces: a
    // rank's lines may come between two of them ("[Inferior debug_target: sum
    // 185", and the rest of gdb's line after the rank's), so they are looked
    // for anywhere in a line.
    static std::vector<std::string> results(const RunResult &r)
    {
        std::vector<std::string> kept;
        for (const auto &line : lines(r.out))
            if (const size_t at = line.find("debug_target: "); at != std::string::npos)
                kept.push_back(line.substr(at));
        std::sort(kept.begin(), kept.end());
        return kept;
    }
    // gdb's own output: the ranks' lines taken out (a rank writes its lines
    // at once, so they come whole, between two of gdb's pieces).
    static std::string gdb_output(const RunResult &r)
    {
        std::string text = r.out;
        for (const auto &line : results(r))
            if (const size_t at = text.find(line + "\n"); at != std::string::npos)
                text.erase(at, line.size() + 1);
        return text;
    }
};

TEST_F(Debugger, BreakpointsInOneRankLeaveResultsAndSimulatedTimesUnchanged)
{
    auto plain = run({"-n", "2", "--cfg=s4bxi/compute:none", program("debug_target")});
    expect_success(plain, 2);
    auto debugged = run({"-n", "2", "--cfg=s4bxi/compute:none", "--gdb", "1", "--debugger",
                         "gdb -batch -ex 'break transform' -ex continue -ex 'print value' -ex continue -ex continue "
                         "-ex continue -ex continue -ex continue",
                         program("debug_target")});
    expect_success(debugged, 2);
    // Stopped at main first, then in transform() at each of the 5 rounds.
    const std::string gdb = gdb_output(debugged);
    EXPECT_TRUE(contains(gdb, "Breakpoint 1, main ()")) << describe(debugged);
    EXPECT_TRUE(contains(gdb, "$1 = 10")) << describe(debugged);
    size_t hits = 0;
    for (const auto &line : lines(gdb))
        hits += contains(line, ", transform (value=") ? 1 : 0;
    EXPECT_EQ(hits, 5u) << describe(debugged);
    EXPECT_TRUE(contains(gdb, "[Inferior 1 (process")) << describe(debugged);
    // Same results, same simulated times, to the nanosecond.
    EXPECT_EQ(results(debugged), results(plain)) << describe(debugged) << describe(plain);
    auto with_gdb = parse_summary(debugged.err);
    auto without = parse_summary(plain.err);
    ASSERT_TRUE(with_gdb && without) << describe(debugged);
    EXPECT_EQ(with_gdb->simulated_s, without->simulated_s) << describe(debugged);
}

// Quitting the debugger (here: killing the program from gdb) ends that rank
// as a crash would: the other ranks are stopped, the status is not 0.
TEST_F(Debugger, EndingTheDebuggerEndsTheJob)
{
    auto r = run({"-n", "2", "--gdb", "1", "--debugger", "gdb -batch -ex 'break transform' -ex continue -ex kill",
                  program("debug_target")});
    EXPECT_NE(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1's debugger ended before the program did")) << describe(r);
}

// Several ranks: one tmux window each (a private tmux server stands for the
// user's session). Both stop at main, run to the end, and the job's times are
// those of a run without debugger; the windows are gone afterwards.
TEST_F(Debugger, SeveralRanksGetATmuxWindowEach)
{
    TempDir dir;
    const std::string socket = dir.file("tmux.sock");
    const std::string log = dir.file("gdb.log");
    auto tmux = [&](const std::string &arguments) {
        return run_command({"/bin/sh", "-c", "tmux -S '" + socket + "' " + arguments});
    };
    auto started = tmux("new-session -d -s s4bxi-test 'sleep 600'");
    ASSERT_EQ(started.exit_code, 0) << describe(started);
    auto server_pid = tmux("display -p '#{pid}'");
    const std::string session = socket + "," + lines(server_pid.out).at(0) + ",0";
    setenv("TMUX", session.c_str(), 1);
    auto plain = run({"-n", "2", "--cfg=s4bxi/compute:none", program("debug_target")});
    auto debugged = run({"-n", "2", "--cfg=s4bxi/compute:none", "--gdb", "0,1", "--debugger",
                         "gdb -batch -ex 'set logging file " + log +
                             "' -ex 'set logging overwrite off' -ex 'set logging enabled on' -ex 'info symbol $pc' "
                             "-ex continue",
                         program("debug_target")});
    unsetenv("TMUX");
    auto windows = tmux("list-windows");
    tmux("kill-server");
    EXPECT_EQ(debugged.exit_code, 0) << describe(debugged);
    // The programs wrote to their windows, not to the launcher's output.
    EXPECT_FALSE(contains(debugged.out, "debug_target: rank")) << describe(debugged);
    const std::string logged = read_file(log);
    size_t at_main = 0, exited = 0;
    for (const auto &line : lines(logged)) {
        at_main += line.rfind("main in section", 0) == 0 ? 1 : 0;
        exited += contains(line, "exited normally") ? 1 : 0;
    }
    EXPECT_EQ(at_main, 2u) << logged;
    EXPECT_EQ(exited, 2u) << logged;
    auto with_gdb = parse_summary(debugged.err);
    auto without = parse_summary(plain.err);
    ASSERT_TRUE(with_gdb && without) << describe(debugged);
    EXPECT_EQ(with_gdb->simulated_s, without->simulated_s) << describe(debugged);
    EXPECT_EQ(lines(windows.out).size(), 1u) << "the ranks' windows were not closed\n" << windows.out;
}

// A rank that computes under gdb is interrupted by the emulator's
// preemption timer: gdb lets that signal through without stopping, so one
// `continue` runs the program to its end.
TEST_F(Debugger, PreemptionSignalDoesNotStopTheDebugger)
{
    auto r = run({"-n", "1", "--gdb", "0", "--debugger", "gdb -batch -ex continue", program("busy_compute")});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.out, "busy_compute: rank 0 cpu_s=")) << describe(r);
    EXPECT_TRUE(contains(r.out, "exited normally")) << describe(r);
    EXPECT_FALSE(contains(r.out, "received signal")) << describe(r);
}

TEST_F(Debugger, BadRequestsAreRefusedInOneSentence)
{
    auto out_of_range = run({"-n", "2", "--gdb", "3", program("debug_target")});
    expect_usage_error(out_of_range, "--gdb names rank 3");
    auto not_a_list = run({"-n", "2", "--gdb", "one", program("debug_target")});
    expect_usage_error(not_a_list, "not a list of ranks");
    unsetenv("TMUX");
    auto several = run({"-n", "2", "--gdb", "0-1", program("debug_target")});
    expect_usage_error(several, "run s4bxi-run inside tmux");
    auto other = run({"-n", "2", "--gdb", "1", "--debugger", "lldb", program("debug_target")});
    expect_usage_error(other, "is not gdb");
    auto missing = run({"-n", "2", "--gdb", "1", "--debugger", "gdb-that-is-not-installed", program("debug_target")});
    expect_usage_error(missing, "not installed");
}

} // namespace
} // namespace e2e
