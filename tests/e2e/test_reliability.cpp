// The NIC's end-to-end reliability under injected faults, and the NIC options
// that go with it (quick ACKs, max-memcpy, several engines per virtual
// network, per-node overrides). The E2E counters come from the per-NIC
// summary that s4bxi_e2e logs at the end of a run (verbose level).
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>

namespace e2e {
namespace {

struct E2eCounters {
    long bxi_acks = 0, retransmissions = 0, lost = 0, duplicates = 0, given_up = 0, failed = 0;
    int nics = 0;
};

// Sum over the NICs of the end-of-run summary lines.
E2eCounters counters(const RunResult &r)
{
    static const std::regex line(
        R"(node (\d+): (\d+) BXI ACKs sent, (\d+) retransmissions, (\d+) messages lost, (\d+) duplicates received, )"
        R"((\d+) messages given up, (\d+) operations failed)");
    E2eCounters c;
    for (const auto &l : lines(r.err)) {
        std::smatch m;
        if (!std::regex_search(l, m, line))
            continue;
        c.nics++;
        c.bxi_acks += std::stol(m[2]);
        c.retransmissions += std::stol(m[3]);
        c.lost += std::stol(m[4]);
        c.duplicates += std::stol(m[5]);
        c.given_up += std::stol(m[6]);
        c.failed += std::stol(m[7]);
    }
    return c;
}

// The same, from the per-NIC "e2e" objects of the run report.
E2eCounters report_counters(const std::string &path)
{
    E2eCounters c;
    std::string error;
    auto doc = json::parse(read_file(path), &error);
    const json::Value *nics = doc ? doc->get("per_nic") : nullptr;
    if (!nics || !nics->is_array())
        return c;
    for (const auto &nic : nics->array) {
        const json::Value *e2e = nic.get("e2e");
        if (!e2e || !e2e->is_object())
            continue;
        auto field = [e2e](const char *name) {
            const json::Value *v = e2e->get(name);
            return v && v->is_number() ? static_cast<long>(v->number) : -1000000;
        };
        c.nics++;
        c.bxi_acks += field("bxi_acks");
        c.retransmissions += field("retransmissions");
        c.lost += field("messages_lost");
        c.duplicates += field("duplicates_received");
        c.given_up += field("messages_given_up");
        c.failed += field("operations_failed");
    }
    return c;
}

const char *kE2eLog = "--log=s4bxi_e2e.thres:verbose";

std::string cfg(const std::string &name, double value)
{
    std::ostringstream text;
    text.precision(17);
    text << "--cfg=s4bxi/" << name << ":" << value;
    return text.str();
}

std::string two_nodes_xml()
{
    return read_file(std::string(E2E_BINARY_DIR) + "/share/s4bxi/platforms/two-nodes.xml");
}

// The two-node platform with `props` inside node1_NIC's host element.
std::string two_nodes_with_node1_props(const std::string &props)
{
    std::string xml = two_nodes_xml();
    const std::string host = R"(<host id="node1_NIC" speed="1Gf"/>)";
    const auto at = xml.find(host);
    if (at == std::string::npos)
        return "";
    return xml.replace(at, host.size(), R"(<host id="node1_NIC" speed="1Gf">)" + props + "</host>");
}

class Reliability : public E2ETest {
protected:
    RunResult run_program(std::vector<std::string> options, const std::vector<std::string> &program)
    {
        std::vector<std::string> args{"-n", "2", "--cfg=s4bxi/compute:none"};
        args.insert(args.end(), options.begin(), options.end());
        args.insert(args.end(), program.begin(), program.end());
        return run(args);
    }

    // Time per operation (us) that microbench prints for `op` at `size`.
    double measure(std::vector<std::string> options, const std::string &op, int size, RunResult *out = nullptr)
    {
        const std::string bytes = std::to_string(size);
        auto r = run_program(std::move(options), {std::string(E2E_BINARY_DIR) + "/bench/microbench", op, "-i", "20",
                                                  "-s", bytes, "-m", bytes});
        expect_success(r, 2);
        if (out)
            *out = r;
        for (const auto &line : lines(r.out)) {
            char name[32];
            long got_size;
            double us, mbps;
            if (sscanf(line.c_str(), "%31s %ld %lf %lf", name, &got_size, &us, &mbps) == 4 && op == name &&
                got_size == size)
                return us;
        }
        ADD_FAILURE() << "no result line for " << op << " " << size << "\n" << describe(r);
        return -1;
    }

    // The value printed after `key` on the program's standard output.
    static double printed(const RunResult &r, const std::string &key)
    {
        const auto at = r.out.find(key);
        if (at == std::string::npos)
            return -1;
        return std::atof(r.out.c_str() + at + key.size());
    }
};

class LossOnANode : public Reliability, public ::testing::WithParamInterface<double> {};

TEST_P(LossOnANode, RetransmissionsDeliverEveryByte)
{
    const double rate = GetParam();
    TempDir dir;
    const std::string report = dir.file("report.json");
    auto r = run_program({cfg("fault-loss-rate", rate), "--cfg=s4bxi/fault-nodes:node1",
                          "--cfg=s4bxi/fault-seed:7", cfg("e2e-retry-timeout", 1e-3),
                          "--cfg=s4bxi/e2e-max-retries:20", kE2eLog, "--report", report},
                         {program("put_get_integrity")});
    expect_success(r, 2);
    EXPECT_TRUE(contains(r.out, "rank 0: all checks passed")) << describe(r);
    EXPECT_TRUE(contains(r.out, "rank 1: all checks passed")) << describe(r);
    const auto c = counters(r);
    EXPECT_EQ(c.nics, 2) << describe(r);
    EXPECT_GT(c.lost, 0) << describe(r);
    EXPECT_GT(c.retransmissions, 0) << describe(r);
    EXPECT_EQ(c.failed, 0) << describe(r);
    const auto reported = report_counters(report);
    EXPECT_EQ(reported.nics, 2) << read_file(report);
    EXPECT_EQ(reported.retransmissions, c.retransmissions) << read_file(report);
    EXPECT_EQ(reported.lost, c.lost) << read_file(report);
    EXPECT_EQ(reported.bxi_acks, c.bxi_acks) << read_file(report);
    EXPECT_LT(r.wall_s, 10.0);
}

INSTANTIATE_TEST_SUITE_P(Rates, LossOnANode, ::testing::Values(0.1, 0.3));

TEST_F(Reliability, AtomicsUnderLossAreAppliedOnce)
{
    auto r = run_program({"--cfg=s4bxi/fault-loss-rate:0.3", "--cfg=s4bxi/fault-nodes:node1",
                          "--cfg=s4bxi/fault-seed:3", cfg("e2e-retry-timeout", 1e-4),
                          "--cfg=s4bxi/e2e-max-retries:20", kE2eLog},
                         {program("reliability"), "atomics", "300"});
    expect_success(r, 2);
    EXPECT_TRUE(contains(r.out, "counter 300 after 300 additions")) << describe(r);
    const auto c = counters(r);
    // Requests came twice and were not applied twice.
    EXPECT_GT(c.duplicates, 0) << describe(r);
    EXPECT_GT(c.retransmissions, 0) << describe(r);
}

TEST_F(Reliability, OneDroppedResponseIsRecoveredByOneRetransmission)
{
    // The first Get or fetching atomic response is lost. Both ends time out:
    // the initiator sends its request again, which the target recognizes
    // and answers with the response it kept (the value fetched the first
    // time, not a second addition); and the target sends the response again
    // (it left a microsecond after the request, so its deadline comes before
    // the copy is acknowledged), which the initiator recognizes.
    auto r = run_program({"--cfg=s4bxi/fault-drop-at:0/response", cfg("e2e-retry-timeout", 1e-4), kE2eLog},
                         {program("reliability"), "atomics", "5"});
    expect_success(r, 2);
    EXPECT_TRUE(contains(r.out, "counter 5 after 5 additions")) << describe(r);
    const auto c = counters(r);
    EXPECT_EQ(c.lost, 1) << describe(r);
    EXPECT_EQ(c.retransmissions, 2) << describe(r);
    EXPECT_EQ(c.duplicates, 2) << describe(r);
    EXPECT_EQ(c.failed, 0) << describe(r);
}

// PTL_MD_UNRELIABLE (current generation of Sandia's ABI): E2E does not keep
// such a Put. The first Put on the wire, an unreliable one, is dropped: it
// is lost for good (no retransmission, no failure), and its SEND event comes
// all the same; the Puts after it (one unreliable, one reliable) arrive.
TEST_F(Reliability, UnreliablePutIsLostForGood)
{
    auto r = run({"-n", "1", "--cfg=s4bxi/compute:none", "--cfg=s4bxi/fault-drop-at:0/put",
                  cfg("e2e-retry-timeout", 1e-4), kE2eLog, program("generation_options"), "loss"});
    expect_success(r, 1);
    EXPECT_TRUE(contains(r.out, "generation_options: the lost unreliable Put was not sent again")) << describe(r);
    EXPECT_TRUE(contains(r.out, "generation_options: rank 0: all checks passed")) << describe(r);
    const auto c = counters(r);
    EXPECT_EQ(c.lost, 1) << describe(r);
    EXPECT_EQ(c.retransmissions, 0) << describe(r);
    EXPECT_EQ(c.given_up, 0) << describe(r);
    EXPECT_EQ(c.failed, 0) << describe(r);
    // Only the reliable Put (acknowledged by its Portals ACK) and that ACK
    // (by a BXI ACK) are E2E's business.
    EXPECT_EQ(c.bxi_acks, 1) << describe(r);
}

class RetryLimit : public Reliability, public ::testing::WithParamInterface<int> {};

TEST_P(RetryLimit, EverythingLostEndsWithUndeliverableEvents)
{
    const int retries = GetParam();
    const double timeout = 1e-4;
    auto r = run_program({"--cfg=s4bxi/fault-loss-rate:1", "--cfg=s4bxi/fault-nodes:node1", cfg("e2e-retry-timeout", timeout),
                          "--cfg=s4bxi/e2e-max-retries:" + std::to_string(retries), kE2eLog},
                         {program("reliability"), "undeliverable"});
    expect_success(r, 2);
    EXPECT_TRUE(contains(r.out, "SEND ok 2, SEND failed 1, ACK failed 3, REPLY failed 1, counted failures 1"))
        << describe(r);
    const auto c = counters(r);
    EXPECT_EQ(c.failed, 5) << describe(r);
    EXPECT_EQ(c.given_up, 5) << describe(r);
    EXPECT_EQ(c.retransmissions, 5 * retries) << describe(r);
    EXPECT_EQ(c.lost, 5 * (retries + 1)) << describe(r);
    // Each operation fails once its last try timed out.
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s) << describe(r);
    EXPECT_GE(s->simulated_s, (retries + 1) * timeout) << describe(r);
    EXPECT_LT(s->simulated_s, (retries + 1) * timeout + 50e-6) << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Retries, RetryLimit, ::testing::Values(0, 1));

TEST_F(Reliability, WithoutE2eNoBxiAckAndTheSameSmallOperationTimes)
{
    for (const char *op : {"put-waitack", "put-waitsend", "get-waitreply"}) {
        RunResult on, off;
        TempDir dir;
        const std::string report = dir.file("report.json");
        const double with_e2e = measure({kE2eLog}, op, 8, &on);
        const double without = measure({"--cfg=s4bxi/e2e:off", kE2eLog, "--report", report}, op, 8, &off);
        EXPECT_EQ(report_counters(report).nics, 2) << read_file(report);
        EXPECT_EQ(report_counters(report).bxi_acks, 0) << read_file(report);
        // Equal to the printed precision (0.1 ns).
        EXPECT_NEAR(with_e2e, without, 1e-4) << op << ": the BXI ACK is on the critical path";
        EXPECT_GT(counters(on).bxi_acks, 0) << op << "\n" << describe(on);
        EXPECT_EQ(counters(off).nics, 2) << describe(off);
        EXPECT_EQ(counters(off).bxi_acks, 0) << op << "\n" << describe(off);
    }
}

TEST_F(Reliability, S4bxiE2eOffVariableTurnsItOff)
{
    // S4BXI's variable is negated: S4BXI_E2E_OFF=1 means no E2E.
    auto r = run_command({"/usr/bin/env", "S4BXI_E2E_OFF=1", launcher(), "-n", "2", "--cfg=s4bxi/compute:none", kE2eLog,
                          std::string(E2E_BINARY_DIR) + "/bench/microbench", "put-waitack", "-i", "5", "-s", "8",
                          "-m", "8", marker_});
    expect_success(r, 2);
    EXPECT_EQ(counters(r).nics, 2) << describe(r);
    EXPECT_EQ(counters(r).bxi_acks, 0) << describe(r);
}

TEST_F(Reliability, LinkDownDelaysCompletionByTheRetransmissionTimeout)
{
    TempDir dir;
    const std::string xml = dir.file("two-nodes.xml");
    write_file(xml, two_nodes_xml());
    const double timeout = 500e-6, start = 200e-6, tx_delay = 10e-9;
    // The program's start time is a simulated date: its CLOCK_MONOTONIC must
    // read simulated time itself (no uptime at time 0).
    const std::string no_uptime = "--cfg=s4bxi/uptime:0";
    auto base = run_program({"--platform", xml, cfg("e2e-retry-timeout", timeout), no_uptime, kE2eLog},
                            {program("reliability"), "linkdown", "2e-4"});
    expect_success(base, 2);
    // node1's wire is off from just before the Put to well before its
    // retransmission.
    auto down = run_program({"--platform", xml, cfg("e2e-retry-timeout", timeout), no_uptime,
                             "--cfg=s4bxi/link-down:node1_wire@" + std::to_string(start - 10e-6) + "+1e-4", kE2eLog},
                            {program("reliability"), "linkdown", "2e-4"});
    expect_success(down, 2);
    const double t_base = printed(base, "put-ack "), t_down = printed(down, "put-ack ");
    ASSERT_GT(t_base, 0) << describe(base);
    ASSERT_GT(t_down, 0) << describe(down);
    // Lost when it starts, sent again at the deadline: the TX engine's delay once more.
    EXPECT_NEAR(t_down - t_base, timeout + tx_delay, 1e-9) << describe(down);
    const auto c = counters(down);
    EXPECT_EQ(c.lost, 1) << describe(down);
    EXPECT_EQ(c.retransmissions, 1) << describe(down);
    EXPECT_EQ(counters(base).retransmissions, 0) << describe(base);
    // An outage after the last rank ended does not make the run longer.
    auto later = run_program({"--platform", xml, "--cfg=s4bxi/link-down:node1_wire@5+1"}, {program("rank_env")});
    expect_success(later, 2);
    auto s = parse_summary(later.err);
    ASSERT_TRUE(s) << describe(later);
    EXPECT_LT(s->simulated_s, 1e-3) << describe(later);
}

// A link that the platform file's state profile turns off while messages
// are on their way: they are lost, and E2E sends them again, whether they
// crossed the wire as host-to-host communications or through mailboxes
// (s4bxi/wire-mailboxes-beyond 0: every message until the link goes off, since
// no message goes through a mailbox while links may fail). The same trace.
TEST_F(Reliability, AStateProfileLosesTheMessagesOnTheirWayWhateverTheirCommunication)
{
    TempDir dir;
    std::string xml = two_nodes_xml();
    // node1's wire shared both ways (a split-duplex one cannot take a state
    // profile: SplitDuplexLinkWithAStateProfileIsAUsageError), off from 30
    // to 60 us (the profile's path is relative to the platform file's).
    const std::vector<std::pair<std::string, std::string>> edits = {
        {R"(<link id="node1_wire" bandwidth="12.5GBps" latency="500ns" sharing_policy="SPLITDUPLEX"/>)",
         R"(<link id="node1_wire" bandwidth="12.5GBps" latency="500ns" state_file="node1_wire.state"/>)"},
        {R"(<link_ctn id="node1_wire" direction="DOWN"/>)", R"(<link_ctn id="node1_wire"/>)"},
        {R"(<link_ctn id="node1_wire" direction="UP"/>)", R"(<link_ctn id="node1_wire"/>)"}};
    for (const auto &[from, to] : edits) {
        const auto at = xml.find(from);
        ASSERT_NE(at, std::string::npos) << "two-nodes.xml changed: " << from;
        xml.replace(at, from.size(), to);
    }
    write_file(dir.file("shared-wire.xml"), xml);
    write_file(dir.file("node1_wire.state"), "0.00003 0\n0.00006 1\n");
    auto run_with = [&](const std::string &beyond) {
        return run_traced({"-n", "2", "--platform", dir.file("shared-wire.xml"), "--cfg=s4bxi/compute:none",
                           "--cfg=s4bxi/wire-mailboxes-beyond:" + beyond, kE2eLog},
                          {std::string(E2E_BINARY_DIR) + "/bench/put_ring", "100", "8"});
    };
    const TracedRun through_mailboxes = run_with("0");
    const TracedRun host_to_host = run_with("-1");
    expect_same_simulated_end(through_mailboxes.result, host_to_host.result);
    const auto c = counters(through_mailboxes.result);
    EXPECT_GE(c.lost, 1) << describe(through_mailboxes.result);
    EXPECT_GE(c.retransmissions, c.lost) << describe(through_mailboxes.result);
    ASSERT_TRUE(through_mailboxes.report.has_value() && host_to_host.report.has_value());
    EXPECT_GT(through_mailboxes.report->get("wire_through_mailboxes")->number, 0);
    EXPECT_EQ(sorted_lines(through_mailboxes.events), sorted_lines(host_to_host.events));
}

// SimGrid 3.32 aborts when a split-duplex link's state profile changes its
// state ("Unknown event!"): refused before, in one sentence, whether the
// profile is the link's attribute or a <trace_connect>.
TEST_F(Reliability, SplitDuplexLinkWithAStateProfileIsAUsageError)
{
    TempDir dir;
    const std::string link = R"(<link id="node1_wire" bandwidth="12.5GBps" latency="500ns" sharing_policy="SPLITDUPLEX")";
    for (const std::string &profile :
         {std::string(R"( state_file="off.state"/>)"),
          std::string("/>\n<trace id=\"off\" periodicity=\"1\">0.00003 0\n</trace>\n"
                      "<trace_connect kind=\"STATE\" trace=\"off\" element=\"node1_wire\"/>")}) {
        std::string xml = two_nodes_xml();
        const auto at = xml.find(link + "/>");
        ASSERT_NE(at, std::string::npos) << "two-nodes.xml changed";
        xml.replace(at, link.size() + 2, link + profile);
        write_file(dir.file("profile.xml"), xml);
        write_file(dir.file("off.state"), "0.00003 0\n");
        auto r = run_program({"--platform", dir.file("profile.xml")}, {program("rank_env")});
        expect_usage_error(r, "split-duplex");
    }
}

TEST_F(Reliability, QuickAcksSaveTheAckOnTheWire)
{
    // Non-default values so that no part hides another (as test_model.cpp).
    const double bxi_latency = 700e-9, bxi_bandwidth = 5e9, tx_delay = 40e-9, response_delay = 80e-9;
    const double header = 64;
    const int hops = 2;
    const std::vector<std::string> model{cfg("bxi-latency", bxi_latency), cfg("bxi-bandwidth", bxi_bandwidth),
                                         cfg("nic-tx-delay", tx_delay), cfg("nic-response-delay", response_delay)};
    for (int size : {8, 4096}) {
        auto quick = model;
        quick.push_back("--cfg=s4bxi/quick-acks:yes");
        RunResult quick_run;
        const double normal = measure(model, "put-waitack", size);
        const double fast = measure(quick, "put-waitack", size, &quick_run);
        // The Portals ACK: the target's TX engine, the wire (a header), the
        // initiator's RX engine.
        const double ack = tx_delay + hops * bxi_latency + header / bxi_bandwidth + response_delay;
        EXPECT_NEAR(normal - fast, ack * 1e6, 2e-4) << size << " B"; // microbench prints 0.1 ns
    }
}

TEST_F(Reliability, QuickAcksSendNeitherThePortalsAckNorItsBxiAck)
{
    RunResult normal, quick;
    measure({kE2eLog}, "put-waitack", 8, &normal);
    measure({"--cfg=s4bxi/quick-acks:yes", kE2eLog}, "put-waitack", 8, &quick);
    // Per Put of rank 0: without quick ACKs node1 sends the Portals ACK and
    // node0 its BXI ACK; with them neither (the barrier's own messages remain).
    EXPECT_LT(counters(quick).bxi_acks, counters(normal).bxi_acks - 15) << describe(quick);
}

TEST_F(Reliability, MaxMemcpyLeavesTheBytesBeyondItUntouched)
{
    auto capped = run_program({"--cfg=s4bxi/max-memcpy:100"}, {program("reliability"), "memcpy", "100"});
    expect_success(capped, 2);
    // The same checks fail when every byte is copied...
    auto full = run_program({}, {program("reliability"), "memcpy", "100"});
    EXPECT_NE(full.exit_code, 0) << describe(full);
    // ... and pass when the program expects them all.
    auto all = run_program({}, {program("reliability"), "memcpy", "all"});
    expect_success(all, 2);
}

TEST_F(Reliability, NicHostPropertiesOverrideOptionsForThatNode)
{
    TempDir dir;
    const std::string base = dir.file("base.xml"), slow = dir.file("slow.xml");
    write_file(base, two_nodes_xml());
    const std::string props = R"(<prop id="s4bxi/nic-rx-delay" value="1.2e-6"/>)";
    const std::string overridden = two_nodes_with_node1_props(props);
    ASSERT_FALSE(overridden.empty()) << "two-nodes.xml has no node1_NIC host element as expected";
    write_file(slow, overridden);
    const double t_base = measure({"--platform", base}, "put-waitack", 8);
    const double t_slow = measure({"--platform", slow}, "put-waitack", 8);
    // Rank 0 puts to rank 1: node1's RX engine handles the request once per Put.
    EXPECT_NEAR(t_slow - t_base, (1.2e-6 - 200e-9) * 1e6, 2e-4); // microbench prints 0.1 ns
}

TEST_F(Reliability, BadPerNodePropertiesAreUsageErrors)
{
    TempDir dir;
    const std::string bad_value = dir.file("bad_value.xml"), global_only = dir.file("global_only.xml");
    write_file(bad_value, two_nodes_with_node1_props(R"(<prop id="s4bxi/nic-tx-delay" value="fast"/>)"));
    write_file(global_only, two_nodes_with_node1_props(R"(<prop id="s4bxi/bxi-latency" value="1e-6"/>)"));
    auto r = run({"-n", "2", "--platform", bad_value, program("rank_env")});
    expect_usage_error(r, "node1_NIC");
    EXPECT_TRUE(contains(r.err, "s4bxi/nic-tx-delay")) << describe(r);
    r = run({"-n", "2", "--platform", global_only, program("rank_env")});
    expect_usage_error(r, "s4bxi/bxi-latency");
}

TEST_F(Reliability, FaultOptionsNamingNothingAreUsageErrors)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/fault-nodes:node7", "--cfg=s4bxi/fault-loss-rate:0.1", program("rank_env")});
    expect_usage_error(r, "node7");
    r = run({"-n", "2", "--cfg=s4bxi/link-down:nowhere@0+1", program("rank_env")});
    expect_usage_error(r, "nowhere");
    r = run({"-n", "2", "--cfg=s4bxi/link-down:node0_pci@0+1", program("rank_env")});
    expect_usage_error(r, "PCIe");
    r = run({"-n", "2", "--cfg=s4bxi/fault-drop-at:1e-3/nothing", program("rank_env")});
    expect_usage_error(r, "nothing");
    r = run({"-n", "2", "--cfg=s4bxi/tx-actors:0", program("rank_env")});
    expect_usage_error(r, "s4bxi/tx-actors");
}

TEST_F(Reliability, SeveralRxEnginesKeepEachSourcesOrderAndWorkInParallel)
{
    // Ranks 0 and 1 put to rank 2: with two RX engines, node2 handles the
    // two sources in parallel, each in order.
    auto run3 = [this](int engines) {
        auto r = run({"-n", "3", "--platform", "fattree:1;3;1;1", "--cfg=s4bxi/compute:none",
                      "--cfg=s4bxi/nic-rx-delay:2e-6", "--cfg=s4bxi/rx-actors:" + std::to_string(engines),
                      "--cfg=s4bxi/tx-actors:" + std::to_string(engines), program("reliability"), "ordering", "200"});
        expect_success(r, 3);
        EXPECT_EQ(r.exit_code, 0) << describe(r);
        return printed(r, "ordering ");
    };
    const double one = run3(1), two = run3(2);
    ASSERT_GT(one, 0);
    ASSERT_GT(two, 0);
    EXPECT_LT(two, 0.7 * one) << "one engine " << one << " s, two " << two << " s";
}

TEST_F(Reliability, SeveralTxEnginesServeDestinationsInParallelInOrder)
{
    // Rank 0 puts to ranks 1 and 2 in turns: with two TX engines, node0's
    // messages to node1 and to node2 are processed in parallel, each
    // destination's in order.
    auto run3 = [this](int engines) {
        auto r = run({"-n", "3", "--platform", "fattree:1;3;1;1", "--cfg=s4bxi/compute:none",
                      "--cfg=s4bxi/nic-tx-delay:2e-6", "--cfg=s4bxi/tx-actors:" + std::to_string(engines),
                      program("reliability"), "fanout", "200"});
        expect_success(r, 3);
        return printed(r, "fanout ");
    };
    const double one = run3(1), two = run3(2);
    ASSERT_GT(one, 0);
    ASSERT_GT(two, 0);
    EXPECT_LT(two, 0.7 * one) << "one engine " << one << " s, two " << two << " s";
}

} // namespace
} // namespace e2e
