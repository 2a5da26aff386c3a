// s4bxi-run --trace DIR (docs/trace-format.md): events.csv has the documented
// columns and kinds and agrees with the report, trace.json is valid Chrome
// trace-event JSON with one track per rank and per NIC engine, and tracing
// changes nothing in the simulation.
#include "e2e_test.hpp"
#include "json_lite.hpp"
#include "trace_rows.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace e2e {
namespace {

std::map<std::string, int> count_kinds(const std::vector<Row> &rows)
{
    std::map<std::string, int> counts;
    for (const auto &row : rows)
        counts[row.kind]++;
    return counts;
}

class Trace : public E2ETest {
protected:
    // Runs with --trace into a fresh directory (and a report); expects success.
    RunResult traced_run(const TempDir &dir, std::vector<std::string> args, int nranks)
    {
        args.insert(args.begin(), {"--trace", dir.file("trace"), "--report", dir.file("report.json")});
        auto r = run(args);
        expect_success(r, nranks);
        return r;
    }
};

// The ping-pong example: the message, engine, PCIe and rank kinds are all
// there, with the documented columns, and agree with the report.
TEST_F(Trace, PingPongCsvHasTheDocumentedColumnsAndKinds)
{
    TempDir dir;
    // 8 B to 1 KiB: inline, PIO and DMA-read payloads.
    auto r = traced_run(dir, {"-n", "2", example("pingpong"), "-m", "1024", "-i", "3"}, 2);
    auto rows = read_csv(dir.file("trace/events.csv"));
    ASSERT_FALSE(rows.empty()) << describe(r);
    auto counts = count_kinds(rows);
    for (const char *kind : {"PUT", "BXI_ACK", "TX", "RX", "E2E", "PCI_COMMAND", "PCI_PIO", "PCI_DMA_READ",
                             "PCI_DMA_WRITE", "PCI_EVENT", "CALL", "WAIT"})
        EXPECT_GT(counts[kind], 0) << "no " << kind << " row";
    // Every message arrived is handled by an RX engine, and was sent by a TX
    // engine (a last BXI ACK may still be on its way when the ranks are done).
    int messages = 0;
    for (const auto &kind : kMessageKinds)
        messages += counts[kind];
    EXPECT_EQ(counts["RX"], messages);
    EXPECT_GE(counts["TX"], messages);
    EXPECT_LE(counts["TX"], messages + 2);
    // E2E keeps every message but BXI ACKs until it is acknowledged.
    EXPECT_LE(counts["E2E"], messages - counts["BXI_ACK"]);
    EXPECT_GE(counts["E2E"], messages - counts["BXI_ACK"] - 2);

    auto summary = parse_summary(r.err);
    ASSERT_TRUE(summary);
    std::set<int> calling_ranks;
    for (const auto &row : rows) {
        EXPECT_LE(row.start, summary->simulated_s + 1e-9) << row.kind << " " << row.detail;
        EXPECT_LT(row.node, 2);
        if (kMessageKinds.count(row.kind)) {
            // Between the two nodes, on the VN of its kind, with its wire size.
            EXPECT_EQ(row.vn, row.kind == "PUT" ? 0 : 1) << row.kind;
            EXPECT_EQ(row.actor, "wire" + std::to_string(row.vn));
            EXPECT_TRUE(contains(row.detail, "dst=" + std::to_string(1 - row.node))) << row.detail;
            EXPECT_TRUE(contains(row.detail, "wire_bytes=")) << row.detail;
            EXPECT_GT(row.end, row.start) << "a message takes time on the wire";
        }
        if (row.kind == "CALL" || row.kind == "WAIT") {
            ASSERT_GE(row.rank, 0) << row.kind << " without a rank";
            EXPECT_EQ(row.actor, "rank" + std::to_string(row.rank));
            EXPECT_EQ(row.node, row.rank) << "round-robin placement: rank r on node r";
            calling_ranks.insert(row.rank);
        }
        if (row.kind == "PUT") {
            EXPECT_LE(row.bytes, 1024u);
        }
        if (row.kind == "E2E") {
            EXPECT_TRUE(contains(row.detail, "acknowledged")) << "nothing is lost: " << row.detail;
            EXPECT_EQ(row.actor, "e2e");
        }
        if (row.kind == "PCI_DMA_READ") {
            EXPECT_GT(row.bytes, 408u) << "payloads up to the PIO limit are not read by DMA";
        }
    }
    EXPECT_EQ(calling_ranks, (std::set<int>{0, 1}));
    int puts = 0, waits = 0;
    for (const auto &row : rows) {
        puts += row.kind == "CALL" && row.detail == "PtlPut";
        waits += row.kind == "WAIT" && row.detail == "PtlEQWait";
    }
    EXPECT_EQ(puts, counts["PUT"]) << "one PUT message per PtlPut";
    EXPECT_GT(waits, 0);

    // The report counts the same messages by kind.
    auto report = read_json(dir.file("report.json"));
    ASSERT_TRUE(report);
    const json::Value *nics = report->get("per_nic");
    ASSERT_TRUE(nics && nics->is_array());
    std::map<std::string, double> reported;
    for (const auto &nic : nics->array) {
        const json::Value *by_kind = nic.get("by_kind");
        ASSERT_TRUE(by_kind && by_kind->is_object());
        for (const auto &[kind, traffic] : by_kind->object)
            reported[kind] += traffic.get("messages")->number;
    }
    double reported_total = 0;
    for (const auto &kind : kMessageKinds) {
        EXPECT_GE(reported[kind], counts[kind]) << kind << ": sent (report) and arrived (trace)";
        reported_total += reported[kind];
    }
    EXPECT_EQ(reported_total, counts["TX"]) << "the report counts what TX engines sent";
}

// Gets and atomics have their own message kinds.
TEST_F(Trace, GetsAndAtomicsHaveTheirKinds)
{
    TempDir dir;
    traced_run(dir, {"-n", "2", program("put_get_integrity")}, 2);
    auto counts = count_kinds(read_csv(dir.file("trace/events.csv")));
    EXPECT_GT(counts["GET"], 0);
    EXPECT_EQ(counts["GET_RESPONSE"], counts["GET"]);
    EXPECT_EQ(counts["ATOMIC"], 0);

    TempDir atomics;
    traced_run(atomics, {"-n", "2", program("atomics")}, 2);
    counts = count_kinds(read_csv(atomics.file("trace/events.csv")));
    EXPECT_GT(counts["ATOMIC"], 0);
    EXPECT_GT(counts["FETCH_ATOMIC"], 0);
    EXPECT_EQ(counts["FETCH_ATOMIC_RESPONSE"], counts["FETCH_ATOMIC"]);
}

// Compute and polling appear as such.
TEST_F(Trace, ComputeAndPollsAreRecorded)
{
    TempDir dir;
    traced_run(dir, {"-n", "1", program("busy_compute"), "0.05"}, 1);
    auto rows = read_csv(dir.file("trace/events.csv"));
    double compute = 0;
    for (const auto &row : rows)
        if (row.kind == "COMPUTE") {
            EXPECT_EQ(row.rank, 0);
            compute += row.end - row.start;
        }
    EXPECT_GT(compute, 0.02) << "about 0.05 s of compute should be injected";

    TempDir polls;
    traced_run(polls, {"-n", "2", program("poll_loop")}, 2);
    double polling = 0;
    for (const auto &row : read_csv(polls.file("trace/events.csv")))
        if (row.kind == "POLL") {
            EXPECT_EQ(row.rank, 0) << "only rank 0 polls";
            polling += row.end - row.start;
        }
    EXPECT_GT(polling, 1.0) << "rank 0 polls for about 2 simulated seconds";
    auto report = read_json(polls.file("report.json"));
    ASSERT_TRUE(report);
    const json::Value &rank0 = report->get("per_rank")->array.at(0);
    EXPECT_NEAR(rank0.get("poll_s")->number, polling, 1e-6 * polling);
}

// trace.json: valid JSON in Chrome's format, one track per rank and per NIC
// engine, named; slices on a track nest or follow each other.
TEST_F(Trace, JsonHasOneTrackPerRankAndPerNicEngine)
{
    TempDir dir;
    traced_run(dir, {"-n", "2", example("pingpong"), "-m", "1024", "-i", "3"}, 2);
    auto doc = read_json(dir.file("trace/trace.json"));
    ASSERT_TRUE(doc && doc->is_object());
    const json::Value *events = doc->get("traceEvents");
    ASSERT_TRUE(events && events->is_array());

    std::map<std::pair<int, int>, std::string> thread_names;
    std::map<int, std::string> process_names;
    struct Slice {
        double ts, dur;
        std::string name;
    };
    std::map<std::pair<int, int>, std::vector<Slice>> tracks;
    size_t complete = 0;
    for (const auto &event : events->array) {
        ASSERT_TRUE(event.is_object());
        const json::Value *ph = event.get("ph");
        const json::Value *pid = event.get("pid");
        ASSERT_TRUE(ph && pid && pid->is_number());
        if (ph->string == "M") {
            const json::Value *args = event.get("args");
            ASSERT_TRUE(args);
            if (event.get("name")->string == "thread_name")
                thread_names[{int(pid->number), int(event.get("tid")->number)}] = args->get("name")->string;
            if (event.get("name")->string == "process_name")
                process_names[int(pid->number)] = args->get("name")->string;
            continue;
        }
        ASSERT_EQ(ph->string, "X") << "only complete events and metadata";
        const json::Value *tid = event.get("tid");
        const json::Value *ts = event.get("ts");
        const json::Value *dur = event.get("dur");
        ASSERT_TRUE(tid && ts && dur && ts->is_number() && dur->is_number());
        ASSERT_TRUE(event.get("name") && event.get("args") && event.get("args")->get("kind"));
        EXPECT_GE(dur->number, 0.0);
        tracks[{int(pid->number), int(tid->number)}].push_back({ts->number, dur->number, event.get("name")->string});
        complete++;
    }
    auto rows = read_csv(dir.file("trace/events.csv"));
    EXPECT_EQ(complete, rows.size()) << "one complete event per CSV row";

    EXPECT_EQ(process_names.size(), 2u);
    std::set<std::string> names;
    for (const auto &[track, slices] : tracks) {
        ASSERT_TRUE(thread_names.count(track)) << "a track without a thread_name";
        names.insert(std::to_string(track.first) + ":" + thread_names[track]);
        // Sorted by start, longest first: each slice ends before the next
        // one starts, or contains it.
        auto sorted = slices;
        std::sort(sorted.begin(), sorted.end(),
                  [](const Slice &a, const Slice &b) { return a.ts < b.ts || (a.ts == b.ts && a.dur > b.dur); });
        std::vector<double> open_ends;
        for (const auto &slice : sorted) {
            while (!open_ends.empty() && open_ends.back() <= slice.ts + 1e-9)
                open_ends.pop_back();
            if (!open_ends.empty()) {
                EXPECT_LE(slice.ts + slice.dur, open_ends.back() + 1e-9)
                    << "slice " << slice.name << " at " << slice.ts << " overlaps another on " << thread_names[track];
            }
            open_ends.push_back(slice.ts + slice.dur);
        }
    }
    // pid = node + 1; rank r on node r.
    for (const char *expected : {"1:rank 0", "2:rank 1", "1:TX vn0", "1:RX vn0", "1:TX vn1", "1:RX vn1", "2:TX vn0",
                                 "2:RX vn0", "2:TX vn1", "2:RX vn1", "1:E2E", "2:E2E", "1:wire out vn0", "1:PCIe",
                                 "2:PCIe"})
        EXPECT_TRUE(names.count(expected)) << "no track " << expected;
}

// Injected losses: the lost messages, the timeouts and the retransmissions
// are in the trace, as many as the report counts.
TEST_F(Trace, LossesAndRetransmissionsAreRecorded)
{
    TempDir dir;
    traced_run(dir,
               {"-n", "2", "--cfg=s4bxi/compute:none", "--cfg=s4bxi/fault-loss-rate:0.1",
                "--cfg=s4bxi/fault-nodes:node1", "--cfg=s4bxi/fault-seed:3", "--cfg=s4bxi/e2e-retry-timeout:1e-5", "--cfg=s4bxi/e2e-max-retries:20",
                program("reliability"), "atomics", "100"},
               2);
    auto rows = read_csv(dir.file("trace/events.csv"));
    int lost = 0, resent = 0, timed_out = 0, retries_on_wire = 0;
    for (const auto &row : rows) {
        if (kMessageKinds.count(row.kind) && contains(row.detail, "lost")) {
            lost++;
            EXPECT_EQ(row.start, row.end) << "dropped at once: " << row.detail;
        }
        if (kMessageKinds.count(row.kind) && contains(row.detail, "retry="))
            retries_on_wire++;
        if (row.kind == "TX" && contains(row.detail, "retry="))
            resent++;
        if (row.kind == "E2E" && contains(row.detail, "timed out")) {
            timed_out++;
            EXPECT_NEAR(row.end - row.start, 1e-5, 1e-9) << "after the retry timeout";
        }
    }
    auto report = read_json(dir.file("report.json"));
    ASSERT_TRUE(report);
    const json::Value *totals = report->get("totals");
    ASSERT_TRUE(totals);
    EXPECT_GT(totals->get("messages_lost")->number, 0.0) << "10% loss over about 300 messages";
    EXPECT_EQ(lost, totals->get("messages_lost")->number);
    EXPECT_EQ(timed_out, totals->get("retransmissions")->number) << "one timeout per retransmission";
    // A retransmission acknowledged while it waited for its TX engine is not
    // sent; one may still be on its way when the run ends.
    EXPECT_GT(resent, 0);
    EXPECT_LE(resent, timed_out);
    EXPECT_LE(retries_on_wire, resent) << "retransmissions on the wire (received or lost) were sent";
    EXPECT_GE(retries_on_wire, resent - 2);

    // Everything lost: E2E gives up on each message after its retries.
    TempDir undeliverable;
    traced_run(undeliverable,
               {"-n", "2", "--cfg=s4bxi/fault-loss-rate:1", "--cfg=s4bxi/fault-nodes:node1",
                "--cfg=s4bxi/e2e-retry-timeout:1e-5", "--cfg=s4bxi/e2e-max-retries:1", program("reliability"),
                "undeliverable"},
               2);
    int given_up = 0;
    for (const auto &row : read_csv(undeliverable.file("trace/events.csv")))
        if (row.kind == "E2E" && contains(row.detail, "given up")) {
            given_up++;
            EXPECT_TRUE(contains(row.detail, "retry=1")) << row.detail;
        }
    report = read_json(undeliverable.file("report.json"));
    ASSERT_TRUE(report);
    EXPECT_GT(given_up, 0);
    EXPECT_EQ(given_up, report->get("per_nic")->array.at(0).get("e2e")->get("messages_given_up")->number);
}

// Tracing records only: same output and exactly the same simulated time.
TEST_F(Trace, TracingChangesNoSimulatedResult)
{
    TempDir dir;
    const std::vector<std::string> tail{"--cfg=s4bxi/compute:none", example("pingpong"), "-m", "65536", "-i", "5"};
    std::vector<std::string> plain{"-n", "2"};
    plain.insert(plain.end(), tail.begin(), tail.end());
    std::vector<std::string> traced{"-n", "2", "--trace", dir.file("t")};
    traced.insert(traced.end(), tail.begin(), tail.end());
    auto a = run(plain);
    auto b = run(traced);
    expect_success(a, 2);
    expect_success(b, 2);
    EXPECT_FALSE(a.out.empty());
    EXPECT_EQ(a.out, b.out);
    auto sa = parse_summary(a.err), sb = parse_summary(b.err);
    ASSERT_TRUE(sa && sb);
    EXPECT_EQ(sa->simulated_s, sb->simulated_s);
    // The summary lines before the last one say the same too.
    auto la = lines(a.err), lb = lines(b.err);
    ASSERT_EQ(la.size(), lb.size());
    for (size_t i = 0; i + 1 < la.size(); ++i)
        EXPECT_EQ(la[i], lb[i]);
    EXPECT_GT(read_csv(dir.file("t/events.csv")).size(), 100u);
}

// A run that ends in a deadlock still leaves complete files, with the calls
// the ranks are stuck in.
TEST_F(Trace, DeadlockStillClosesTheTrace)
{
    TempDir dir;
    auto r = run({"-n", "2", "--trace", dir.file("t"), program("deadlock")});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    auto rows = read_csv(dir.file("t/events.csv"));
    auto summary = parse_summary(r.err);
    ASSERT_TRUE(summary);
    std::set<int> stuck;
    for (const auto &row : rows)
        if (row.kind == "CALL" && row.detail == "PtlEQWait" && std::abs(row.end - summary->simulated_s) < 1e-8)
            stuck.insert(row.rank);
    EXPECT_EQ(stuck, (std::set<int>{0, 1})) << "both ranks end in PtlEQWait";
    EXPECT_TRUE(read_json(dir.file("t/trace.json")));
}

TEST_F(Trace, UnwritableDirectoryIsAUsageError)
{
    TempDir dir;
    write_file(dir.file("plain-file"), "not a directory\n");
    auto r = run({"-n", "2", "--trace", dir.file("plain-file/trace"), program("rank_env")});
    expect_usage_error(r, "trace");
}

} // namespace
} // namespace e2e
