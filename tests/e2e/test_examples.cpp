// The pingpong example and the run report.
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <cstdio>
#include <map>
#include <sstream>
#include <thread>

namespace e2e {
namespace {

class Examples : public E2ETest {
protected:
    struct Row {
        long iterations = 0;
        double latency_us = 0;
        double bandwidth_mbs = 0;
    };

    // Rows of the pingpong table by size.
    static std::map<long, Row> table(const std::string &out)
    {
        std::map<long, Row> rows;
        for (const auto &line : lines(out)) {
            if (line[0] == '#')
                continue;
            std::istringstream in(line);
            long size;
            Row row;
            if (in >> size >> row.iterations >> row.latency_us >>
                row.bandwidth_mbs)
                rows[size] = row;
        }
        return rows;
    }

    // A job of `ranks` ranks run with --report, which must succeed, and its
    // report: `doc` is empty (and the failure added) when there is none.
    struct Reported {
        RunResult run;
        std::string text;
        std::optional<json::Value> doc;
    };
    Reported run_reporting(unsigned ranks, const std::vector<std::string> &args)
    {
        TempDir dir;
        const std::string report = dir.file("run.json");
        std::vector<std::string> command{"-n", std::to_string(ranks), "--report", report};
        command.insert(command.end(), args.begin(), args.end());
        Reported reported{run(command), "", std::nullopt};
        expect_success(reported.run, static_cast<int>(ranks));
        reported.text = read_file(report);
        std::string error;
        reported.doc = json::parse(reported.text, &error);
        if (not reported.doc)
            ADD_FAILURE() << error << "\n" << describe(reported.run);
        return reported;
    }
};

TEST_F(Examples, PingpongPrintsTable)
{
    auto r = run({"-n", "2", example("pingpong"), "-m", "65536"});
    expect_success(r, 2);
    auto rows = table(r.out);
    ASSERT_EQ(rows.size(), 14u) << "expected sizes 8 B to 64 KiB\n"
                                << describe(r);
    for (long size = 8; size <= 65536; size *= 2) {
        ASSERT_TRUE(rows.count(size)) << "no row for " << size << " B\n"
                                      << describe(r);
        const Row &row = rows[size];
        EXPECT_GT(row.iterations, 0);
        EXPECT_GT(row.latency_us, 0.0) << size << " B";
        EXPECT_NEAR(row.bandwidth_mbs, size / row.latency_us,
                    0.01 * row.bandwidth_mbs + 0.01)
            << size << " B";
    }
    // Plausible for a 100 Gb/s network: a small message takes between
    // 0.1 and 100 us one way, 64 KiB goes faster than 100 MB/s.
    EXPECT_GT(rows[8].latency_us, 0.1) << describe(r);
    EXPECT_LT(rows[8].latency_us, 100.0) << describe(r);
    EXPECT_GT(rows[65536].latency_us, rows[8].latency_us) << describe(r);
    EXPECT_GT(rows[65536].bandwidth_mbs, 100.0) << describe(r);
}

TEST_F(Examples, PingpongIsDeterministicWithoutCompute)
{
    std::vector<std::string> args{"-n", "2", "--cfg=s4bxi/compute:none",
                                  example("pingpong"), "-m", "4096", "-i", "5"};
    auto a = run(args);
    auto b = run(args);
    expect_success(a, 2);
    expect_success(b, 2);
    EXPECT_FALSE(table(a.out).empty()) << describe(a);
    EXPECT_EQ(a.out, b.out);
    auto sa = parse_summary(a.err), sb = parse_summary(b.err);
    ASSERT_TRUE(sa && sb);
    EXPECT_EQ(sa->simulated_s, sb->simulated_s);
}

// The default mode (compute measured) against compute:none, with a 1 MiB
// buffer (mapped apart from the heap: the process reads a small Put's payload
// from it with a system call): the program does next to nothing between its
// calls, so its small messages take the model's time in both, within 1 us.
// Before, that system call passed for the program's compute: 3.8 us per
// 8 B to 256 B message instead of 2.0.
TEST_F(Examples, PingpongFromALargeBufferComputesNothingMore)
{
    const std::vector<std::string> tail{example("pingpong"), "-m", "1048576", "-i", "200"};
    std::vector<std::string> none{"-n", "2", "--cfg=s4bxi/compute:none"};
    none.insert(none.end(), tail.begin(), tail.end());
    std::vector<std::string> measured{"-n", "2"};
    measured.insert(measured.end(), tail.begin(), tail.end());
    auto a = run(none);
    auto b = run(measured);
    expect_success(a, 2);
    expect_success(b, 2);
    auto model = table(a.out), program = table(b.out);
    // (Not the first size, 8 B: the program's first touches of its buffers
    // are its own compute, more of it beside other load.)
    for (long size : {64L, 128L, 256L}) {
        ASSERT_TRUE(model.count(size) && program.count(size)) << size << " B\n" << describe(a) << describe(b);
        EXPECT_LT(program[size].latency_us, model[size].latency_us + 1.0)
            << size << " B, with compute:none " << model[size].latency_us << " us\n"
            << describe(b);
    }
}

// The XML platform shipped in platforms/ describes the default machine: the
// same program must see exactly the same simulated times on both.
TEST_F(Examples, XmlPlatformMatchesTheGeneratedDefault)
{
    const std::string xml = std::string(E2E_BINARY_DIR) + "/share/s4bxi/platforms/two-nodes.xml";
    std::vector<std::string> tail{"--cfg=s4bxi/compute:none", example("pingpong"), "-m", "65536", "-i", "5"};
    std::vector<std::string> with_xml{"-n", "2", "--platform", xml};
    with_xml.insert(with_xml.end(), tail.begin(), tail.end());
    std::vector<std::string> with_default{"-n", "2"};
    with_default.insert(with_default.end(), tail.begin(), tail.end());
    auto a = run(with_xml);
    auto b = run(with_default);
    expect_success(a, 2);
    expect_success(b, 2);
    EXPECT_EQ(table(a.out).size(), 14u) << describe(a);
    EXPECT_EQ(a.out, b.out);
    auto sa = parse_summary(a.err), sb = parse_summary(b.err);
    ASSERT_TRUE(sa && sb);
    EXPECT_EQ(sa->simulated_s, sb->simulated_s);
}

TEST_F(Examples, ReportIsWrittenAsJson)
{
    TempDir dir;
    const std::string report = dir.file("run.json");
    // 4 sizes (8..64 B), 3 timed + 2 warm-up messages each way per size.
    auto r = run({"-n", "2", "--report", report, example("pingpong"), "-m",
                  "64", "-i", "3"});
    expect_success(r, 2);
    const std::string text = read_file(report);
    ASSERT_FALSE(text.empty()) << "no report at " << report << "\n"
                               << describe(r);
    std::string error;
    auto doc = json::parse(text, &error);
    ASSERT_TRUE(doc.has_value()) << "report is not valid JSON: " << error
                                 << "\n" << text;
    ASSERT_TRUE(doc->is_object()) << text;

    const json::Value *sim = doc->get("simulated_time_s");
    const json::Value *wall = doc->get("wall_time_s");
    const json::Value *ranks = doc->get("ranks");
    const json::Value *per_rank = doc->get("per_rank");
    ASSERT_TRUE(sim && sim->is_number()) << text;
    ASSERT_TRUE(wall && wall->is_number()) << text;
    ASSERT_TRUE(ranks && ranks->is_number()) << text;
    ASSERT_TRUE(per_rank && per_rank->is_array()) << text;
    EXPECT_GT(sim->number, 0.0) << text;
    EXPECT_GT(wall->number, 0.0) << text;
    EXPECT_EQ(ranks->number, 2.0) << text;
    auto summary = parse_summary(r.err);
    ASSERT_TRUE(summary.has_value());
    EXPECT_NEAR(sim->number, summary->simulated_s,
                1e-3 * summary->simulated_s + 1e-6)
        << "report and summary line disagree\n" << text;

    ASSERT_EQ(per_rank->array.size(), 2u) << text;
    const double payload = 5.0 * (8 + 16 + 32 + 64);
    bool seen[2] = {false, false};
    for (const auto &entry : per_rank->array) {
        ASSERT_TRUE(entry.is_object()) << text;
        for (const char *key :
             {"rank", "exit_status", "compute_s", "portals_calls", "bytes_sent"})
            ASSERT_TRUE(entry.get(key) && entry.get(key)->is_number())
                << "per_rank entry without numeric \"" << key << "\"\n"
                << text;
        const int rank = static_cast<int>(entry.get("rank")->number);
        ASSERT_TRUE(rank == 0 || rank == 1) << text;
        seen[rank] = true;
        EXPECT_EQ(entry.get("exit_status")->number, 0.0) << text;
        EXPECT_GE(entry.get("compute_s")->number, 0.0) << text;
        EXPECT_GT(entry.get("portals_calls")->number, 20.0) << text;
        EXPECT_GE(entry.get("bytes_sent")->number, payload) << text;
        EXPECT_LT(entry.get("bytes_sent")->number, payload + 4096) << text;
    }
    EXPECT_TRUE(seen[0] && seen[1]) << text;
}

// The report's per-rank times and per-NIC traffic (docs/report-format.md), and
// the summary lines before the last one.
TEST_F(Examples, ReportSplitsTimesAndCountsTrafficByKind)
{
    TempDir dir;
    const std::string report = dir.file("run.json");
    auto r = run({"-n", "2", "--cfg=s4bxi/compute:none", "--report", report, example("pingpong"), "-m", "1024",
                  "-i", "3"});
    expect_success(r, 2);
    std::string error;
    auto doc = json::parse(read_file(report), &error);
    ASSERT_TRUE(doc.has_value()) << error;
    const double simulated = doc->get("simulated_time_s")->number;
    ASSERT_GT(simulated, 0.0);

    double bytes_sent = 0, wait = 0, poll = 0, compute = 0, calls = 0;
    for (const auto &entry : doc->get("per_rank")->array) {
        for (const char *key : {"node", "exit_status", "compute_s", "wait_s", "poll_s", "portals_calls", "bytes_sent",
                                "events_written"})
            ASSERT_TRUE(entry.get(key) && entry.get(key)->is_number()) << "per_rank without \"" << key << "\"";
        EXPECT_EQ(entry.get("node")->number, entry.get("rank")->number) << "rank r on node r";
        EXPECT_EQ(entry.get("compute_s")->number, 0.0) << "compute:none";
        EXPECT_GT(entry.get("wait_s")->number, 0.0) << "both ranks wait in PtlEQWait";
        EXPECT_EQ(entry.get("poll_s")->number, 0.0) << "pingpong never polls";
        EXPECT_LE(entry.get("wait_s")->number + entry.get("poll_s")->number, simulated);
        EXPECT_GT(entry.get("events_written")->number, 0.0);
        bytes_sent += entry.get("bytes_sent")->number;
        wait += entry.get("wait_s")->number;
        poll += entry.get("poll_s")->number;
        compute += entry.get("compute_s")->number;
        calls += entry.get("portals_calls")->number;
    }
    const json::Value *totals = doc->get("totals");
    ASSERT_TRUE(totals && totals->is_object());
    EXPECT_NEAR(totals->get("wait_s")->number, wait, 1e-9);
    EXPECT_EQ(totals->get("portals_calls")->number, calls);

    const std::vector<std::string> kinds = {"PUT", "GET", "ATOMIC", "FETCH_ATOMIC", "ACK", "GET_RESPONSE",
                                            "FETCH_ATOMIC_RESPONSE", "BXI_ACK"};
    double put_messages = 0, put_bytes = 0, messages = 0, wire = 0;
    const auto &nics = doc->get("per_nic")->array;
    ASSERT_EQ(nics.size(), 2u);
    for (const auto &nic : nics) {
        const json::Value *by_kind = nic.get("by_kind");
        ASSERT_TRUE(by_kind && by_kind->is_object());
        double nic_messages = 0;
        for (const auto &kind : kinds) {
            const json::Value *traffic = by_kind->get(kind);
            ASSERT_TRUE(traffic && traffic->get("messages") && traffic->get("payload_bytes") &&
                        traffic->get("wire_bytes"))
                << "no counts for " << kind;
            nic_messages += traffic->get("messages")->number;
            if (traffic->get("messages")->number > 0) {
                EXPECT_GT(traffic->get("wire_bytes")->number, traffic->get("payload_bytes")->number)
                    << kind << ": every message has a header";
            }
        }
        for (const char *none : {"GET", "ATOMIC", "FETCH_ATOMIC", "GET_RESPONSE", "FETCH_ATOMIC_RESPONSE"})
            EXPECT_EQ(by_kind->get(none)->get("messages")->number, 0.0) << "pingpong only Puts, not " << none;
        EXPECT_EQ(nic.get("messages")->number, nic_messages);
        put_messages += by_kind->get("PUT")->get("messages")->number;
        put_bytes += by_kind->get("PUT")->get("payload_bytes")->number;
        messages += nic_messages;
        wire += nic.get("wire_bytes")->number;

        const json::Value *pcie = nic.get("pcie");
        ASSERT_TRUE(pcie && pcie->is_object());
        const double bandwidth = pcie->get("bandwidth_Bps")->number;
        const double to_nic = pcie->get("to_nic_bytes")->number;
        const double to_host = pcie->get("to_host_bytes")->number;
        // Commands (64 B each) at least; received payloads and events.
        EXPECT_GE(to_nic, 64 * by_kind->get("PUT")->get("messages")->number);
        EXPECT_GT(to_host, 0.0);
        EXPECT_NEAR(pcie->get("to_nic_utilisation")->number, to_nic / (simulated * bandwidth), 1e-9);
        EXPECT_NEAR(pcie->get("to_host_utilisation")->number, to_host / (simulated * bandwidth), 1e-9);
        EXPECT_LT(pcie->get("to_host_utilisation")->number, 1.0);

        // End-to-end reliability: nothing lost, nothing sent twice.
        const json::Value *e2e = nic.get("e2e");
        ASSERT_TRUE(e2e && e2e->is_object());
        for (const char *key : {"bxi_acks", "retransmissions", "messages_lost", "duplicates_received",
                                "messages_given_up", "operations_failed"})
            ASSERT_TRUE(e2e->get(key) && e2e->get(key)->is_number()) << "e2e without \"" << key << "\"";
        EXPECT_EQ(e2e->get("bxi_acks")->number, by_kind->get("BXI_ACK")->get("messages")->number);
        EXPECT_EQ(e2e->get("retransmissions")->number, 0.0);
        EXPECT_EQ(e2e->get("messages_lost")->number, 0.0);
    }
    // 8 B to 1 KiB: 8 sizes, 3 timed and 2 warm-up messages each way.
    EXPECT_GE(put_messages, 8 * 5 * 2);
    EXPECT_EQ(put_bytes, bytes_sent) << "every byte the ranks sent went in a PUT";
    EXPECT_EQ(totals->get("messages")->number, messages);

    // Summary: the lines a user wants first, then the last line as before.
    auto ls = lines(r.err);
    ASSERT_GE(ls.size(), 3u) << describe(r);
    const std::string &times = ls[ls.size() - 3];
    const std::string &traffic = ls[ls.size() - 2];
    double c = -1, w = -1, p = -1;
    ASSERT_EQ(std::sscanf(times.c_str(), "s4bxi-run: compute %lf s, waiting %lf s, polling %lf s (all ranks)", &c,
                          &w, &p),
              3)
        << describe(r);
    EXPECT_EQ(c, compute);
    EXPECT_NEAR(w, wait, 1e-6 * wait);
    EXPECT_EQ(p, poll);
    long long m = -1, b = -1, retransmissions = -1;
    ASSERT_EQ(std::sscanf(traffic.c_str(), "s4bxi-run: %lld messages, %lld bytes on the wire, %lld retransmissions",
                          &m, &b, &retransmissions),
              3)
        << describe(r);
    EXPECT_EQ(retransmissions, 0);
    EXPECT_EQ(totals->get("retransmissions")->number, 0.0);
    EXPECT_EQ(double(m), messages);
    EXPECT_EQ(double(b), wire);
}

// A program that makes no Portals call gets the last line only.
TEST_F(Examples, NoTrafficSummaryWithoutPortalsCalls)
{
    auto r = run({"-n", "1", program("time_sleep")});
    expect_success(r, 1);
    EXPECT_FALSE(contains(r.err, "bytes on the wire")) << describe(r);
    EXPECT_FALSE(contains(r.err, "(all ranks)")) << describe(r);
}

// Where the wall time of a run went (docs/figures.md): the real time the
// server waited for the rank processes' calls, and the answers that had to
// wake a sleeping process. With more ranks than cores, a rank that waits in
// the simulation sleeps, so most answers wake one up.
TEST_F(Examples, ReportSaysHowLongTheServerWaitedForRanks)
{
    const unsigned ranks = 8;
    const Reported job =
        run_reporting(ranks, {"--cfg=s4bxi/compute:none", std::string(E2E_BINARY_DIR) + "/bench/put_ring", "50", "8"});
    ASSERT_TRUE(job.doc.has_value());
    const json::Value *doc = &*job.doc;
    const json::Value *waiting = doc->get("server_waiting");
    ASSERT_TRUE(waiting && waiting->is_object()) << job.text;
    for (const char *key : {"for_ranks_s", "answers", "wake_ups", "relayed", "relayed_missed"})
        ASSERT_TRUE(waiting->get(key) && waiting->get(key)->is_number()) << "server_waiting without " << key;
    const double waited = waiting->get("for_ranks_s")->number;
    const double answers = waiting->get("answers")->number;
    const double wake_ups = waiting->get("wake_ups")->number;
    EXPECT_GT(waited, 0.0);
    EXPECT_LT(waited, doc->get("wall_time_s")->number);
    // Every Portals call the process did not answer itself is answered, and
    // so are the hello and exit calls.
    const double calls = doc->get("totals")->get("portals_calls")->number;
    const double in_process = doc->get("totals")->get("answered_in_process")->number;
    EXPECT_GE(answers, calls - in_process + 2 * ranks);
    EXPECT_LE(wake_ups, answers);
    // Some wakes the warm rank makes (ipc/wake_relay.hpp); of those, the
    // server makes again the ones whose answer was not taken in time.
    const double relayed = waiting->get("relayed")->number;
    EXPECT_LE(relayed, wake_ups);
    EXPECT_LE(waiting->get("relayed_missed")->number, relayed);
    // 50 rounds of a Put and two waits per rank: when ranks outnumber cores,
    // each wait that blocks ends by waking its rank up.
    if (ranks > std::thread::hardware_concurrency()) {
        EXPECT_GT(wake_ups, 50.0 * ranks) << "answers " << answers;
    }
}

// Of the server's wait, how long the processes ran between an answer and
// their next call (ipc::ProcessRuns): one run before each call but a rank's
// first (its hello), and a rank's runs never overlap, so that they take less
// than the whole run each.
TEST_F(Examples, ReportSaysHowLongTheRanksRanBetweenAnAnswerAndTheirNextCall)
{
    const unsigned ranks = 2;
    const Reported job = run_reporting(
        ranks, {"--cfg=s4bxi/compute:none", std::string(E2E_BINARY_DIR) + "/bench/put_pingpong", "100", "8"});
    ASSERT_TRUE(job.doc.has_value());
    const json::Value *waiting = job.doc->get("server_waiting");
    ASSERT_TRUE(waiting && waiting->get("ranks_ran") && waiting->get("ranks_ran_s")) << job.text;
    EXPECT_EQ(waiting->get("ranks_ran")->number, waiting->get("answers")->number - ranks) << job.text;
    const double ran = waiting->get("ranks_ran_s")->number;
    EXPECT_GT(ran, 0.0);
    EXPECT_LT(ran, ranks * job.doc->get("wall_time_s")->number) << job.text;
}

// The server waits for one process at a time: what it waited cannot exceed
// the run's wall time, even where the proxies of many ranks wait at once for
// processes that sleep in the kernel (start-up at 64 ranks: it read 1.5 s of
// waiting in a 0.1 s run when every proxy counted its parked time).
TEST_F(Examples, ServerWaitingNeverExceedsTheWallTime)
{
    const Reported job = run_reporting(64, {"--platform", "fattree:2;8,8;1,8;1,1", "--cfg=s4bxi/compute:none",
                                            std::string(E2E_BINARY_DIR) + "/bench/put_ring", "0"});
    ASSERT_TRUE(job.doc.has_value());
    const double waited = job.doc->get("server_waiting")->get("for_ranks_s")->number;
    EXPECT_GT(waited, 0.0);
    EXPECT_LT(waited, job.doc->get("wall_time_s")->number) << job.text;
}

// engine_rounds counts SimGrid's scheduling rounds: with compute off a run is
// deterministic, so every round trip of a ping-pong adds the same number.
TEST_F(Examples, ReportCountsTheEngineRoundsOfTheSimulation)
{
    TempDir dir;
    std::vector<double> rounds;
    for (const char *iterations : {"100", "200", "300"}) {
        const std::string report = dir.file(std::string("run") + iterations + ".json");
        auto r = run({"-n", "2", "--cfg=s4bxi/compute:none", "--report", report,
                      std::string(E2E_BINARY_DIR) + "/bench/put_pingpong", iterations, "8"});
        expect_success(r, 2);
        std::string error;
        auto doc = json::parse(read_file(report), &error);
        ASSERT_TRUE(doc.has_value()) << error << "\n" << describe(r);
        const json::Value *count = doc->get("engine_rounds");
        ASSERT_TRUE(count && count->is_number()) << read_file(report);
        rounds.push_back(count->number);
    }
    const double per_100 = rounds[1] - rounds[0];
    EXPECT_EQ(rounds[2] - rounds[1], per_100);
    // A Put with its ACK has several model events (PCIe command, TX, wire,
    // RX, events landing, BXI ACK): more than a few rounds, far from thousands.
    EXPECT_GT(per_100, 200 * 4.0);
    EXPECT_LT(per_100, 200 * 100.0);
}

} // namespace
} // namespace e2e
