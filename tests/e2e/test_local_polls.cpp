// Calls answered by the process itself: polls (s4bxi/local-polls,
// preload/local_polls.hpp), when the reply's mirror of the rank's event
// queues settles them (an event landed, none can land before the poll period
// ends, or the one that ends a blocked poll is shown), small PtlPuts
// (s4bxi/queued-puts, preload/queued_puts.hpp), which the process checks and
// queues (and goes on from when a forecast tells their end, s4bxi/put-forecasts),
// appends a permit covers (s4bxi/queued-appends, preload/queued_appends.hpp),
// and unlinks of entries the NIC never unlinks itself (s4bxi/queued-unlinks).
// They cost no round trip: the server runs them with the next call, so
// nothing the program or the model shows may change: the program's output
// (its clocks), the simulated time, and every event of the NIC and the
// network. Only the trace of the calls themselves differs (polls answered by
// the process are POLL records, not CALLs).
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <sstream>

namespace e2e {
namespace {

class LocalPolls : public E2ETest {
protected:
    struct Outcome {
        RunResult result;
        std::string model_events; // the trace's events.csv without the CALL and POLL rows
        double calls = -1;
        double answered_in_process = -1;
    };

    Outcome run_with(bool local, const std::vector<std::string> &job, const std::string &horizon = "yes")
    {
        const std::string answer = local ? "yes" : "no";
        TracedRun traced = run_traced(
            {"--cfg=s4bxi/compute:none", "--cfg=s4bxi/local-polls:" + answer, "--cfg=s4bxi/queued-puts:" + answer,
             "--cfg=s4bxi/put-forecasts:" + answer, "--cfg=s4bxi/queued-appends:" + answer,
             "--cfg=s4bxi/queued-unlinks:" + answer, "--cfg=s4bxi/horizon-from-traffic:" + horizon},
            job);
        Outcome outcome;
        outcome.result = traced.result;
        std::istringstream events(traced.events);
        for (std::string line; std::getline(events, line);)
            if (line.rfind("CALL,", 0) != 0 && line.rfind("POLL,", 0) != 0)
                outcome.model_events += line + "\n";
        if (const auto &doc = traced.report) {
            const json::Value *totals = doc->get("totals");
            EXPECT_TRUE(totals && totals->is_object()) << describe(outcome.result);
            if (totals && totals->is_object()) {
                outcome.calls = totals->get("portals_calls")->number;
                outcome.answered_in_process = totals->get("answered_in_process")->number;
            }
        }
        return outcome;
    }

    // The job with local answers and without: both end well with the same
    // output, simulated time and model events. Returns the run with them.
    Outcome same_with_and_without(const std::vector<std::string> &job)
    {
        const Outcome on = run_with(true, job);
        const Outcome off = run_with(false, job);
        expect_same_simulated_end(on.result, off.result);
        EXPECT_EQ(on.result.out, off.result.out);
        EXPECT_FALSE(on.model_events.empty());
        EXPECT_TRUE(on.model_events == off.model_events) << "the NIC's events differ with local polls";
        EXPECT_EQ(off.answered_in_process, 0) << describe(off.result);
        return on;
    }
};

// Programs that poll their queues while messages are on their way: the
// polls a PCIe write away from any landing are answered by the process (all
// but arrival_during_append answer some; ReportCountsThePollsAnsweredInTheProcess
// checks that they are counted). One test a program, each with its own time
// limit (ranks, program).
class LocalPollsOf : public LocalPolls, public ::testing::WithParamInterface<std::pair<int, const char *>> {};

TEST_P(LocalPollsOf, EverySimulatedResultIsTheSameWithAndWithout)
{
    const auto &[ranks, name] = GetParam();
    same_with_and_without({"-n", std::to_string(ranks), program(name)});
}

// The horizon from the messages on their way (s4bxi/horizon-from-traffic,
// nic/landing_bounds.hpp) against the one a PCIe write from the last answer:
// the same simulated results, as many polls answered by the process or more.
TEST_P(LocalPollsOf, TheHorizonFromTrafficChangesNothingButTheRoundTrips)
{
    const auto &[ranks, name] = GetParam();
    const std::vector<std::string> job{"-n", std::to_string(ranks), program(name)};
    const Outcome far = run_with(true, job, "yes");
    const Outcome near = run_with(true, job, "no");
    expect_same_simulated_end(far.result, near.result);
    EXPECT_EQ(far.result.out, near.result.out);
    EXPECT_TRUE(far.model_events == near.model_events) << "the NIC's events differ with the horizon from traffic";
    EXPECT_GE(far.answered_in_process, near.answered_in_process) << describe(far.result) << describe(near.result);
}

// The poll whose period ends in a block sleeps that period within the block
// when nothing the block watches can change before it starts
// (s4bxi/poll-period-in-block, portals/api_polls.cpp), and so do the polls
// the process answered itself just before it (s4bxi/replays-in-block): the
// same simulated results, polls included, with a scheduling round less per
// such poll. (A date may differ within SimGrid's precision: without the time
// point at the period's end, an action due a rounding error after it ends at
// its own date.)
TEST_P(LocalPollsOf, ThePeriodSleptInTheBlockChangesNothingButTheRounds)
{
    const auto &[ranks, name] = GetParam();
    auto run_period = [&](const std::string &in_block, const std::string &replays) {
        return run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/poll-period-in-block:" + in_block,
                           "--cfg=s4bxi/replays-in-block:" + replays},
                          {"-n", std::to_string(ranks), program(name)});
    };
    const TracedRun in_block = run_period("yes", "yes");
    const TracedRun replays_slept = run_period("yes", "no");
    const TracedRun alone = run_period("no", "no");
    for (const TracedRun *other : {&replays_slept, &alone}) {
        expect_same_simulated_end(in_block.result, other->result);
        EXPECT_EQ(in_block.result.out, other->result.out);
        EXPECT_EQ(events_differ(in_block.events, other->events, kSimGridPrecisionS), "");
        ASSERT_TRUE(other->report.has_value());
    }
    ASSERT_TRUE(in_block.report.has_value());
    auto rounds = [](const TracedRun &run) { return run.report->get("engine_rounds")->number; };
    EXPECT_LE(rounds(in_block), rounds(replays_slept));
    EXPECT_LE(rounds(replays_slept), rounds(alone));
}

INSTANTIATE_TEST_SUITE_P(Programs, LocalPollsOf,
                         ::testing::Values(std::pair{2, "poll_two_eqs"}, std::pair{2, "poll_loop"},
                                           std::pair{2, "eq_ct_events"}, std::pair{2, "me_matching"},
                                           std::pair{2, "ack_kinds"}, std::pair{2, "flow_control"},
                                           std::pair{2, "arrival_during_append"}, std::pair{1, "local_poll_refusals"},
                                           std::pair{4, "atomic_contention"}, std::pair{4, "triggered_ops"},
                                           std::pair{2, "queued_puts"}, std::pair{2, "queued_puts_logical"},
                                           std::pair{2, "queued_unlinks"}),
                         [](const auto &info) { return std::string(info.param.second); });

// The polls a process answered count as Portals calls of the program, and
// the round trips they saved are the difference.
TEST_F(LocalPolls, ReportCountsThePollsAnsweredInTheProcess)
{
    const Outcome on = run_with(true, {"-n", "2", program("poll_two_eqs")});
    const Outcome off = run_with(false, {"-n", "2", program("poll_two_eqs")});
    expect_all_passed(on.result, "poll_two_eqs", 2);
    EXPECT_GT(on.answered_in_process, 0) << describe(on.result);
    EXPECT_LE(on.answered_in_process, on.calls);
    // Fewer round trips than calls: each answered poll is one less.
    EXPECT_LT(on.calls - on.answered_in_process, off.calls) << describe(on.result) << describe(off.result);
}

// Small Puts are queued by the process: with the polls answered by the
// server, what the sender answers itself are those Puts. On a physical NI
// (queued_puts.c), several wait queued at once, and a Put queued while the
// clock waits for the end of the one before it (the server times it from the
// compute between them): the four in a row and the last (before several
// could, 2). On a logical NI (queued_puts_logical.c), while the process knows
// its map, the job's then the one the program sets: its five valid Puts, its
// barrier's besides. In both, the Puts the server refuses are refused all
// the same.
TEST_F(LocalPolls, QueuedPutsAreAnsweredInTheProcess)
{
    for (const char *name : {"queued_puts", "queued_puts_logical"}) {
        SCOPED_TRACE(name);
        TracedRun queued = run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/local-polls:no"},
                                      {"-n", "2", program(name)});
        expect_all_passed(queued.result, name, 2);
        ASSERT_TRUE(queued.report.has_value());
        const json::Value *ranks = queued.report->get("per_rank");
        ASSERT_TRUE(ranks != nullptr && ranks->is_array() && !ranks->array.empty()) << describe(queued.result);
        const json::Value *sender = ranks->array[0].get("answered_in_process");
        ASSERT_NE(sender, nullptr);
        EXPECT_GE(sender->number, 5) << describe(queued.result);
    }
}

// The server looks at the calls a process queued when it waits long for
// the process's next call (its liveness period, here a spin of 60 ms of real
// time after the first Put of a row): it runs them, at their simulated
// times, and the process goes on queuing after them, as it would have had
// the server not looked. (When that look claimed the queue, the Puts after
// it went to the server as calls: the traces differed, at a moment only real
// time decided, in a process taken off its CPU under load.)
TEST_F(LocalPolls, AServerThatLooksAtTheQueuedCallsChangesNothing)
{
    auto run_sender = [&](const std::vector<std::string> &arguments) {
        std::vector<std::string> job{"-n", "2", program("queued_puts")};
        job.insert(job.end(), arguments.begin(), arguments.end());
        return run_traced({"--cfg=s4bxi/compute:none"}, job);
    };
    const TracedRun paused = run_sender({"pause"});
    const TracedRun straight = run_sender({});
    expect_all_passed(paused.result, "queued_puts", 2);
    expect_all_passed(straight.result, "queued_puts", 2);
    ASSERT_TRUE(paused.report.has_value() && straight.report.has_value());
    auto in_process = [](const TracedRun &run) {
        return run.report->get("per_rank")->array[0].get("answered_in_process")->number;
    };
    EXPECT_GE(in_process(straight), 5) << describe(straight.result);
    EXPECT_EQ(in_process(paused), in_process(straight)) << describe(paused.result);
    EXPECT_EQ(events_differ(paused.events, straight.events, 0, "(no kind: every row, calls too)"), "");
}

// Unlinks of entries the NIC never unlinks itself are queued by the process
// (preload/queued_unlinks.hpp): with nothing else answered in the process,
// what it answers are those unlinks; the program sees the same results
// (PTL_ARG_INVALID for an entry already unlinked or used up).
TEST_F(LocalPolls, QueuedUnlinksAreAnsweredInTheProcess)
{
    auto run_unlinks = [&](const std::string &queued) {
        return run_traced({"--cfg=s4bxi/compute:none", "--cfg=s4bxi/local-polls:no", "--cfg=s4bxi/queued-puts:no",
                           "--cfg=s4bxi/queued-appends:no", "--cfg=s4bxi/queued-unlinks:" + queued},
                          {"-n", "2", program("queued_unlinks")});
    };
    TracedRun on = run_unlinks("yes");
    TracedRun off = run_unlinks("no");
    expect_all_passed(on.result, "queued_unlinks", 2);
    expect_all_passed(off.result, "queued_unlinks", 2);
    expect_same_simulated_end(on.result, off.result);
    ASSERT_TRUE(on.report.has_value() && off.report.has_value());
    EXPECT_GE(on.report->get("totals")->get("answered_in_process")->number, 5) << describe(on.result);
    EXPECT_EQ(off.report->get("totals")->get("answered_in_process")->number, 0) << describe(off.result);
}

// A queue the process does not know as its own (never allocated, or freed)
// goes to the server, which says what is wrong with it, even right after a
// reply that would allow a local answer.
TEST_F(LocalPolls, UnknownOrFreedQueueIsStillRefused)
{
    auto r = run({"-n", "1", "--cfg=s4bxi/compute:none", program("local_poll_refusals")});
    expect_all_passed(r, "local_poll_refusals", 1);
}

} // namespace
} // namespace e2e
