// MPI programs built with Debian's OpenMPI (mpi_programs/, see mpi_check.h
// for their conventions: "OK <what>" lines from rank 0, "FAIL rank R: ..."
// and MPI_Abort(3) on a broken expectation) run under the real launcher, which
// drives them through OpenMPI's Portals 4 components and libs4bxi-pmi.so; and
// the launcher's refusals of MPI programs it cannot run.
//
// Built and registered only when the MPI programs and the components are built
// (tests/e2e/CMakeLists.txt): e2e_mpi_tests, ctest names e2e.Mpi.*.
#include "e2e_test.hpp"
#include "json_lite.hpp"
#include "trace_rows.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <regex>

namespace e2e {
namespace {

namespace fs = std::filesystem;

// 16 nodes: 2 levels, 4 nodes per leaf switch, 4 leaf switches.
const char *const kFatTree16 = "fattree:2;4,4;1,2;1,2";

class Mpi : public E2ETest {
protected:
    // A run with its JSON report.
    struct Reported {
        RunResult result;
        std::optional<json::Value> report;
        // A number of the report by its path ({"server_waiting", "answers"}), -1 when missing.
        [[nodiscard]] double number(std::initializer_list<const char *> path) const
        {
            const json::Value *value = report ? &*report : nullptr;
            for (const char *key : path)
                value = value != nullptr && value->is_object() ? value->get(key) : nullptr;
            return value != nullptr ? value->number : -1;
        }
    };
    Reported run_reported(const std::vector<std::string> &args)
    {
        TempDir dir;
        const std::string report = dir.file("report.json");
        std::vector<std::string> with_report{"--report", report};
        with_report.insert(with_report.end(), args.begin(), args.end());
        Reported r{run(with_report), read_json(report)};
        EXPECT_TRUE(r.report && r.report->is_object()) << describe(r.result);
        return r;
    }
    // Exit status 0, the summary, every expected OK line (whole lines) on
    // stdout, and no FAIL line anywhere.
    void expect_ok(const RunResult &r, int nranks, const std::vector<std::string> &ok_lines)
    {
        expect_success(r, nranks);
        const auto out = lines(r.out);
        std::string missing;
        for (const auto &ok : ok_lines)
            if (std::find(out.begin(), out.end(), "OK " + ok) == out.end())
                missing += "\n  OK " + ok;
        EXPECT_TRUE(missing.empty()) << "missing lines:" << missing << "\n" << describe(r);
        EXPECT_FALSE(contains(r.out, "FAIL") || contains(r.err, "FAIL")) << describe(r);
    }

    // `job` with the boolean `option` on, then off (on `platform`, unless
    // "default"), network only: the same outputs (a benchmark's wall time
    // aside), simulated end and events within SimGrid's precision. Returns
    // both runs, with their reports.
    // The jobs of the tests of messages alone on the wire: (platform, job).
    // The 2-rank 8 B ping-pong, Open MPI's collectives on a 16-node fat tree,
    // and a 64 KiB ping-pong (its ACK and BXI ACK leave at one instant).
    std::vector<std::pair<std::string, std::vector<std::string>>> lone_jobs()
    {
        return {{"default", {"-n", "2", std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", "200", "8"}},
                {kFatTree16, {"-n", "16", mpi_program("mpi_collectives")}},
                {"default", {"-n", "2", mpi_program("mpi_pingpong"), "20", "65536"}}};
    }

    // The same job with `option` on and off: the same outputs, simulated end
    // and events. With `answers_move`, the option moves answers between the
    // server and the process, which the trace tells ("... answered by the
    // process"): the same polls all the same.
    // Jobs whose messages are above the PIO limit and Open MPI's eager limit
    // (Puts read by DMA, receive entries with their LINK event): a 4 KiB
    // ping-pong of 100 iterations, and a halo exchange on 8 nodes.
    std::vector<std::pair<std::string, std::vector<std::string>>> long_message_jobs()
    {
        return {{"default", {"-n", "2", std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", "100", "4096"}},
                {"fattree:1;8;1;1", {"-n", "8", std::string(E2E_BINARY_DIR) + "/bench/mpi_stencil", "3", "32"}}};
    }

    // The server's answers, and SimGrid's scheduling rounds, that the second
    // run took more than the first.
    static double fewer_answers(const TracedRun &with, const TracedRun &without)
    {
        return without.report->get("server_waiting")->get("answers")->number -
               with.report->get("server_waiting")->get("answers")->number;
    }
    static double fewer_rounds(const TracedRun &with, const TracedRun &without)
    {
        return without.report->get("engine_rounds")->number - with.report->get("engine_rounds")->number;
    }

    // The report's count `field` in the run with an option on, once checked
    // to be 0 with it off.
    // How many rows of a trace are of `kind`, with an actor starting with
    // `actor` (the wire's rows: "wire"), and are not about a BXI ACK.
    static double rows_but_bxi_acks(const TracedRun &run, const std::string &kind, const std::string &actor = "")
    {
        double count = 0;
        for (const std::string &line : lines(run.events)) {
            const std::vector<std::string> cells = csv_fields(line);
            if (cells.size() >= 9 && (kind.empty() || cells[0] == kind) && cells[7].rfind(actor, 0) == 0 &&
                cells[0] != "BXI_ACK" && cells[8].rfind("BXI_ACK", 0) != 0)
                count++;
        }
        return count;
    }

    // An option that moves work of the NIC's engines into the simulation
    // itself (s4bxi/rx-in-maestro, s4bxi/tx-in-maestro): the same events in the
    // 2-rank ping-pong and put ring, where `field` of the report counts
    // `expected` messages; on 16 nodes, the same job but not event for event
    // (what a NIC sends at one instant from maestro goes before what its
    // engines' actors send then), with more than half of them.
    void engines_in_maestro(const std::string &option, const std::string &field,
                            const std::function<double(const TracedRun &)> &expected)
    {
        auto counted = [&field](const TracedRun &run) {
            return run.report->get(field)->get(field == "rx_in_maestro" ? "handled" : "sent")->number;
        };
        // (A message sent from maestro in the round in which another's
        // communication ended took its slot and dropped that communication
        // while SimGrid had not finished it: SimGrid warned, nic/wire.cpp.)
        auto no_comm_dropped = [](const TracedRun &run) {
            EXPECT_EQ(run.result.err.find("freed before its completion"), std::string::npos) << describe(run.result);
        };
        for (const std::string program : {"mpi_pingpong", "put_ring"}) {
            const std::vector<std::string> job{"-n", "2", std::string(E2E_BINARY_DIR) + "/bench/" + program, "200",
                                               "8"};
            const auto [maestro, engines] = run_with_and_without(option, "default", job);
            ASSERT_TRUE(maestro.report.has_value() && engines.report.has_value());
            no_comm_dropped(maestro);
            EXPECT_EQ(counted(engines), 0) << program;
            EXPECT_GT(counted(maestro), 700) << program;
            EXPECT_EQ(counted(maestro), expected(maestro)) << program;
        }
        auto run_option = [&](const std::string &value) {
            return run_traced({"--cfg=s4bxi/compute:none", "--cfg=" + option + ":" + value, "--platform", kFatTree16},
                              {"-n", "16", mpi_program("mpi_collectives")});
        };
        const TracedRun maestro = run_option("yes"), engines = run_option("no");
        expect_same_simulated_end(maestro.result, engines.result);
        EXPECT_EQ(sorted_lines(maestro.result.out), sorted_lines(engines.result.out));
        ASSERT_TRUE(maestro.report.has_value() && engines.report.has_value());
        no_comm_dropped(maestro);
        EXPECT_EQ(counted(engines), 0);
        EXPECT_GT(counted(maestro), 0.5 * expected(maestro));
    }

    static double counted_only_with(const TracedRun &with, const TracedRun &without, const char *field,
                                    const std::string &program)
    {
        EXPECT_EQ(without.report->get(field)->number, 0) << program << ": " << field;
        return with.report->get(field)->number;
    }

    std::pair<TracedRun, TracedRun> run_with_and_without(const std::string &option, const std::string &platform,
                                                         const std::vector<std::string> &job,
                                                         bool answers_move = false)
    {
        auto run_option = [&](const std::string &value) {
            std::vector<std::string> options{"--cfg=s4bxi/compute:none", "--cfg=" + option + ":" + value};
            if (platform != "default")
                options.insert(options.end(), {"--platform", platform});
            return run_traced(options, job);
        };
        std::pair<TracedRun, TracedRun> runs{run_option("yes"), run_option("no")};
        const auto &[with, without] = runs;
        const std::string &program = job[2];
        expect_same_simulated_end(with.result, without.result);
        const std::regex wall(", wall .*");
        EXPECT_EQ(sorted_lines(std::regex_replace(with.result.out, wall, "")),
                  sorted_lines(std::regex_replace(without.result.out, wall, "")))
            << program;
        auto polls_as_one = [answers_move](const std::string &events) {
            return answers_move ? std::regex_replace(events, std::regex(" answered by the process"), "") : events;
        };
        EXPECT_EQ(events_differ(polls_as_one(with.events), polls_as_one(without.events), kSimGridPrecisionS), "")
            << program;
        EXPECT_TRUE(with.report.has_value() && without.report.has_value()) << program;
        return runs;
    }

    // mpi_hello on nranks: "rank R of N on NAME" with NAME the rank's
    // simulated node, node_of(rank).
    template <typename NodeOf>
    void hello(std::vector<std::string> options, int nranks, NodeOf node_of)
    {
        const std::string n = std::to_string(nranks);
        options.insert(options.begin(), {"-n", n});
        options.push_back(mpi_program("mpi_hello"));
        options.push_back(n);
        auto r = run(options);
        expect_ok(r, nranks, {"hello " + n + " ranks"});
        for (int rank = 0; rank < nranks; ++rank) {
            const std::string line = "rank " + std::to_string(rank) + " of " + n + " on node" +
                                     std::to_string(node_of(rank));
            const auto out = lines(r.out);
            EXPECT_TRUE(std::find(out.begin(), out.end(), line) != out.end())
                << "no line \"" << line << "\"\n" << describe(r);
        }
    }

    // A self-checking program on nranks, with its final OK line.
    RunResult run_checked(const std::string &name, int nranks, const std::string &final_ok,
                          std::vector<std::string> options = {}, std::vector<std::string> args = {},
                          std::chrono::milliseconds timeout = std::chrono::milliseconds(120000))
    {
        options.insert(options.begin(), {"-n", std::to_string(nranks)});
        options.push_back(mpi_program(name));
        options.insert(options.end(), args.begin(), args.end());
        RunOptions opts;
        opts.timeout = timeout;
        auto r = run(options, opts);
        expect_ok(r, nranks, {final_ok});
        return r;
    }

    // Compiles C source into dir/output with the given options; true on success.
    bool compile(const TempDir &dir, const std::string &source, const std::string &output,
                 const std::vector<std::string> &options)
    {
        const std::string file = dir.file(output + ".c");
        write_file(file, source);
        std::vector<std::string> argv{E2E_C_COMPILER, "-o", dir.file(output), file};
        argv.insert(argv.end(), options.begin(), options.end());
        auto r = run_command(argv);
        EXPECT_EQ(r.exit_code, 0) << "cannot build the test's " << output << "\n" << describe(r);
        return r.exit_code == 0;
    }

    // A shared library with the given soname (file name = soname) defining
    // MPI_Init, and a program `prog` that needs it (RPATH to dir).
    bool fake_mpi_program(const TempDir &dir, const std::string &soname)
    {
        return compile(dir, "int MPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }\n", soname,
                       {"-shared", "-fPIC", "-Wl,-soname," + soname}) &&
               compile(dir,
                       "int MPI_Init(int *argc, char ***argv);\n"
                       "int main(int argc, char **argv) { return MPI_Init(&argc, &argv); }\n",
                       "prog", {dir.file(soname), "-Wl,-rpath," + dir.path(), "-Wl,--no-as-needed"});
    }
};

// ---------------------------------------------------------------------------
// Hello: the processor name is the rank's simulated node.

TEST_F(Mpi, HelloOneRank)
{
    hello({}, 1, [](int) { return 0; });
}

// Default platform (2 nodes), default round-robin placement.
TEST_F(Mpi, HelloTwoRanks)
{
    hello({}, 2, [](int rank) { return rank; });
}

TEST_F(Mpi, HelloFourRanksRoundRobin)
{
    hello({}, 4, [](int rank) { return rank % 2; });
}

// Two ranks per node, block placement on the 16-node fat tree: ranks 0 and 1
// share node0, ranks 2 and 3 node1.
TEST_F(Mpi, HelloFourRanksTwoPerNodeBlock)
{
    hello({"--platform", kFatTree16, "--ppn", "2", "--placement", "block"}, 4, [](int rank) { return rank / 2; });
}

// ---------------------------------------------------------------------------
// Point to point.

std::vector<std::string> pingpong_ok_lines()
{
    std::vector<std::string> ok{"pingpong"};
    for (long size : {0L, 1L, 3L, 1000L, 4097L, 65537L})
        ok.push_back("pingpong " + std::to_string(size) + " B");
    for (long size = 2; size <= 4L << 20; size *= 2)
        ok.push_back("pingpong " + std::to_string(size) + " B");
    return ok;
}

// 0 B to 4 MiB, expected and unexpected, blocking and nonblocking, data
// checked, between two nodes; the report names the MPI layer and both NICs
// carried traffic.
TEST_F(Mpi, PingpongTwoNodes)
{
    TempDir dir;
    const std::string report = dir.file("report.json");
    auto r = run({"-n", "2", "--report", report, mpi_program("mpi_pingpong")});
    expect_ok(r, 2, pingpong_ok_lines());
    auto doc = read_json(report);
    ASSERT_TRUE(doc && doc->is_object());
    const json::Value *layer = doc->get("layer");
    ASSERT_TRUE(layer && layer->kind == json::Value::Kind::String) << read_file(report);
    EXPECT_EQ(layer->string.rfind("MPI", 0), 0u) << "layer \"" << layer->string << "\"";
    const json::Value *nics = doc->get("per_nic");
    ASSERT_TRUE(nics && nics->is_array());
    ASSERT_EQ(nics->array.size(), 2u) << read_file(report);
    for (const auto &nic : nics->array)
        EXPECT_GT(nic.get("messages")->number, 0.0) << "node " << nic.get("node")->number;
    // Open MPI's libevent thread sleeps in the kernel the whole run, parked:
    // the events written for its rank do not wake its proxy (they did, about
    // three times per message).
    const json::Value *parks = doc->get("parks");
    ASSERT_TRUE(parks && parks->is_object()) << read_file(report);
    EXPECT_GT(parks->get("count")->number, 0.0) << read_file(report);
    EXPECT_LE(parks->get("wake_ups")->number, 2 * parks->get("count")->number + 4) << read_file(report);
}

// Both ranks on node0: no shared memory, the traffic goes through node0's NIC.
TEST_F(Mpi, PingpongTwoRanksOnOneNodeGoThroughTheNic)
{
    TempDir dir;
    const std::string report = dir.file("report.json");
    auto r = run({"-n", "2", "--ppn", "2", "--placement", "block", "--report", report, mpi_program("mpi_pingpong")});
    expect_ok(r, 2, pingpong_ok_lines());
    auto doc = read_json(report);
    ASSERT_TRUE(doc && doc->is_object());
    const json::Value *layer = doc->get("layer");
    ASSERT_TRUE(layer && layer->kind == json::Value::Kind::String) << read_file(report);
    EXPECT_EQ(layer->string.rfind("MPI", 0), 0u) << "layer \"" << layer->string << "\"";
    for (const auto &rank : doc->get("per_rank")->array)
        EXPECT_EQ(rank.get("node")->number, 0.0) << "rank " << rank.get("rank")->number;
    bool node0 = false;
    for (const auto &nic : doc->get("per_nic")->array) {
        if (nic.get("node")->number != 0.0)
            continue;
        node0 = true;
        // 2 x 2 x 2 transfers per size of up to 4 MiB at least.
        EXPECT_GT(nic.get("messages")->number, 0.0) << read_file(report);
        EXPECT_GT(nic.get("payload_bytes")->number, 4.0 * (4 << 20)) << read_file(report);
    }
    EXPECT_TRUE(node0) << "no per_nic entry for node 0\n" << read_file(report);
}

TEST_F(Mpi, P2pFeaturesTwoRanks)
{
    run_checked("mpi_p2p_features", 2, "p2p_features 2 ranks");
}

TEST_F(Mpi, P2pFeaturesFourRanks)
{
    auto r = run_checked("mpi_p2p_features", 4, "p2p_features 4 ranks");
    expect_ok(r, 4, {"p2p any_source/any_tag", "p2p cancel"});
}

// ---------------------------------------------------------------------------
// Collectives.

const std::vector<std::string> kCollectiveOks = {
    "coll allreduce sum/max/minloc", "coll alltoall", "coll alltoallv", "coll allgather", "coll allgatherv",
    "coll scatter root 0", "coll scan", "coll reduce_scatter_block", "coll barrier",
    "coll split even/odd allreduce"};

TEST_F(Mpi, CollectivesTwoRanks)
{
    auto r = run_checked("mpi_collectives", 2, "collectives 2 ranks");
    expect_ok(r, 2, kCollectiveOks);
}

TEST_F(Mpi, CollectivesFourRanks)
{
    auto r = run_checked("mpi_collectives", 4, "collectives 4 ranks");
    expect_ok(r, 4, kCollectiveOks);
}

TEST_F(Mpi, CollectivesEightRanks)
{
    auto r = run_checked("mpi_collectives", 8, "collectives 8 ranks", {"--platform", kFatTree16});
    expect_ok(r, 8, kCollectiveOks);
}

// One rank on each of the fat tree's 16 nodes.
TEST_F(Mpi, CollectivesSixteenRanksFatTree)
{
    auto r = run_checked("mpi_collectives", 16, "collectives 16 ranks", {"--platform", kFatTree16});
    expect_ok(r, 16, kCollectiveOks);
}

// ---------------------------------------------------------------------------
// One-sided, threads.

// OpenMPI's progress loop ends each round with an empty zero-timeout
// PtlEQPoll: most of them are answered by the process (s4bxi/local-polls),
// and its small Puts and its appends are queued (s4bxi/queued-puts,
// s4bxi/queued-appends). The program makes the same calls and sees the same
// results and clocks; the simulation the same times; only the round trips
// to the server are fewer.
TEST_F(Mpi, LocalPollsChangeNothingButTheRoundTrips)
{
    auto run_with = [&](const std::string &answer) {
        Reported r = run_reported({"-n", "4", "--cfg=s4bxi/compute:none", "--cfg=s4bxi/local-polls:" + answer,
                                   "--cfg=s4bxi/queued-puts:" + answer, "--cfg=s4bxi/queued-appends:" + answer,
                                   "--cfg=s4bxi/queued-unlinks:" + answer, mpi_program("mpi_collectives")});
        expect_ok(r.result, 4, kCollectiveOks);
        return r;
    };
    const Reported on = run_with("yes");
    const Reported off = run_with("no");
    EXPECT_EQ(sorted_lines(on.result.out), sorted_lines(off.result.out));
    EXPECT_EQ(on.number({"totals", "portals_calls"}), off.number({"totals", "portals_calls"}));
    EXPECT_EQ(off.number({"totals", "answered_in_process"}), 0);
    EXPECT_GT(on.number({"totals", "answered_in_process"}), on.number({"totals", "portals_calls"}) / 4)
        << describe(on.result);
    expect_same_simulated_end(on.result, off.result);
}

// Open MPI's progress loop blocks in poll streaks, which the poll sentinel
// watches: it looks whether the simulation is idle only after a round that
// may leave it so, not after every event (each look was a scheduling round
// with no time advance: 42 rounds per ping-pong message, 23 without them).
TEST_F(Mpi, PollStreaksCostNoRoundPerEvent)
{
    TempDir dir;
    std::vector<double> rounds;
    for (const char *iterations : {"200", "400"}) {
        const std::string report = dir.file(std::string("run") + iterations + ".json");
        auto r = run({"-n", "2", "--cfg=s4bxi/compute:none", "--report", report,
                      std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", iterations, "8"});
        expect_success(r, 2);
        auto doc = read_json(report);
        ASSERT_TRUE(doc && doc->is_object()) << describe(r);
        rounds.push_back(doc->get("engine_rounds")->number);
    }
    const double per_message = (rounds[1] - rounds[0]) / 400;
    EXPECT_GT(per_message, 10.0);
    EXPECT_LT(per_message, 30.0);
}

// s4bxi/run-ahead with 8 ranks that compute between their MPI calls (two
// Jacobi sweeps per iteration) on this machine's 2 cores: the simulation
// never goes past a rank's next call. Before, the bound could read CPU time
// the rank spent after it had measured its compute for a call (filling it in,
// waiting for the answer), and about one run in seven had a call come before
// it ("runs late"); five runs. (The rank now stops its count before it
// measures: sim_clock::call_begins.)
TEST_F(Mpi, RunningAheadOfComputingRanksNeverPassesTheirCalls)
{
    for (int attempt = 0; attempt < 5 && not HasFailure(); ++attempt) {
        auto r = run({"-n", "8", "--platform", "fattree:2;4,8;1,4;1,1", "--cfg=s4bxi/run-ahead:yes",
                      std::string(E2E_BINARY_DIR) + "/bench/mpi_stencil", "20", "32", "2"});
        expect_success(r, 8);
        EXPECT_TRUE(contains(r.out, "mpi_stencil 8 ranks")) << describe(r);
        EXPECT_FALSE(contains(r.err, "before the time the simulation had gone on to")) << describe(r);
    }
}

// The number after `key` in a row's detail ("dst=3 wire_bytes=64"), or -1.
int detail_number(const std::string &detail, const std::string &key)
{
    const auto at = detail.find(key);
    return at == std::string::npos ? -1 : std::atoi(detail.c_str() + at + key.size());
}

// An RX engine takes the messages that reach its NIC in the order they land,
// whatever their source: it is never idle while a message for it has landed
// (a message's row ends when it lands, nic/wire.hpp), unless that message
// waits for one its source sent before it, still on its way. MPI jobs whose
// nodes receive from nearer and farther sources at once: 4 ranks per node
// (messages between the ranks of a node cross no wire), and 2 per node of a
// two-level fat tree.
TEST_F(Mpi, AnIdleRxEngineTakesTheFirstMessageToLand)
{
    const std::vector<std::pair<int, std::vector<std::string>>> jobs = {
        {8, {mpi_program("mpi_onesided")}},
        {16, {"--platform", "fattree:2;2,4;1,2;1,1", mpi_program("mpi_collectives")}}};
    for (const auto &[nranks, job] : jobs) {
        TempDir dir;
        std::vector<std::string> options = {"-n", std::to_string(nranks), "--cfg=s4bxi/compute:none", "--trace",
                                            dir.file("trace")};
        options.insert(options.end(), job.begin(), job.end());
        auto r = run(options);
        expect_success(r, nranks);
        const auto rows = read_csv(dir.file("trace/events.csv"));
        // The RX engines' busy spans and the landings, by (node, vn).
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> busy;
        std::map<std::pair<int, int>, std::vector<const Row *>> landings;
        for (const auto &row : rows) {
            if (row.kind == "RX")
                busy[{row.node, row.vn}].emplace_back(row.start, row.end);
            else if (kMessageKinds.count(row.kind) && !contains(row.detail, "lost"))
                landings[{detail_number(row.detail, "dst="), row.vn}].push_back(&row);
        }
        constexpr double kSameInstant = 1e-12;
        int checked = 0, overtaking = 0, idle_with_work = 0;
        std::string first_idle;
        for (const auto &[lane, arrived] : landings) {
            const auto &spans = busy[lane];
            for (const Row *message : arrived) {
                auto sent_before_landed_after = [message](const Row *other) {
                    return other != message && other->start < message->start && other->end > message->end;
                };
                // Waiting for one of its source's, sent before it: not checked.
                if (std::any_of(arrived.begin(), arrived.end(), [&](const Row *other) {
                        return other->node == message->node && sent_before_landed_after(other);
                    }))
                    continue;
                checked++;
                overtaking += std::any_of(arrived.begin(), arrived.end(), [&](const Row *other) {
                    return other->node != message->node && sent_before_landed_after(other);
                });
                const bool engine_at_work = std::any_of(spans.begin(), spans.end(), [message](const auto &span) {
                    return span.first <= message->end + kSameInstant && message->end <= span.second + kSameInstant;
                });
                if (!engine_at_work && idle_with_work++ == 0)
                    first_idle = message->kind + " from node " + std::to_string(message->node) + " to node " +
                                 std::to_string(lane.first) + " landed at " + std::to_string(message->end * 1e6) +
                                 " us, its RX engine idle";
            }
        }
        EXPECT_GT(checked, 1000) << job.back();
        // (The cases where an engine that took the first message sent would
        // have waited.)
        EXPECT_GT(overtaking, 0) << job.back() << ": no message landed before one another source sent earlier";
        EXPECT_EQ(idle_with_work, 0) << job.back() << ": " << first_idle << "\n" << describe(r);
    }
}

// A message crosses the wire as a host-to-host SimGrid communication, or,
// beyond s4bxi/wire-mailboxes-beyond on their way, through a mailbox of its
// receiving engine (nic/wire.hpp): the same route and times. With every
// message through a mailbox (0) and none (-1), a collectives job on the fat
// tree, where messages from several sources meet at each NIC, gives the same
// trace row for row (simultaneous rows may come in another order); through
// mailboxes, run after run, the same trace byte for byte. (Every message a
// communication: none crosses alone, s4bxi/lone-messages.)
TEST_F(Mpi, BothKindsOfWireCommunicationGiveTheSameTrace)
{
    const std::vector<std::string> job = {"-n", "16", "--platform", "fattree:2;2,4;1,2;1,1",
                                          mpi_program("mpi_collectives")};
    auto run_with = [&](const std::string &beyond) {
        return run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/lone-messages:no",
                           "--cfg=s4bxi/wire-mailboxes-beyond:" + beyond},
                          job);
    };
    const TracedRun through_mailboxes = run_with("0");
    const TracedRun host_to_host = run_with("-1");
    expect_same_simulated_end(through_mailboxes.result, host_to_host.result);
    ASSERT_TRUE(through_mailboxes.report.has_value() && host_to_host.report.has_value());
    const double messages = host_to_host.report->get("totals")->get("messages")->number;
    EXPECT_GT(messages, 1000);
    EXPECT_EQ(through_mailboxes.report->get("wire_through_mailboxes")->number, messages);
    EXPECT_EQ(host_to_host.report->get("wire_through_mailboxes")->number, 0);
    EXPECT_EQ(sorted_lines(through_mailboxes.events), sorted_lines(host_to_host.events));
    EXPECT_TRUE(run_with("0").events == through_mailboxes.events) << "two runs through mailboxes differ";
}

// Open MPI's progress loop blocks after an empty poll: that poll's period
// is slept within the block when nothing the block watches can change before
// it starts (s4bxi/poll-period-in-block), and so are the polls the process
// answered itself just before it (s4bxi/replays-in-block). The same
// simulated results, polls included (within SimGrid's precision), with fewer
// scheduling rounds: in the ping-pong, while it waits for its own SEND and
// for the answer; the point-to-point program also polls while nothing else
// is pending, where the poll sentinel decides.
TEST_F(Mpi, PollPeriodsSleptInBlocksChangeNothingButTheRounds)
{
    for (const auto &[ranks, job] :
         {std::pair{2, std::vector<std::string>{std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", "200", "8"}},
          std::pair{4, std::vector<std::string>{mpi_program("mpi_p2p_features")}},
          std::pair{8, std::vector<std::string>{mpi_program("mpi_collectives")}}}) {
        auto run_period = [&](const std::string &in_block, const std::string &replays) {
            std::vector<std::string> args{"-n", std::to_string(ranks)};
            args.insert(args.end(), job.begin(), job.end());
            return run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/poll-period-in-block:" + in_block,
                               "--cfg=s4bxi/replays-in-block:" + replays},
                              args);
        };
        const TracedRun in_block = run_period("yes", "yes");
        const TracedRun replays_slept = run_period("yes", "no");
        const TracedRun alone = run_period("no", "no");
        // (The ping-pong also prints its wall time per message.)
        const std::regex wall(", wall .*");
        // The same polls at the same times; which of them the process
        // answered itself may differ: its horizon is seen from the clock of
        // each answer, which these options move.
        auto polls_as_one = [](const std::string &events) {
            return std::regex_replace(events, std::regex(" answered by the process"), "");
        };
        for (const TracedRun *other : {&replays_slept, &alone}) {
            expect_same_simulated_end(in_block.result, other->result);
            EXPECT_EQ(sorted_lines(std::regex_replace(in_block.result.out, wall, "")),
                      sorted_lines(std::regex_replace(other->result.out, wall, "")))
                << job[0];
            EXPECT_EQ(events_differ(polls_as_one(in_block.events), polls_as_one(other->events), kSimGridPrecisionS),
                      "")
                << job[0];
            ASSERT_TRUE(other->report.has_value());
        }
        ASSERT_TRUE(in_block.report.has_value());
        auto rounds = [](const TracedRun &run) { return run.report->get("engine_rounds")->number; };
        const double fewer_by_periods = rounds(alone) - rounds(replays_slept);
        const double fewer_by_replays = rounds(replays_slept) - rounds(in_block);
        if (ranks == 2) {
            EXPECT_GE(fewer_by_periods / 400, 2.5) << "rounds saved per message of the ping-pong";
            EXPECT_GE(fewer_by_replays / 400, 1.5) << "rounds saved per message of the ping-pong";
        } else {
            EXPECT_GT(fewer_by_periods, 0) << job[0];
            EXPECT_GT(fewer_by_replays, 0) << job[0];
        }
    }
}

// A command a rank writes over PCIe while nothing else can use the
// CPU-to-NIC side of its node's link until it ends is a sleep of its exact
// length instead of a communication (s4bxi/lone-commands,
// nic/lone_writes.cpp): the same simulated results (within SimGrid's
// precision: a DMA write the other way on the link they share updates the
// communication's rest a rounding error differently), a scheduling round
// less per such command (the end of its latency), and two per PIO payload
// written before one (its end and the end of its latency: alone, the command
// follows at the payload's end, with a single sleep to the command's). In the
// 2-rank ping-pong, every Put; on a fat tree with one rank per node, the
// collectives' too (337 of them with a PIO payload); and in the Portals ring,
// every Put.
TEST_F(Mpi, LoneCommandsChangeNothingButTheRounds)
{
    for (const auto &[platform, job] :
         {std::pair{std::string("default"),
                    std::vector<std::string>{"-n", "2", std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", "200", "8"}},
          std::pair{std::string(kFatTree16), std::vector<std::string>{"-n", "16", mpi_program("mpi_collectives")}},
          std::pair{std::string("default"),
                    std::vector<std::string>{"-n", "2", std::string(E2E_BINARY_DIR) + "/bench/put_ring", "200", "8"}}}) {
        const auto [lone, written] = run_with_and_without("s4bxi/lone-commands", platform, job);
        const std::string &program = job[2];
        ASSERT_TRUE(lone.report.has_value() && written.report.has_value());
        auto count = [](const TracedRun &run, const char *what) {
            return run.report->get("lone_commands")->get(what)->number;
        };
        const double commands = count(lone, "written");
        EXPECT_GT(commands, 100) << program;
        EXPECT_EQ(count(written, "written"), 0) << program;
        EXPECT_EQ(count(lone, "overlapped"), 0) << program;
        const double fewer = fewer_rounds(lone, written);
        // (The ring's two ranks write theirs at the same times: one round for both.)
        EXPECT_GE(fewer, 0.5 * commands) << program << ": rounds saved per command written alone";
        if (platform != "default") {
            const double pio = static_cast<double>(count_rows(lone.events, "PCI_PIO"));
            EXPECT_GT(pio, 100) << program;
            EXPECT_GE(fewer, commands + 1.5 * pio) << program << ": rounds saved per PIO payload written alone";
        }
    }
}

// A small payload that lands in a rank's heap or stack while its main thread
// waits in a call is copied by the process itself when the call returns
// (s4bxi/staged-writes, job/staged_writes.hpp): the same outputs (the
// collectives check every result) and events. In the 2-rank ping-pong each
// payload is staged and taken by the answer that follows in its time step
// (402 of 402 in every run seen; a thread of Open MPI that starts calling at a
// moment real time decides makes the server write what is staged then); on
// the fat tree about half are written by the server after all, when the
// simulation moves on before the answer.
TEST_F(Mpi, StagedWritesChangeNothingButWhoCopiesThePayload)
{
    for (const auto &[platform, job] :
         {std::pair{std::string("default"),
                    std::vector<std::string>{"-n", "2", std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", "200", "8"}},
          std::pair{std::string(kFatTree16), std::vector<std::string>{"-n", "16", mpi_program("mpi_collectives")}}}) {
        const auto [staged, written] = run_with_and_without("s4bxi/staged-writes", platform, job);
        const std::string &program = job[2];
        ASSERT_TRUE(staged.report.has_value() && written.report.has_value());
        auto count = [](const TracedRun &run, const char *what) {
            return run.report->get("staged_writes")->get(what)->number;
        };
        EXPECT_EQ(count(written, "staged"), 0) << program;
        const double taken_by_answers = count(staged, "staged") - count(staged, "flushed");
        EXPECT_GT(taken_by_answers, platform == "default" ? 300 : 100) << program;
    }
}

// A message that crosses the wire while no other transfer can share a link
// of its route until it lands is a timer at its landing time instead of a
// communication (s4bxi/lone-messages, nic/wire.hpp): the same simulated
// results (within SimGrid's precision), a scheduling round less per such
// message (the end of its latency). In the 2-rank ping-pong, every message
// once the first is on its way; on a fat tree, those sent while the others
// are far enough behind; in the bandwidth sweep, the acknowledgments of
// messages long enough to share their links with nothing.
TEST_F(Mpi, LoneMessagesChangeNothingButTheRounds)
{
    for (const auto &[platform, job] : lone_jobs()) {
        const auto [lone, carried] = run_with_and_without("s4bxi/lone-messages", platform, job);
        const std::string &program = job[2];
        ASSERT_TRUE(lone.report.has_value() && carried.report.has_value());
        const double alone = counted_only_with(lone, carried, "wire_alone", program);
        EXPECT_GT(alone, 50) << program;
        const double fewer = fewer_rounds(lone, carried);
        EXPECT_GE(fewer, 0.5 * alone) << program << ": rounds saved per message alone";
        if (platform != "default") {
            // The others through mailboxes (nic/wire.hpp): the same job. (Not
            // event for event: the order in which the NICs' engines run at one
            // instant follows the simcalls made before, which a message alone
            // does not make and one through a mailbox makes more of; node 15
            // then sends its ACK and a BXI ACK at one instant in the other
            // order, they land together, and node 14 handles the BXI ACK 50 ns
            // earlier, before the ACK.)
            std::vector<std::string> options{"--cfg=s4bxi/compute:none", "--cfg=s4bxi/wire-mailboxes-beyond:0",
                                             "--platform", platform};
            const TracedRun mailboxes = run_traced(options, job);
            expect_same_simulated_end(lone.result, mailboxes.result);
            EXPECT_EQ(sorted_lines(lone.result.out), sorted_lines(mailboxes.result.out)) << program;
            ASSERT_TRUE(mailboxes.report.has_value());
            EXPECT_GT(mailboxes.report->get("wire_alone")->number, 50) << program;
            EXPECT_GT(mailboxes.report->get("wire_through_mailboxes")->number, 1000) << program;
        }
    }
}

// The NICs' DMA writes of payloads to host memory, on a platform where no
// other traffic runs on their links, are counted and traced but left out of
// the network model (s4bxi/lone-dma-writes, nic/dma_writes.cpp): nobody waits
// for them. The same outputs and events, two scheduling rounds less per write
// that the model simulated (those of a PCIe packet or more: the end of its
// latency and its end, unless another event shares the date). Jobs with
// payloads read and written by DMA: a 4 KiB ping-pong, a halo exchange on 8
// nodes, Open MPI's collectives on a 16-node fat tree.
TEST_F(Mpi, LoneDmaWritesChangeNothingButTheRounds)
{
    auto jobs = long_message_jobs();
    jobs.push_back({kFatTree16, {"-n", "16", mpi_program("mpi_collectives")}});
    for (const auto &[platform, job] : jobs) {
        const auto [lone, modelled] = run_with_and_without("s4bxi/lone-dma-writes", platform, job);
        const std::string &program = job[2];
        ASSERT_TRUE(lone.report.has_value() && modelled.report.has_value());
        EXPECT_GT(counted_only_with(lone, modelled, "lone_dma_writes", program), 100) << program;
        // The writes the model simulated: a packet or more (kPciePacketBytes).
        const auto large = static_cast<double>(count_rows(lone.events, "PCI_DMA_WRITE", 512));
        EXPECT_GT(large, 100) << program;
        EXPECT_GE(fewer_rounds(lone, modelled), large) << program << ": rounds saved per write the model simulated";
    }
}

// A message that reaches an idle RX engine with nothing queued is handled at
// the end of the engine's delay by the simulation itself, when nothing of its
// handling can block (s4bxi/rx-in-maestro, nic/wire.hpp): the engine's actor
// is neither woken at the landing nor after its sleep. In the ping-pong and
// the put ring that is every message handled but the BXI ACKs (those of
// responses are handled at their landing, the others at once by their
// engine): the same events at the same times. On the fat tree, those through
// mailboxes (beyond 256 on their way) go to their engine, and so does one
// whose answer would wait for a slot of the command queue; the same job, not
// event for event (engines_in_maestro: node 11 sends a BXI ACK and an ACK to
// node 10 at one instant in the other order, they land together, and node 10
// takes the BXI ACK first, 50 ns sooner).
TEST_F(Mpi, RxInMaestroChangesNothingButWhoHandlesTheMessages)
{
    // (Every message handled has a row of the wire, written at its handling.)
    engines_in_maestro("s4bxi/rx-in-maestro", "rx_in_maestro",
                       [](const TracedRun &run) { return rows_but_bxi_acks(run, "", "wire"); });
}

// A message that an idle TX engine would take at once has its TX delay run
// by the simulation itself, and is sent from maestro at its end, when nothing
// of that can block (s4bxi/tx-in-maestro, nic/nic.cpp): no DMA read of its
// payload, and no mailbox needed (beyond 256 messages on their way). In the
// ping-pong and the put ring that is every message sent but the BXI ACKs,
// which no TX engine sends; on the fat tree, those read by DMA (the large
// ones) go to their engine, and so does one pushed while its engine is busy.
TEST_F(Mpi, TxInMaestroChangesNothingButWhoSendsTheMessages)
{
    engines_in_maestro("s4bxi/tx-in-maestro", "tx_in_maestro",
                       [](const TracedRun &run) { return rows_but_bxi_acks(run, "TX"); });
}

// A message alone on the wire that reaches an idle RX engine, with nothing
// else able to reach that engine before the end of its delay, is handed over
// then instead of at its landing (s4bxi/lone-arrivals, nic/wire.hpp): the
// same events at the same times (within SimGrid's precision), a scheduling
// round less per such message. The earliest next call of the ranks that wait
// (portals/rank_calls.hpp) is what lets any qualify: in the ping-pong, the
// acknowledgments, which land while both ranks wait for a landing.
TEST_F(Mpi, LoneArrivalsChangeNothingButTheRounds)
{
    for (const auto &[platform, job] : lone_jobs()) {
        const auto [handed, landed] = run_with_and_without("s4bxi/lone-arrivals", platform, job);
        const std::string &program = job[2];
        ASSERT_TRUE(handed.report.has_value() && landed.report.has_value());
        const double arrivals = handed.report->get("wire_alone_arrivals")->number;
        EXPECT_GT(arrivals, platform == "default" ? 15 : 0) << program;
        EXPECT_EQ(landed.report->get("wire_alone_arrivals")->number, 0) << program;
        const double fewer = fewer_rounds(handed, landed);
        EXPECT_GE(fewer, 0.5 * arrivals) << program << ": rounds saved per message handed over late";
    }
}

// A BXI ACK of a response (an MPI message's Portals ACK acknowledged) that
// reaches an idle RX engine with nothing queued is handled at its landing by
// the simulation, not by the engine's actor (s4bxi/acks-at-landing,
// nic/wire.hpp): the same outputs and events, and no more scheduling rounds
// (a few fewer on the fat tree: 50,308 against 50,316, where an engine's
// actor ran alone in a batch of its own). In the ping-pong, the BXI ACKs of
// the ACKs (405 of 406 in the 8 B one); on the fat tree, those that land
// while their engine is idle (2,432).
TEST_F(Mpi, AcksAtLandingChangeNothingButWhoHandlesThem)
{
    for (const auto &[platform, job] : lone_jobs()) {
        const auto [at_landing, by_engines] = run_with_and_without("s4bxi/acks-at-landing", platform, job);
        const std::string &program = job[2];
        ASSERT_TRUE(at_landing.report.has_value() && by_engines.report.has_value());
        EXPECT_GT(at_landing.report->get("wire_acks_at_landing")->number, platform == "default" ? 300 : 1000)
            << program;
        EXPECT_EQ(by_engines.report->get("wire_acks_at_landing")->number, 0) << program;
        EXPECT_LE(at_landing.report->get("engine_rounds")->number, by_engines.report->get("engine_rounds")->number)
            << program;
    }
}

// A blocked poll whose end is already on its way (the event written, its
// landing known) is answered at once, at the rank's later time, when nothing
// the rank could see can happen before then (s4bxi/answers-ahead,
// rank_proxy.cpp), and the simulation goes on to that time while the process
// runs: the same events at the same times (which polls the process answers
// itself may move: the horizon is seen from the earlier clock), about as many
// round trips. In the 8 B ping-pong, both waits of each message.
TEST_F(Mpi, AnswersAheadChangeNothingButWhenTheProcessesRun)
{
    for (const auto &[platform, job] : lone_jobs()) {
        const auto [ahead, waited] = run_with_and_without("s4bxi/answers-ahead", platform, job, true);
        const std::string &program = job[2];
        ASSERT_TRUE(ahead.report.has_value() && waited.report.has_value());
        auto ahead_of = [](const TracedRun &run, const char *what) {
            return run.report->get("answers_ahead")->get(what)->number;
        };
        const double answered = ahead_of(ahead, "count");
        EXPECT_GT(answered, platform == "default" ? 35 : 50) << program;
        EXPECT_GT(ahead_of(ahead, "simulated_s"), answered * 1e-9) << program << ": at least 1 ns ahead each";
        EXPECT_EQ(ahead_of(waited, "count"), 0) << program;
        EXPECT_EQ(ahead_of(waited, "simulated_s"), 0) << program;
        EXPECT_LE(-fewer_answers(ahead, waited), 0.05 * waited.report->get("server_waiting")->get("answers")->number)
            << program << ": round trips added";
    }
}

// The server's own CPU (s4bxi/server-cpu, job/server_cpu.hpp) decides where
// the processes run, never what they compute: the same outputs, simulated
// end and events with it on and off. Whether the server takes a CPU in a run
// depends on the machine's load (not while other processes want the CPUs),
// so only "off" is asserted: then it never does.
TEST_F(Mpi, TheServersOwnCpuChangesNothingButWhereTheProcessesRun)
{
    for (const auto &[platform, job] : lone_jobs()) {
        const auto [own, shared] = run_with_and_without("s4bxi/server-cpu", platform, job);
        ASSERT_TRUE(own.report.has_value() && shared.report.has_value());
        EXPECT_EQ(shared.report->get("own_cpu")->get("taken")->number, 0) << job[2];
        EXPECT_EQ(shared.report->get("own_cpu")->get("held_s")->number, 0) << job[2];
    }
}

// The horizon from the messages on their way (s4bxi/horizon-from-traffic):
// a rank answers its polls up to the earliest time its NIC can write an
// event, not only a PCIe write after its last answer. Open MPI's ping-pong and
// collectives see the same results and clocks, with fewer round trips.
TEST_F(Mpi, HorizonFromTrafficChangesNothingButTheRoundTrips)
{
    for (const auto &[ranks, job] :
         {std::pair{2, std::vector<std::string>{mpi_program("mpi_pingpong"), "50", "4096"}},
          std::pair{4, std::vector<std::string>{mpi_program("mpi_collectives")}}}) {
        auto run_with = [&, &ranks = ranks, &job = job](const std::string &horizon) {
            std::vector<std::string> args{"-n", std::to_string(ranks), "--cfg=s4bxi/compute:none",
                                          "--cfg=s4bxi/horizon-from-traffic:" + horizon};
            args.insert(args.end(), job.begin(), job.end());
            return run_reported(args);
        };
        const Reported far = run_with("yes");
        const Reported near = run_with("no");
        EXPECT_EQ(far.result.exit_code, 0) << describe(far.result);
        EXPECT_EQ(sorted_lines(far.result.out), sorted_lines(near.result.out)) << describe(far.result)
                                                                             << describe(near.result);
        expect_same_simulated_end(far.result, near.result);
        EXPECT_LT(far.number({"server_waiting", "answers"}), near.number({"server_waiting", "answers"}))
            << describe(far.result) << describe(near.result);
    }
}

// A PtlPut that Open MPI's process queues itself comes with a forecast of its
// end and SEND event when the rank is alone on its node and its NIC sends
// nothing (nic/put_forecast.cpp): the process then answers the polls after
// it too. The same events at the same times, one round trip less per such
// Put: 2 per ping-pong message instead of 3.
TEST_F(Mpi, PutForecastsChangeNothingButTheRoundTrips)
{
    for (const auto &[ranks, job] :
         {std::pair{2, std::vector<std::string>{mpi_program("mpi_pingpong"), "200", "8"}},
          std::pair{4, std::vector<std::string>{mpi_program("mpi_collectives")}}}) {
        // One rank per node: a rank that shares its node gets no forecast.
        auto run_with = [&, &ranks = ranks, &job = job](const std::string &forecasts) {
            std::vector<std::string> args{"-n", std::to_string(ranks), "--platform",
                                          "fattree:1;" + std::to_string(ranks) + ";1;1", "--cfg=s4bxi/compute:none",
                                          "--cfg=s4bxi/put-forecasts:" + forecasts};
            args.insert(args.end(), job.begin(), job.end());
            return run_reported(args);
        };
        const Reported with = run_with("yes");
        const Reported without = run_with("no");
        EXPECT_EQ(with.result.exit_code, 0) << describe(with.result);
        EXPECT_EQ(sorted_lines(with.result.out), sorted_lines(without.result.out)) << describe(with.result)
                                                                                 << describe(without.result);
        expect_same_simulated_end(with.result, without.result);
        EXPECT_GT(with.number({"put_forecasts", "used"}), 0) << describe(with.result);
        EXPECT_EQ(with.number({"put_forecasts", "missed"}), 0) << describe(with.result);
        EXPECT_EQ(without.number({"put_forecasts", "used"}), 0) << describe(without.result);
        EXPECT_LT(with.number({"server_waiting", "answers"}), without.number({"server_waiting", "answers"}))
            << describe(with.result) << describe(without.result);
    }
}

// An append Open MPI's process queues itself, whose one event is its LINK (the
// entry of a receive above the eager limit, where no unexpected header
// waits), lets the process expect that event a PCIe write later
// (s4bxi/link-forecasts) and take it itself instead of asking the server: the
// same events at the same times, one round trip less per such receive (a
// 4 KiB ping-pong message takes 3 instead of 4; the halo exchange fewer).
TEST_F(Mpi, LinkForecastsChangeNothingButTheRoundTrips)
{
    for (const auto &[platform, job] : long_message_jobs()) {
        const auto [with, without] = run_with_and_without("s4bxi/link-forecasts", platform, job, true);
        const std::string &program = job[2];
        ASSERT_TRUE(with.report.has_value() && without.report.has_value());
        auto count = [](const TracedRun &run, const char *what) {
            return run.report->get("link_forecasts")->get(what)->number;
        };
        const double used = count(with, "used");
        EXPECT_GT(used, platform == "default" ? 200 : 50) << program;
        EXPECT_EQ(count(with, "missed"), 0) << program;
        EXPECT_EQ(count(without, "used"), 0) << program;
        // (The ping-pong: one per message of its 100 iterations; not every
        // LINK event forecast was waited on, those of the start-up's appends.)
        EXPECT_GE(fewer_answers(with, without), platform == "default" ? 190 : 0.2 * used)
            << program << ": round trips saved";
    }
}

// A PtlPut whose payload the NIC reads by DMA (above the PIO limit) is queued
// by the process too (s4bxi/queued-dma-puts): nothing is captured, the NIC
// reads the memory when the Put runs, as for a Put the server was sent, and
// the forecast tells its end (its command's write) and that its SEND comes
// with the acknowledgment. The same events at the same times; a 4 KiB
// ping-pong message takes 2 round trips instead of 3 (with the LINK forecast:
// 4 before both), the 8-rank halo exchange fewer.
TEST_F(Mpi, QueuedDmaPutsChangeNothingButTheRoundTrips)
{
    for (const auto &[platform, job] : long_message_jobs()) {
        const auto [queued, sent] = run_with_and_without("s4bxi/queued-dma-puts", platform, job, true);
        const std::string &program = job[2];
        ASSERT_TRUE(queued.report.has_value() && sent.report.has_value());
        EXPECT_EQ(queued.report->get("put_forecasts")->get("missed")->number, 0) << program;
        // (100 iterations: 200 Puts of 4 KiB.)
        EXPECT_GE(fewer_answers(queued, sent), platform == "default" ? 195 : 50) << program << ": round trips saved";
    }
}

// The halo exchange posts its six receives in a row, with a progress poll
// after each: the append permit covers several appends between two replies
// (ipc::kAppendPermitEntries), so that none of them asks the server. The same
// events at the same times as with every append sent to the server; 770 fewer
// answers in this job (548 when the permit covered one append per reply).
TEST_F(Mpi, SeveralQueuedAppendsBetweenTwoReplies)
{
    const auto [queued, sent] =
        run_with_and_without("s4bxi/queued-appends", "fattree:1;8;1;1",
                             {"-n", "8", std::string(E2E_BINARY_DIR) + "/bench/mpi_stencil", "3", "32"}, true);
    ASSERT_TRUE(queued.report.has_value() && sent.report.has_value());
    EXPECT_GT(fewer_answers(queued, sent), 650);
}

// A forecast needs a lone PCIe write of a command to last exactly its latency
// and its bytes at the route's narrowest bandwidth: not under LV08's
// correction factors, nor with the crosstraffic of writes the other way
// eating into a link no wider than the narrowest.
TEST_F(Mpi, PutForecastsOnlyWhereLoneWritesAreExact)
{
    for (const auto &settings : {std::vector<std::string>{"--cfg=network/model:LV08"},
                                 std::vector<std::string>{"--cfg=network/crosstraffic:1",
                                                          "--cfg=s4bxi/pci-transfer-cap:20e9"},
                                 std::vector<std::string>{}}) {
        std::vector<std::string> args{"-n", "2", "--cfg=s4bxi/compute:none"};
        args.insert(args.end(), settings.begin(), settings.end());
        args.insert(args.end(), {std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", "50", "8"});
        const Reported r = run_reported(args);
        expect_success(r.result, 2);
        if (settings.empty())
            EXPECT_GT(r.number({"put_forecasts", "used"}), 0) << describe(r.result);
        else
            EXPECT_EQ(r.number({"put_forecasts", "used"}), 0) << describe(r.result);
        EXPECT_EQ(r.number({"put_forecasts", "missed"}), 0) << describe(r.result);
    }
}

// The same with a payload the CPU writes by PIO (128 B: 120 of them beyond
// what the command carries), whose SEND event comes with the acknowledgment:
// the process adds the PIO write to the Put's end, and expects that SEND
// no earlier than the acknowledgment can bring it.
TEST_F(Mpi, PutForecastsCoverPioPayloads)
{
    std::vector<double> answers;
    std::vector<double> ends;
    for (const char *forecasts : {"yes", "no"}) {
        for (const char *iterations : {"200", "400"}) {
            const Reported r = run_reported({"-n", "2", "--cfg=s4bxi/compute:none",
                                             std::string("--cfg=s4bxi/put-forecasts:") + forecasts,
                                             std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", iterations, "128"});
            expect_success(r.result, 2);
            EXPECT_EQ(r.number({"put_forecasts", "missed"}), 0) << describe(r.result);
            answers.push_back(r.number({"server_waiting", "answers"}));
            ends.push_back(r.number({"simulated_time_s"}));
        }
    }
    // 200 more iterations: 400 more messages (start-up and teardown cancel out).
    EXPECT_NEAR((answers[1] - answers[0]) / 400, 2.0, 0.1);
    EXPECT_NEAR((answers[3] - answers[2]) / 400, 3.0, 0.1);
    EXPECT_EQ(ends[0], ends[2]);
    EXPECT_EQ(ends[1], ends[3]);
}

// Round trips per message of a 2-rank MPI ping-pong of 8 B (both ranks'): the
// receiver waits for the Put, the sender for its ACK, nothing else (3 before
// the forecasts, 12 before the process answered anything itself).
TEST_F(Mpi, PingpongTakesTwoRoundTripsPerMessage)
{
    std::vector<double> answers;
    for (const char *iterations : {"200", "400"}) {
        const Reported r = run_reported({"-n", "2", "--cfg=s4bxi/compute:none",
                                         std::string(E2E_BINARY_DIR) + "/bench/mpi_pingpong", iterations, "8"});
        expect_success(r.result, 2);
        answers.push_back(r.number({"server_waiting", "answers"}));
    }
    // 200 more iterations: 400 more messages (start-up and teardown cancel out).
    const double per_message = (answers[1] - answers[0]) / 400;
    EXPECT_GT(per_message, 1.9);
    EXPECT_LT(per_message, 2.1);
}

// Ranks answered at one simulated time run side by side: each proxy lets the
// others due at that time answer their ranks before it waits for its own
// process's next call (in a 16-rank allreduce nearly every answer comes while
// another process runs; one after the other, none would).
TEST_F(Mpi, RanksAnsweredAtOneTimeRunSideBySide)
{
    const Reported r = run_reported({"-n", "16", "--platform", "fattree:2;4,4;1,2;1,2", "--cfg=s4bxi/compute:none",
                                     std::string(E2E_BINARY_DIR) + "/bench/mpi_collective_latency", "allreduce", "4",
                                     "20"});
    expect_success(r.result, 16);
    EXPECT_GT(r.number({"server_waiting", "side_by_side"}), r.number({"server_waiting", "answers"}) / 2)
        << describe(r.result);
}

TEST_F(Mpi, OnesidedTwoRanks)
{
    run_checked("mpi_onesided", 2, "onesided 2 ranks");
}

TEST_F(Mpi, OnesidedFourRanks)
{
    run_checked("mpi_onesided", 4, "onesided 4 ranks");
}

TEST_F(Mpi, ThreadsTwoRanks)
{
    auto r = run_checked("mpi_threads", 2, "threads 2 ranks");
    EXPECT_TRUE(std::regex_search(r.out, std::regex("rank 1 provided MPI_THREAD_\\w+"))) << describe(r);
}

TEST_F(Mpi, ThreadsFourRanks)
{
    auto r = run_checked("mpi_threads", 4, "threads 4 ranks");
    EXPECT_TRUE(std::regex_search(r.out, std::regex("rank 3 provided MPI_THREAD_\\w+"))) << describe(r);
}

// MPI_THREAD_MULTIPLE: two threads of each rank exchange at once, each
// thread on its own lane to the emulator (issue 20, item 1).
TEST_F(Mpi, ThreadMultipleTwoThreadsPerRank)
{
    auto r = run_checked("mpi_thread_multiple", 2, "thread_multiple 2 threads");
    EXPECT_TRUE(contains(r.out, "rank 1 provided MPI_THREAD_MULTIPLE")) << describe(r);
    EXPECT_FALSE(contains(r.err, "deadlock")) << describe(r);
}

// ---------------------------------------------------------------------------
// Time.

// MPI_Wtime advances over compute and sleeps and agrees with CLOCK_MONOTONIC
// (the program checks both), on every rank.
TEST_F(Mpi, WtimeAdvancesAndAgreesWithTheClock)
{
    auto r = run_checked("mpi_wtime", 2, "wtime 2 ranks", {}, {"100"});
    expect_ok(r, 2, {"wtime advances and agrees with CLOCK_MONOTONIC"});
    for (int rank = 0; rank < 2; ++rank) {
        const std::regex re("wtime ([0-9.eE+-]+) ([0-9.eE+-]+) ([0-9.eE+-]+) rank " + std::to_string(rank));
        std::smatch m;
        ASSERT_TRUE(std::regex_search(r.out, m, re)) << "rank " << rank << "\n" << describe(r);
        EXPECT_GT(std::stod(m[1]), 0.0) << describe(r);     // over the compute
        EXPECT_GE(std::stod(m[2]), 2e-3) << describe(r);    // over usleep(2000)
    }
}

// The program's own compute between two MPI calls is measured: MPI_Wtime
// across mpi_wtime's ~20 ms busy loop advances by the loop's thread CPU time
// (the program's getrusage), within 5%, although the clock stands still
// inside every MPI call (s4bxi/library-compute:modelled, the default).
// Without preemption: its syncs run in a signal handler on the program's
// thread, whose getrusage then counts the emulator's time there too (a rank
// that waits for the server's answer to a sync spins first), which is no
// compute of the program's.
TEST_F(Mpi, ComputeBetweenMpiCallsIsMeasured)
{
    auto r = run_checked("mpi_wtime", 2, "wtime 2 ranks", {"--cfg=s4bxi/sync-quantum:0"}, {"20"});
    for (int rank = 0; rank < 2; ++rank) {
        std::smatch wtime, cpu;
        ASSERT_TRUE(std::regex_search(r.out, wtime, std::regex("wtime ([0-9.eE+-]+) .* rank " + std::to_string(rank))))
            << describe(r);
        ASSERT_TRUE(std::regex_search(r.out, cpu, std::regex("busy loop cpu ([0-9.eE+-]+) rank " + std::to_string(rank))))
            << describe(r);
        const double simulated = std::stod(wtime[1]), measured = std::stod(cpu[1]);
        EXPECT_NEAR(simulated, measured, 0.05 * measured) << "rank " << rank << "\n" << describe(r);
    }
}

// What OpenMPI does between the Portals calls of an MPI call (its progress
// loop, and the emulator's own work in the process) is not the program's
// compute: in the default mode, an MPI ping-pong's simulated latency is
// that of the network model (the same program under s4bxi/compute:none),
// not several times it (before: 4.4 against 1.9 us for 8 B). The report
// tells the two apart: the CPU time spent inside MPI, far more than the
// program's compute, is counted but not simulated.
TEST_F(Mpi, LibraryCpuIsNotComputeByDefault)
{
    struct Run {
        std::map<long, double> latency; // half round trip (s) by size
        std::optional<json::Value> report;
    };
    auto run_with = [this](const std::vector<std::string> &cfg) {
        TempDir dir;
        const std::string report = dir.file("report.json");
        std::vector<std::string> args{"-n", "2", "--report", report};
        args.insert(args.end(), cfg.begin(), cfg.end());
        for (const auto &arg : {mpi_program("mpi_pingpong"), std::string("500"), std::string("8")})
            args.push_back(arg);
        auto r = run(args);
        expect_success(r, 2);
        EXPECT_TRUE(contains(r.err, " MPI calls, ")) << "no MPI line in the summary\n" << describe(r);
        Run result;
        for (const auto &line : lines(r.out)) {
            long size;
            double seconds;
            if (std::sscanf(line.c_str(), "size %ld %lf", &size, &seconds) == 2)
                result.latency[size] = seconds;
        }
        EXPECT_FALSE(result.latency.empty()) << describe(r);
        result.report = read_json(report);
        return result;
    };
    const Run modelled = run_with({});
    const Run network = run_with({"--cfg=s4bxi/compute:none"});
    ASSERT_EQ(modelled.latency.size(), network.latency.size());
    std::vector<double> ratios;
    for (const auto &[size, seconds] : network.latency) {
        const double measured = modelled.latency.at(size);
        std::printf("%ld B: %.3f us (default mode), %.3f us (compute:none)\n", size, measured * 1e6, seconds * 1e6);
        // (Compute shifts where the polls fall in their 0.1 us periods: a
        // message may then be seen a period earlier than without it.)
        EXPECT_GE(measured, 0.9 * seconds) << size << " B";
        ratios.push_back(measured / seconds);
    }
    // The program's own compute between its MPI calls is measured, and a
    // loaded machine stretches some of it (a CPU taken away mid-loop, cold
    // caches): each size's loop may catch such a stretch, not most of them.
    // (When the library's CPU time counted, every size took 2.5 to 3.5 times.)
    std::sort(ratios.begin(), ratios.end());
    EXPECT_LE(ratios[ratios.size() / 2], 1.3) << "median of the default mode's latencies over compute:none's";
    ASSERT_TRUE(modelled.report && network.report);
    const auto &ranks = modelled.report->get("per_rank")->array;
    const auto &ranks_none = network.report->get("per_rank")->array;
    ASSERT_EQ(ranks.size(), 2u);
    ASSERT_EQ(ranks_none.size(), 2u);
    const double simulated = modelled.report->get("simulated_time_s")->number;
    for (size_t i = 0; i < ranks.size(); ++i) {
        const json::Value &rank = ranks[i];
        // Every MPI call of the program, counted in both modes alike.
        EXPECT_GT(rank.get("mpi_calls")->number, 400.0) << i;
        EXPECT_EQ(rank.get("mpi_calls")->number, ranks_none[i].get("mpi_calls")->number) << i;
        EXPECT_GT(rank.get("mpi_time_s")->number, 0.0) << i;
        EXPECT_LE(rank.get("mpi_time_s")->number, simulated) << i;
        EXPECT_GT(rank.get("mpi_cpu_s")->number, rank.get("compute_s")->number) << i;
        EXPECT_EQ(ranks_none[i].get("mpi_cpu_s")->number, 0.0) << i; // not measured without compute
    }
}

// The report splits an MPI call's simulated time into the network's (blocked
// in or polling on Portals events, inside MPI) and the library's own (the
// Portals calls' costs). mpi_collectives' rank 0 sleeps 3 x 20 ms outside MPI
// while the others wait for it in MPI_Barrier: its sleep is its own wait, not
// MPI's; theirs is the network's.
TEST_F(Mpi, MpiTimeSplitsIntoNetworkAndLibrary)
{
    TempDir dir;
    const std::string report = dir.file("report.json");
    auto r = run({"-n", "4", "--cfg=s4bxi/compute:none", "--report", report, mpi_program("mpi_collectives")});
    expect_ok(r, 4, kCollectiveOks);
    EXPECT_TRUE(contains(r.err, " s waiting for the network, ")) << "no split in the summary\n" << describe(r);
    auto doc = read_json(report);
    ASSERT_TRUE(doc && doc->is_object()) << describe(r);
    const auto &ranks = doc->get("per_rank")->array;
    ASSERT_EQ(ranks.size(), 4u);
    constexpr double kSlept = 3 * 0.02;
    for (size_t i = 0; i < ranks.size(); ++i) {
        const json::Value &rank = ranks[i];
        const double inside = rank.get("mpi_time_s")->number, network = rank.get("mpi_network_s")->number,
                     library = rank.get("mpi_library_s")->number;
        const double waited = rank.get("wait_s")->number + rank.get("poll_s")->number;
        EXPECT_NEAR(network + library, inside, 1e-9 + 1e-9 * inside) << i;
        EXPECT_GT(library, 0.0) << i;
        EXPECT_GT(network, 0.0) << i;
        EXPECT_LE(network, waited + 1e-12) << i;
        if (i == 0) {
            EXPECT_GE(rank.get("wait_s")->number, kSlept) << "its sleeps";
            EXPECT_LE(network, waited - kSlept + 1e-9) << "its sleeps are not MPI's waits";
        } else {
            EXPECT_GE(network, kSlept) << i << ": waited in the barrier for rank 0's sleeps";
        }
    }
}

// The 8 B Portals-level latency: the 8 B row of examples/pingpong (half the
// round trip of PtlPut without ACK, completion by PtlEQWait, in us), the
// Portals counterpart of an MPI eager message.
double portals_8b_latency_us(const RunResult &r)
{
    for (const auto &line : lines(r.out)) {
        long size, iterations;
        double latency;
        if (line[0] != '#' && std::sscanf(line.c_str(), "%ld %ld %lf", &size, &iterations, &latency) == 3 &&
            size == 8)
            return latency;
    }
    return -1;
}

// MPI_Wtime figures and Portals figures of the same platform: the MPI 8 B half
// round trip (mpi_wtime's "pingpong8 X us") is at least the Portals 8 B Put
// latency (examples/pingpong, same platform and options) and under 10 times
// it. Deterministic times without s4bxi/compute:none (under which mpi_wtime's
// 20 ms busy loop would not advance MPI_Wtime, failing its own check): compute
// bursts under 1 ms (the libraries' own work between calls) are not injected.
TEST_F(Mpi, WtimeLatencyIsConsistentWithPortalsLatency)
{
    for (const char *platform : {"fattree:1;2;1;1", kFatTree16}) {
        const std::vector<std::string> common{"-n", "2", "--platform", platform, "--cfg=s4bxi/cpu-threshold:0.001"};

        std::vector<std::string> portals_args = common;
        for (const auto &arg : {example("pingpong"), std::string("-m"), std::string("8"), std::string("-i"),
                                std::string("200")})
            portals_args.push_back(arg);
        auto p = run(portals_args);
        expect_success(p, 2);
        const double portals_us = portals_8b_latency_us(p);
        ASSERT_GT(portals_us, 0.0) << "no 8 B row\n" << describe(p);

        std::vector<std::string> mpi_args = common;
        mpi_args.push_back(mpi_program("mpi_wtime"));
        mpi_args.push_back("200");
        auto m = run(mpi_args);
        expect_ok(m, 2, {"wtime 2 ranks"});
        std::smatch match;
        ASSERT_TRUE(std::regex_search(m.out, match, std::regex("pingpong8 ([0-9.]+) us"))) << describe(m);
        const double mpi_us = std::stod(match[1]);
        std::printf("%s: Portals 8 B Put latency %.3f us, MPI 8 B half round trip %.3f us\n", platform,
                    portals_us, mpi_us);
        EXPECT_GE(mpi_us, portals_us) << platform << "\n" << describe(p) << "\n" << describe(m);
        EXPECT_LT(mpi_us, 10 * portals_us) << platform << "\n" << describe(p) << "\n" << describe(m);
    }
}

// ---------------------------------------------------------------------------
// Abort.

TEST_F(Mpi, AbortEndsTheJobWithItsCode)
{
    auto r = run({"-n", "2", mpi_program("mpi_abort")});
    EXPECT_EQ(r.exit_code, 7) << describe(r);
    EXPECT_TRUE(contains(r.out, "aborting rank 1 with code 7")) << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: rank 1 called PMI_Abort (exit code 7)")) << describe(r);
    EXPECT_FALSE(icontains(r.err, "deadlock")) << describe(r);
    EXPECT_LT(r.wall_s, 30.0) << describe(r);
}

// OpenMPI's session directories (under TMPDIR) go with the run, whether it
// ends well or by MPI_Abort (ranks killed before they could clean up).
TEST_F(Mpi, SessionDirectoriesAreRemovedAtTheEnd)
{
    TempDir tmp;
    auto ok = run_with_env({"TMPDIR=" + tmp.path()}, {"-n", "2", mpi_program("mpi_hello"), "2"});
    expect_ok(ok, 2, {"hello 2 ranks"});
    auto aborted = run_with_env({"TMPDIR=" + tmp.path()}, {"-n", "2", mpi_program("mpi_abort")});
    EXPECT_EQ(aborted.exit_code, 7) << describe(aborted);
    std::vector<std::string> left;
    for (const auto &entry : std::filesystem::directory_iterator(tmp.path()))
        left.push_back(entry.path().string());
    EXPECT_TRUE(left.empty()) << "left in TMPDIR: " << (left.empty() ? "" : left.front());
}

// A middle rank of four aborts while the others wait in a receive.
TEST_F(Mpi, AbortByOneOfFourRanks)
{
    auto r = run({"-n", "4", mpi_program("mpi_abort"), "2"});
    EXPECT_EQ(r.exit_code, 7) << describe(r);
    EXPECT_TRUE(contains(r.out, "aborting rank 2 with code 7")) << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: rank 2 called PMI_Abort (exit code 7)")) << describe(r);
    EXPECT_LT(r.wall_s, 30.0) << describe(r);
}

// ---------------------------------------------------------------------------
// OpenMPI parameters.

// --mca reaches the ranks (-v shows it) and the run passes: an eager limit of
// 4 KiB sends the larger messages through the rendezvous protocol.
TEST_F(Mpi, McaOptionIsPassed)
{
    auto r = run({"-v", "-n", "2", "--mca", "mtl_portals4_eager_limit", "4096", mpi_program("mpi_pingpong"), "10",
                  "65536"});
    expect_ok(r, 2, {"pingpong 4096 B", "pingpong 4097 B", "pingpong 65536 B", "pingpong"});
    EXPECT_TRUE(contains(r.err, "s4bxi-run: OMPI_MCA_mtl_portals4_eager_limit=4096\n")) << describe(r);
    // The emulator's own choices are shown as well.
    EXPECT_TRUE(contains(r.err, "s4bxi-run: OMPI_MCA_pml=cm\n")) << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: OMPI_MCA_mtl=portals4\n")) << describe(r);
}

// --mca on a program that does not use OpenMPI is a usage error.
TEST_F(Mpi, McaOptionOnANonMpiProgramIsAUsageError)
{
    auto r = run({"-n", "2", "--mca", "btl", "self", program("put_get_integrity")});
    expect_usage_error(r, "--mca");
    EXPECT_TRUE(icontains(r.err, "OpenMPI")) << describe(r);
}

// OMPI_MCA_pml from the user's environment is kept: the launcher does not set
// its own (-v lists what it sets), and the rank sees the user's value.
TEST_F(Mpi, OmpiMcaVariableFromTheEnvironmentIsKept)
{
    auto r = run_with_env({"OMPI_MCA_pml=cm"}, {"-v", "-n", "2", mpi_program("mpi_hello"), "2"});
    expect_ok(r, 2, {"hello 2 ranks"});
    EXPECT_FALSE(contains(r.err, "OMPI_MCA_pml=")) << "the launcher set pml itself\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: OMPI_MCA_mtl=portals4\n")) << describe(r);

    // A value the emulator would never choose reaches OpenMPI, which names it.
    auto bad = run_with_env({"OMPI_MCA_pml=no_such_pml"}, {"-v", "-n", "2", mpi_program("mpi_hello"), "2"});
    EXPECT_NE(bad.exit_code, 0) << describe(bad);
    EXPECT_FALSE(contains(bad.err, "OMPI_MCA_pml=")) << describe(bad);
    EXPECT_TRUE(contains(bad.out + bad.err, "no_such_pml")) << describe(bad);
}

// OpenMPI's hwloc leaves the host's I/O devices alone (tools/mpi_launch.cpp),
// unless the user chose hwloc's components, which the ranks then get.
TEST_F(Mpi, HwlocSkipsTheHostsIoDevicesUnlessTheUserChoseComponents)
{
    auto r = run({"-v", "-n", "2", mpi_program("mpi_hello"), "2"});
    expect_ok(r, 2, {"hello 2 ranks"});
    EXPECT_TRUE(contains(r.err, "s4bxi-run: HWLOC_COMPONENTS=-linuxio,-pci,-opencl,-gl\n")) << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: HWLOC_PLUGINS_BLACKLIST=hwloc_pci,hwloc_opencl,hwloc_gl\n")) << describe(r);

    auto mine = run_with_env({"HWLOC_COMPONENTS=-linuxio", "HWLOC_PLUGINS_BLACKLIST=hwloc_gl"},
                             {"-v", "-n", "2", mpi_program("mpi_hello"), "2"});
    expect_ok(mine, 2, {"hello 2 ranks"});
    EXPECT_FALSE(contains(mine.err, "HWLOC_COMPONENTS=")) << "the launcher set its own\n" << describe(mine);
    EXPECT_FALSE(contains(mine.err, "HWLOC_PLUGINS_BLACKLIST=")) << "the launcher set its own\n" << describe(mine);
}

// ---------------------------------------------------------------------------
// MPI programs the launcher cannot run.

// An installation without lib/openmpi: copies of the launcher and the server
// (copies, not symlinks: the launcher finds its installation through
// /proc/self/exe, which resolves symlinks), libportals and libs4bxi-pmi.so.
TEST_F(Mpi, MpiProgramWithoutTheComponentsIsRefused)
{
    TempDir prefix;
    const fs::path root = prefix.path();
    const fs::path build = E2E_BINARY_DIR;
    fs::create_directories(root / "bin");
    fs::create_directories(root / "lib");
    fs::copy_file(build / "bin" / "s4bxi-run", root / "bin" / "s4bxi-run");
    fs::copy_file(build / "bin" / "s4bxi-simserver", root / "bin" / "s4bxi-simserver");
    for (const char *flavour : {"sandia", "sandia-legacy", "bxi"})
        fs::create_directory_symlink(build / "lib" / flavour, root / "lib" / flavour);
    for (const char *library : {"libportals.so.4", "libs4bxi-pmi.so"})
        fs::create_symlink(build / "lib" / library, root / "lib" / library);
    ASSERT_FALSE(fs::exists(root / "lib" / "openmpi"));

    auto r = run_command({(root / "bin" / "s4bxi-run").string(), "-n", "2", mpi_program("mpi_hello"), marker_});
    expect_usage_error(r, "components");
    EXPECT_TRUE(contains(r.err, (root / "lib" / "openmpi").string())) << describe(r);

    // The same installation runs a Portals program: only MPI needs the components.
    auto portals = run_command({(root / "bin" / "s4bxi-run").string(), "-n", "2", program("put_get_integrity"),
                                marker_});
    expect_success(portals, 2);
}

// A program linked against another libmpi.so.40 (another OpenMPI build): the
// sentence names both libraries.
TEST_F(Mpi, AnotherOpenMpiBuildIsRefused)
{
    TempDir dir;
    ASSERT_TRUE(fake_mpi_program(dir, "libmpi.so.40"));
    auto r = run({"-n", "2", dir.file("prog")});
    expect_usage_error(r, "OpenMPI");
    const std::string fake = fs::canonical(dir.file("libmpi.so.40")).string();
    EXPECT_TRUE(contains(r.err, fake)) << "the sentence should name " << fake << "\n" << describe(r);
    EXPECT_TRUE(contains(r.err, E2E_OPENMPI_LIBMPI))
        << "the sentence should name " << E2E_OPENMPI_LIBMPI << "\n" << describe(r);
}

// A program linked against MPICH's libmpich.so.12.
TEST_F(Mpi, MpichProgramIsRefused)
{
    TempDir dir;
    ASSERT_TRUE(fake_mpi_program(dir, "libmpich.so.12"));
    auto r = run({"-n", "2", dir.file("prog")});
    expect_usage_error(r, "libmpich.so.12");
    EXPECT_TRUE(contains(r.err, "libmpi.so.40")) << "the sentence should say what runs\n" << describe(r);
}

} // namespace
} // namespace e2e
