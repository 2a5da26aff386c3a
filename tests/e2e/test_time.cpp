// Time virtualisation: simulated sleeps and injected compute.
#include "e2e_test.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <regex>
#include <thread>

namespace e2e {
namespace {

class Time : public E2ETest {
protected:
    struct Busy {
        double cpu_s = -1;
        double simulated_s = -1;
    };

    // Runs busy_compute on one rank with the given options.
    Busy busy(const std::vector<std::string> &cfg)
    {
        std::vector<std::string> args{"-n", "1"};
        args.insert(args.end(), cfg.begin(), cfg.end());
        args.push_back(program("busy_compute"));
        auto r = run(args);
        expect_success(r, 1);
        static const std::regex re(
            R"(busy_compute: rank \S+ cpu_s=([0-9.]+) simulated_s=([0-9.eE+-]+))");
        std::smatch m;
        Busy b;
        if (std::regex_search(r.out, m, re)) {
            b.cpu_s = std::stod(m[1]);
            b.simulated_s = std::stod(m[2]);
        } else {
            ADD_FAILURE() << "busy_compute printed no result\n" << describe(r);
        }
        return b;
    }

    // Two ranks compute 0.2 s each with s4bxi/run-ahead and `options`: each
    // one's simulated compute is its CPU time, and the simulation went on
    // through most of it while the ranks computed.
    void check_run_ahead(const std::vector<std::string> &options)
    {
        TempDir dir;
        const std::string report = dir.file("report.json");
        std::vector<std::string> args{"-n", "2", "--cfg=s4bxi/run-ahead:yes"};
        args.insert(args.end(), options.begin(), options.end());
        args.insert(args.end(), {"--report", report, program("busy_compute"), "0.2"});
        auto r = run(args);
        expect_success(r, 2);
        static const std::regex re(R"(busy_compute: rank (\d) cpu_s=([0-9.]+) simulated_s=([0-9.eE+-]+))");
        int seen = 0;
        for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), re); it != std::sregex_iterator(); ++it) {
            const double cpu = std::stod((*it)[2]), simulated = std::stod((*it)[3]);
            EXPECT_NEAR(simulated, cpu, 0.05 * cpu) << "rank " << (*it)[1] << "\n" << describe(r);
            ++seen;
        }
        EXPECT_EQ(seen, 2) << describe(r);
        EXPECT_FALSE(contains(r.err, "before the time the simulation had gone on to")) << describe(r);
        auto doc = read_json(report);
        ASSERT_TRUE(doc && doc->is_object()) << describe(r);
        for (const auto &rank : doc->get("per_rank")->array) {
            const double compute = rank.get("compute_s")->number, ahead = rank.get("compute_ahead_s")->number;
            EXPECT_GT(ahead, 0.5 * compute) << "the simulation waited for the rank's compute\n" << describe(r);
            EXPECT_LE(ahead, compute + 1e-12);
        }
    }
};

// sleep(30) and friends (poll and select on nothing included) advance every
// clock by the requested amount (checked by the program itself), in much less
// than 30 s of real time.
TEST_F(Time, SleepsAreSimulated)
{
    auto r = run({"-n", "2", program("time_sleep")});
    expect_success(r, 2);
    for (int rank = 0; rank < 2; ++rank)
        EXPECT_TRUE(contains(r.out, "time_sleep: rank " +
                                        std::to_string(rank) +
                                        ": all checks passed"))
            << describe(r);
    EXPECT_LT(r.wall_s, 15.0) << "sleeps took real time\n" << describe(r);
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s.has_value()) << describe(r);
    EXPECT_GE(s->simulated_s, 34.0) << describe(r);
    EXPECT_LT(s->simulated_s, 35.0) << describe(r);
}

// CLOCK_MONOTONIC starts at the simulated nodes' uptime, never at 0: programs
// take a zero tv_sec for "not read yet" (OpenMPI's MPI_Wtime stayed 0 for the
// first simulated second).
TEST_F(Time, MonotonicClockStartsAtTheConfiguredUptime)
{
    for (const std::string uptime : {"", "--cfg=s4bxi/uptime:42.5"}) {
        std::vector<std::string> args{"-n", "1", "--cfg=s4bxi/compute:none"};
        if (not uptime.empty())
            args.push_back(uptime);
        args.push_back(program("time_sleep"));
        auto r = run(args);
        expect_success(r, 1);
        static const std::regex re(R"(rank 0 start: monotonic ([0-9.]+))");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.out, m, re)) << describe(r);
        const double expected = uptime.empty() ? 1000.0 : 42.5;
        EXPECT_GE(std::stod(m[1]), expected) << describe(r);
        EXPECT_LT(std::stod(m[1]), expected + 0.001) << describe(r);
    }
}

// Without compute injection a run is deterministic, clocks included.
TEST_F(Time, ComputeNoneIsDeterministic)
{
    auto once = [&] {
        auto r = run({"-n", "2", "--cfg=s4bxi/compute:none",
                      program("time_sleep")});
        expect_success(r, 2);
        auto ls = lines(r.out);
        std::sort(ls.begin(), ls.end());
        return ls;
    };
    auto first = once();
    auto second = once();
    EXPECT_FALSE(first.empty());
    EXPECT_EQ(first, second);
}

TEST_F(Time, ComputeIsInjectedWithFactor1)
{
    Busy b = busy({"--cfg=s4bxi/cpu-factor:1"});
    ASSERT_GT(b.cpu_s, 0.15);
    EXPECT_GT(b.simulated_s, 0.85 * b.cpu_s) << "cpu " << b.cpu_s;
    EXPECT_LT(b.simulated_s, 1.15 * b.cpu_s + 0.005) << "cpu " << b.cpu_s;
}

TEST_F(Time, ComputeIsScaledByCpuFactor)
{
    Busy b = busy({"--cfg=s4bxi/cpu-factor:2"});
    ASSERT_GT(b.cpu_s, 0.15);
    EXPECT_GT(b.simulated_s, 1.7 * b.cpu_s) << "cpu " << b.cpu_s;
    EXPECT_LT(b.simulated_s, 2.3 * b.cpu_s + 0.005) << "cpu " << b.cpu_s;
}

TEST_F(Time, ComputeNoneInjectsNothing)
{
    Busy b = busy({"--cfg=s4bxi/compute:none"});
    ASSERT_GT(b.cpu_s, 0.15);
    EXPECT_LT(b.simulated_s, 1e-3);
}

// Preemption cuts a compute loop into quanta (a Sync every few ms of CPU)
// but adds no simulated time of its own: with and without it, the loop's
// simulated time is the CPU time it measured itself (a Sync that counted its
// round trip as compute would add ~30%).
TEST_F(Time, ComputeLoopTakesTheSameSimulatedTimeWithAndWithoutPreemption)
{
    // Each run against its own CPU time: two runs of the same loop differ by
    // up to 15% of CPU time on a loaded machine (another test beside it).
    auto check = [this](const std::vector<std::string> &cfg, const char *what) {
        std::vector<std::string> args{"-n", "1"};
        args.insert(args.end(), cfg.begin(), cfg.end());
        args.insert(args.end(), {program("busy_compute"), "work=600"});
        auto r = run(args);
        expect_success(r, 1);
        static const std::regex re(R"(busy_compute: rank \S+ cpu_s=([0-9.]+) simulated_s=([0-9.eE+-]+))");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.out, m, re)) << describe(r);
        const double cpu = std::stod(m[1]), simulated = std::stod(m[2]);
        ASSERT_GT(cpu, 0.05) << describe(r);
        // The loop's compute, and no more: a Sync whose round trip counted
        // as compute would add ~30%; the time the process spends in its
        // Syncs (the handler waiting for the answer) is not compute, hence
        // the lower bound's slack.
        EXPECT_LE(simulated, cpu * 1.05 + 0.001) << what << "\n" << describe(r);
        EXPECT_GE(simulated, cpu * 0.8) << what << "\n" << describe(r);
    };
    check({}, "with preemption");
    check({"--cfg=s4bxi/sync-quantum:0"}, "without preemption");
}

// A compute burst shorter than the threshold is not injected.
TEST_F(Time, ComputeBelowThresholdIsIgnored)
{
    Busy b = busy({"--cfg=s4bxi/cpu-threshold:1"});
    ASSERT_GT(b.cpu_s, 0.15);
    EXPECT_LT(b.simulated_s, 1e-3) << "cpu " << b.cpu_s;
}



// A rank stopped by a debugger (here SIGSTOP for one second, as gdb does)
// freezes the simulation: its clock does not move, and the run's simulated
// results are exactly those of an undisturbed run.
TEST_F(Time, StoppedRankFreezesSimulatedTime)
{
    const std::vector<std::string> args{"-n", "2", "--cfg=s4bxi/compute:none",
                                        std::string(E2E_BINARY_DIR) + "/bench/put_pingpong", "15000", "8"};
    auto undisturbed = run(args);
    expect_success(undisturbed, 2);

    bool stopped = false;
    std::thread debugger([&] {
        // Wait until the ranks exist, then stop one of them for a second.
        for (int attempt = 0; attempt < 100 && not stopped; ++attempt) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            // The server's command line carries the marker too: pick a rank.
            for (int pid : processes_with(marker_))
                if (read_file("/proc/" + std::to_string(pid) + "/comm") == "put_pingpong\n") {
                    kill(pid, SIGSTOP);
                    std::this_thread::sleep_for(std::chrono::seconds(1));
                    kill(pid, SIGCONT);
                    stopped = true;
                    break;
                }
        }
    });
    auto paused = run(args);
    debugger.join();
    ASSERT_TRUE(stopped) << "no rank process was found to stop";
    expect_success(paused, 2);
    EXPECT_GE(paused.wall_s, 1.0) << describe(paused);
    // The program prints its simulated round trip, then its wall time per Put.
    auto simulated = [](const std::string &out) {
        static const std::regex re(R"(simulated round trip ([0-9.]+) us)");
        std::smatch m;
        return std::regex_search(out, m, re) ? m[1].str() : std::string("(none)");
    };
    EXPECT_EQ(simulated(paused.out), simulated(undisturbed.out)) << describe(paused);
    auto a = parse_summary(undisturbed.err), b = parse_summary(paused.err);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a->simulated_s, b->simulated_s);
}

// s4bxi/run-ahead: while ranks compute, the simulation goes on up to the
// earliest time of their next calls, so that they compute at the same time.
// Each rank's simulated compute is still its measured CPU time, and the
// report says how much of it the simulation went on through meanwhile (with
// two ranks computing 0.2 s each, most of it: the proxy of a computing rank
// lets the simulation go on after 0.1 ms).
TEST_F(Time, RunAheadKeepsEachRanksMeasuredCompute)
{
    check_run_ahead({"--cfg=s4bxi/sync-quantum:0"});
}

// The same with the preemption timer on (its default quantum): the main
// thread of a rank the simulation runs ahead of does not sync. Before, each
// sync waited for the other rank's bound, which /proc tells a kernel tick
// late: the ranks took turns, and the CPU each spent waiting passed for the
// program's.
TEST_F(Time, RunAheadWithThePreemptionTimerOn)
{
    check_run_ahead({});
}


} // namespace
} // namespace e2e
