// The polls a process settles itself (preload/local_polls.hpp): from a reply
// and its queue mirror, which polls are answered in the process, with what,
// at which simulated time, and which must go to the server.
#include "local_polls.hpp"
#include "sim_clock.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace s4bxi::preload {
namespace {

using local_polls::Answer;

constexpr ipc::Handle kQueueA = 0x40000001;
constexpr ipc::Handle kQueueB = 0x40000002;
// The process's clock never goes back, and it is one per process: each test
// starts a millisecond after the one before.
int test_number = 0;

class LocalPolls : public ::testing::Test {
protected:
  const double kNow = 1e-3 * ++test_number; // the reply's simulated time (s)
  const int64_t kNowNs = 1'000'000LL * test_number;
  ipc::ClockConfig clock{};
  ipc::Reply reply{};
  ipc::QueueMirror mirror{};
  ipc::LocalPollStep steps[ipc::kMaxLocalPolls]{};
  ipc::PublishedPolls published;

  void SetUp() override
  {
    sim_clock::set_compute_model(0, 0); // compute:none: no CPU time read
    clock.poll_cost_ns = 100;
    clock.poll_block_after = 2;
    reply.now = kNow;
    reply.horizon = kNow + 254e-9;
    local_polls::take_report(); // whatever an earlier test left
  }

  // Lists a queue in the mirror with the given landings (s).
  void queue(ipc::Handle handle, std::initializer_list<double> landings, uint32_t beyond = 0)
  {
    ipc::MirroredQueue& entry = mirror.queues[mirror.queue_count++];
    entry.handle = handle;
    entry.first = mirror.event_count;
    entry.mirrored = 0;
    for (double landing : landings) {
      ipc::MirroredEvent& event = mirror.events[mirror.event_count++];
      event.visible_at = landing;
      event.event.type = ipc::EventKind::Put;
      event.event.hdr_data = static_cast<uint64_t>(std::llround(landing * 1e9));
      entry.mirrored++;
    }
    entry.events = entry.mirrored + beyond;
  }

  // The reply arrives: the process's clock and its view of the queues.
  void replied()
  {
    sim_clock::on_reply(reply.now, 0);
    local_polls::on_reply(reply, mirror, published);
  }

  Answer poll(std::initializer_list<ipc::Handle> handles, bool wait = false)
  {
    const std::vector<ipc::Handle> polled(handles);
    return local_polls::answer(polled, wait, clock, steps);
  }
};

TEST_F(LocalPolls, EmptyQueueTakesAPollPeriodUntilTheServerWouldBlock)
{
  queue(kQueueA, {});
  replied();
  Answer first = poll({kQueueA});
  EXPECT_EQ(first.kind, Answer::Empty);
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 100);
  // The second empty poll in a row reaches s4bxi/poll-block-after: it blocks
  // in the server, so the server must see it.
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust);
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 100);
  const ipc::LocalPolls report = local_polls::take_report();
  ASSERT_EQ(report.count, 1u);
  ASSERT_EQ(report.queue_count, 1u);
  EXPECT_EQ(report.queues[0], kQueueA);
  EXPECT_EQ(steps[0].kind, ipc::LocalPollStep::Empty);
  EXPECT_EQ(steps[0].polled, 1u);
}

// Each answered poll is published in the channel, its queues first, for the
// server to replay before simulated time goes on without the process (a PMI
// command, a park); once the server has claimed them, a poll is its to answer
// and nothing of it is recorded; the next reply starts again.
TEST_F(LocalPolls, PollsArePublishedUntilTheServerClaimsThem)
{
  queue(kQueueA, {});
  queue(kQueueB, {});
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::Empty);
  EXPECT_EQ(published.count.load(), 1u);
  ASSERT_EQ(published.queue_count, 1u);
  EXPECT_EQ(published.queues[0], kQueueA);
  published.count.fetch_or(ipc::kPublishedPollsClaimed); // the server's claim
  EXPECT_EQ(poll({kQueueB}).kind, Answer::ServerMust);
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 100);
  EXPECT_EQ(published.count.load(), 1u | ipc::kPublishedPollsClaimed);
  const ipc::LocalPolls report = local_polls::take_report();
  EXPECT_EQ(report.count, 1u);
  replied();
  EXPECT_EQ(published.count.load(), 0u);
  EXPECT_EQ(published.queue_count, 0u);
}

TEST_F(LocalPolls, StreakCountOfTheReplyIsFollowed)
{
  queue(kQueueA, {});
  reply.poll_streak.count = 1;
  reply.poll_streak.watched_count = 1;
  reply.poll_streak.watched[0] = kQueueA;
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust); // its second in a row
  // A queue new to the streak restarts the count (as the server counts).
  queue(kQueueB, {});
  replied();
  EXPECT_EQ(poll({kQueueB}).kind, Answer::Empty);
}

TEST_F(LocalPolls, LandedEventIsTakenAtOnceAndTheNextOneAfterItLands)
{
  queue(kQueueA, {kNow - 50e-9, kNow + 60e-9});
  replied();
  Answer first = poll({kQueueA});
  ASSERT_EQ(first.kind, Answer::Event);
  EXPECT_EQ(first.event.hdr_data, static_cast<uint64_t>(kNowNs - 50));
  EXPECT_EQ(sim_clock::now_ns(), kNowNs); // no time for a found event
  Answer second = poll({kQueueA});
  ASSERT_EQ(second.kind, Answer::Event);
  EXPECT_EQ(second.event.hdr_data, static_cast<uint64_t>(kNowNs + 60));
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 100); // found at the end of a poll period
  EXPECT_EQ(steps[0].kind, ipc::LocalPollStep::FoundAtOnce);
  EXPECT_EQ(steps[1].kind, ipc::LocalPollStep::FoundAfterCost);
  EXPECT_EQ(steps[1].taken, 0u);
  // Both events taken, nothing else can land before the horizon: empty.
  EXPECT_EQ(poll({kQueueA}).kind, Answer::Empty);
}

TEST_F(LocalPolls, OutcomeWithinARoundingErrorGoesToTheServer)
{
  queue(kQueueA, {kNow + 100e-9}); // lands exactly when the poll period ends
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust);
  EXPECT_EQ(sim_clock::now_ns(), kNowNs);
  EXPECT_EQ(local_polls::take_report().count, 0u);
}

TEST_F(LocalPolls, PollPeriodReachingTheHorizonGoesToTheServer)
{
  reply.horizon = kNow + 90e-9;
  queue(kQueueA, {});
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust);
  // A landed event needs no poll period: it is still taken.
  queue(kQueueB, {kNow - 1e-6});
  replied();
  EXPECT_EQ(poll({kQueueB}).kind, Answer::Event);
}

TEST_F(LocalPolls, UnlistedDroppedOrPartlyMirroredQueuesGoToTheServer)
{
  queue(kQueueA, {}, 0);
  replied();
  EXPECT_EQ(poll({kQueueB}).kind, Answer::ServerMust); // not listed: maybe not a queue
  mirror = {};
  queue(kQueueA, {kNow - 1e-6});
  mirror.queues[0].dropped = 1; // PTL_EQ_DROPPED is the server's to tell
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust);
  mirror = {};
  queue(kQueueA, {kNow - 1e-6}, 3); // three more events than the mirror shows
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::Event);
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust);
}

TEST_F(LocalPolls, PollOfSeveralQueuesTakesTheFirstThatLandedInTheirOrder)
{
  queue(kQueueA, {kNow - 2e-6});
  queue(kQueueB, {kNow - 3e-6});
  replied();
  Answer answer = poll({kQueueB, kQueueA});
  ASSERT_EQ(answer.kind, Answer::Event);
  EXPECT_EQ(answer.which, 0u); // B, the first polled, though A landed later
  EXPECT_EQ(answer.event.hdr_data, static_cast<uint64_t>(kNowNs - 3000));
  const ipc::LocalPolls report = local_polls::take_report();
  ASSERT_EQ(report.queue_count, 2u);
  EXPECT_EQ(report.queues[steps[0].taken], kQueueB);
  EXPECT_EQ(steps[0].polled, 3u);
}

TEST_F(LocalPolls, WaitIsAnsweredOnlyWithALandedEvent)
{
  queue(kQueueA, {kNow + 50e-9});
  replied();
  EXPECT_EQ(poll({kQueueA}, true).kind, Answer::ServerMust);
  mirror = {};
  queue(kQueueA, {kNow});
  replied();
  EXPECT_EQ(poll({kQueueA}, true).kind, Answer::ServerMust); // landing at the clock itself: rounding
  mirror = {};
  queue(kQueueA, {kNow - 10e-9});
  replied();
  EXPECT_EQ(poll({kQueueA}, true).kind, Answer::Event);
}

TEST_F(LocalPolls, ReplyWithoutHorizonAllowsNothing)
{
  reply.horizon = 0; // s4bxi/local-polls:no
  queue(kQueueA, {kNow - 1e-6});
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::ServerMust);
}

TEST_F(LocalPolls, AtMostSoManyStepsBetweenTwoRequests)
{
  clock.poll_cost_ns = 0; // polls that take no time: the cap still holds
  clock.poll_block_after = 0;
  queue(kQueueA, {});
  replied();
  unsigned answered = 0;
  while (poll({kQueueA}).kind == Answer::Empty && answered <= ipc::kMaxLocalPolls)
    ++answered;
  EXPECT_EQ(answered, ipc::kMaxLocalPolls);
}

// A poll the server would block (the streak reaches s4bxi/poll-block-after)
// is answered when the mirror shows the landing that ends the block: the
// poll period, then whole periods until it lands (portals/api_polls.cpp).
TEST_F(LocalPolls, BlockedPollEndsAtTheWatchedLandingRoundedUpToPeriods)
{
  reply.poll_streak.count = 1;
  reply.poll_streak.watched_count = 1;
  reply.poll_streak.watched[0] = kQueueA;
  queue(kQueueA, {kNow + 137e-9});
  replied();
  const Answer answer = poll({kQueueA});
  ASSERT_EQ(answer.kind, Answer::Event);
  EXPECT_EQ(answer.event.hdr_data, static_cast<uint64_t>(kNowNs + 137));
  // The block starts after the first period (+100), the event lands 37 ns
  // later: one more period.
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 200);
  local_polls::take_report();
  EXPECT_EQ(steps[0].kind, ipc::LocalPollStep::FoundAfterBlock);
}

// The block also ends when a queue the streak watches but this poll does not
// sees its event land: the poll then finds nothing, and the streak counts
// again from zero.
TEST_F(LocalPolls, BlockEndedByAnotherWatchedQueueFindsNothing)
{
  reply.poll_streak.count = 1;
  reply.poll_streak.watched_count = 2;
  reply.poll_streak.watched[0] = kQueueA;
  reply.poll_streak.watched[1] = kQueueB;
  reply.horizon = kNow + 1e-6;
  queue(kQueueA, {});
  queue(kQueueB, {kNow + 150e-9});
  replied();
  EXPECT_EQ(poll({kQueueA}).kind, Answer::Empty);
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 200);
  local_polls::take_report();
  EXPECT_EQ(steps[0].kind, ipc::LocalPollStep::EmptyAfterBlock);
  EXPECT_EQ(poll({kQueueA}).kind, Answer::Empty); // the first of a new count
  EXPECT_EQ(sim_clock::now_ns(), kNowNs + 300);
}

// What the mirror cannot settle goes to the server: no landing before the
// horizon, a landing a rounding error from a period's end, a watched object
// the mirror does not show (a counter), an earlier streak's object that it
// does not show either.
TEST_F(LocalPolls, BlockedPollTheMirrorCannotSettleGoesToTheServer)
{
  auto blocked_poll = [&](std::initializer_list<double> landings, ipc::Handle also_watched,
                          ipc::Handle earlier) {
    reply = ipc::Reply{};
    reply.now = kNow;
    reply.horizon = kNow + 254e-9;
    reply.poll_streak.count = 1;
    reply.poll_streak.watched_count = 1;
    reply.poll_streak.watched[0] = kQueueA;
    if (also_watched != 0)
      reply.poll_streak.watched[reply.poll_streak.watched_count++] = also_watched;
    if (earlier != 0)
      reply.poll_streak.earlier[reply.poll_streak.earlier_count++] = earlier;
    mirror = ipc::QueueMirror{};
    queue(kQueueA, landings);
    replied();
    const Answer answer = poll({kQueueA});
    local_polls::take_report();
    return answer.kind;
  };
  constexpr ipc::Handle kCounter = 0x60000001;
  EXPECT_EQ(blocked_poll({}, 0, 0), Answer::ServerMust);
  EXPECT_EQ(blocked_poll({kNow + 300e-9}, 0, 0), Answer::ServerMust); // past the horizon
  EXPECT_EQ(blocked_poll({kNow + 201e-9}, 0, 0), Answer::ServerMust); // at a period's end
  EXPECT_EQ(blocked_poll({kNow + 150e-9}, kCounter, 0), Answer::ServerMust);
  EXPECT_EQ(blocked_poll({kNow + 150e-9}, 0, kCounter), Answer::ServerMust);
  EXPECT_EQ(blocked_poll({kNow + 150e-9}, 0, 0), Answer::Event); // and the mirror settles it
}

} // namespace
} // namespace s4bxi::preload
