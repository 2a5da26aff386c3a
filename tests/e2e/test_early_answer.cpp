// The early answer of PtlPut, PtlGet and the atomics (s4bxi/early-put-answer):
// a process goes on during the PCIe write of its call's command when the NIC
// cannot touch its memory meanwhile. Nothing the program or the model shows
// may change: the clock after the call, and every simulated event.
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <sstream>

namespace e2e {
namespace {

class EarlyAnswer : public E2ETest {
protected:
    struct Outcome {
        RunResult result;
        std::string events; // the trace's events.csv
        double early_calls = -1;
        double memory_accesses = -1;
    };

    // The job, with compute off (deterministic) and early answers on or off.
    // (Without queued Puts: the process answers a small Put itself, on a
    // physical NI or a logical one, before the server could answer it early.)
    Outcome run_with(bool early, const std::vector<std::string> &job)
    {
        TracedRun traced = run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/queued-puts:no",
                                       std::string("--cfg=s4bxi/early-put-answer:") + (early ? "yes" : "no")},
                                      job);
        Outcome outcome;
        outcome.result = traced.result;
        outcome.events = traced.events;
        if (const auto &doc = traced.report) {
            const json::Value *early_answers = doc->get("early_answers");
            EXPECT_TRUE(early_answers && early_answers->is_object()) << describe(outcome.result);
            if (early_answers && early_answers->is_object()) {
                outcome.early_calls = early_answers->get("calls")->number;
                outcome.memory_accesses = early_answers->get("memory_accesses_meanwhile")->number;
            }
        }
        return outcome;
    }

    // The job with early answers and without: both end well, and every
    // simulated event and time is the same; the NIC never touched the memory
    // of a rank running ahead. Returns the run with early answers.
    Outcome same_with_and_without(const std::vector<std::string> &job)
    {
        const Outcome on = run_with(true, job);
        const Outcome off = run_with(false, job);
        expect_same_simulated_end(on.result, off.result);
        EXPECT_FALSE(on.events.empty());
        EXPECT_TRUE(on.events == off.events) << "the traces differ with early answers";
        EXPECT_EQ(on.memory_accesses, 0) << "the NIC touched the memory of a rank running ahead\n"
                                         << describe(on.result);
        return on;
    }

    static std::string lines_with(const std::string &text, const std::string &what)
    {
        std::istringstream in(text);
        std::string line, kept;
        while (std::getline(in, line))
            if (line.find(what) != std::string::npos)
                kept += line + "\n";
        return kept;
    }
};

TEST_F(EarlyAnswer, ClockReadRightAfterTheCallShowsItsEnd)
{
    // clock_after_put fails by itself when the clock does not include the
    // command's PCIe write.
    const Outcome on = run_with(true, {"-n", "2", program("clock_after_put")});
    const Outcome off = run_with(false, {"-n", "2", program("clock_after_put")});
    expect_success(on.result, 2);
    expect_success(off.result, 2);
    EXPECT_TRUE(contains(on.result.out, "clock_after_put: rank 0: all checks passed")) << describe(on.result);
    EXPECT_GT(on.early_calls, 0) << "no call was answered early: the test shows nothing";
    EXPECT_EQ(off.early_calls, 0);
    EXPECT_EQ(lines_with(on.result.out, " took "), lines_with(off.result.out, " took "));
    EXPECT_FALSE(lines_with(on.result.out, " took ").empty()) << describe(on.result);
    EXPECT_EQ(on.events, off.events);
}

TEST_F(EarlyAnswer, EverySimulatedEventIsTheSameWithAndWithout)
{
    const std::string bench = std::string(E2E_BINARY_DIR) + "/bench/";
    const std::vector<std::vector<std::string>> jobs{
        // More ranks than cores, many Puts answered early.
        {"-n", "16", "--platform", "fattree:2;4,4;1,2;1,2", bench + "put_ring", "10", "8"},
        // Payloads read by DMA (never answered early) and small ones.
        {"-n", "2", bench + "put_pingpong", "20", "65536"},
        {"-n", "8", program("atomic_contention")},
        {"-n", "4", program("triggered_ops")},
        {"-n", "2", program("put_get_integrity")},
    };
    bool any_early = false;
    for (const auto &job : jobs) {
        SCOPED_TRACE(job.back());
        const Outcome on = same_with_and_without(job);
        any_early = any_early || on.early_calls > 0;
    }
    EXPECT_TRUE(any_early);
}

// Node 0's PCIe link is slow (20 us of latency): a Put that rank 1 sends
// while rank 0 writes its command lands before that write ends. Rank 0 must
// then not be answered early; rank 1, whose write is the fast one, may be.
TEST_F(EarlyAnswer, NodeWhosePcieWriteOutlastsAMessagesWayIsNotAnsweredEarly)
{
    TempDir dir;
    const std::string xml = dir.file("slow-pcie.xml");
    std::string platform = read_file(std::string(E2E_BINARY_DIR) + "/share/s4bxi/platforms/two-nodes.xml");
    const std::string link = R"(<link id="node0_pci" bandwidth="15.75GBps" latency="250ns")";
    const auto at = platform.find(link);
    ASSERT_NE(at, std::string::npos) << "two-nodes.xml changed";
    platform.replace(at, link.size(), R"(<link id="node0_pci" bandwidth="15.75GBps" latency="20us")");
    write_file(xml, platform);
    const Outcome on = same_with_and_without({"-n", "2", "--platform", xml, program("put_during_put"), "3000", "8"});
    expect_success(on.result, 2);
    EXPECT_FALSE(contains(on.result.err, "ran ahead")) << describe(on.result);
    EXPECT_GT(on.early_calls, 0) << "rank 1 was not answered early: the test shows nothing";
}

// Two ranks on one node: rank 1's 8 B Put crosses no wire, so it can land
// 465 ns after it was posted; rank 0's PtlPut of 200 B writes its PIO payload
// then its command, 513 ns. Rank 0 must not run during them when rank 1 posts
// its Put meanwhile, whatever the delay between the two.
TEST_F(EarlyAnswer, PioPayloadIsPartOfTheWritesARankCannotRunDuring)
{
    bool any_early = false;
    for (int delay_ns = 0; delay_ns <= 400; delay_ns += 20) {
        SCOPED_TRACE("rank 1 Puts " + std::to_string(delay_ns) + " ns after rank 0");
        const Outcome on = same_with_and_without(
            {"-n", "2", "--ppn", "2", "--placement", "block", program("put_during_put"), std::to_string(delay_ns), "200"});
        any_early = any_early || on.early_calls > 0;
    }
    EXPECT_TRUE(any_early);
}

// Rank 1 fills its node's command queue with 64 KiB Puts; rank 0, on the
// same node, posts an 8 B Put 40 us later, whose command then waits for a
// free slot after its PCIe write; rank 2 Puts into rank 0's memory meanwhile.
// Rank 0 must not run while its command waits.
TEST_F(EarlyAnswer, CommandWaitingForAFullQueueIsNotAnsweredEarly)
{
    for (int rank2_us = 41; rank2_us <= 47; rank2_us += 2) {
        SCOPED_TRACE("rank 2 Puts " + std::to_string(rank2_us) + " us after the barrier");
        const Outcome on = same_with_and_without({"-n", "3", "--ppn", "2", "--placement", "block", "--platform",
                                                  "fattree:1;3;1;1", program("put_into_full_queue"), "40000",
                                                  std::to_string(rank2_us * 1000)});
        EXPECT_GT(on.early_calls, 0);
    }
}

} // namespace
} // namespace e2e
