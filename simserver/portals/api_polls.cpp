// Polls that only poll: the poll streak of each rank (the objects it watches,
// its count of empty polls), the cost of an empty poll and the block until a
// polled object changes once the streak is long enough (with the poll
// sentinel), and the replay of the polls the process answered itself
// (preload/local_polls.hpp).
#include "api.hpp"

#include "../actor_sleep.hpp"
#include "../model_options.hpp"
#include "../trace/kinds.hpp"
#include "api_internal.hpp"
#include "api_waits.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>
#include <algorithm>
#include <cstdio>
#include <vector>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(s4bxi_portals);

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

using detail::block_until;
using detail::eq_readiness;
using detail::find_object;
using detail::kForever;
using detail::PollPeriods;
using detail::pop_event;
using detail::Readiness;
using detail::rest_of_poll_period;

Api::PollStreak& Api::streak_of(const RankPortals& rank)
{
  if (poll_streaks_.size() < world_.ranks.size())
    poll_streaks_.resize(world_.ranks.size());
  return poll_streaks_[rank.rank];
}

void Api::end_poll_streak(RankPortals& rank, bool progress)
{
  constexpr size_t kEarlierKept = ipc::kMaxEarlierPolled; // all of them fit a reply
  if (progress)
    poll_sentinel_.progress();
  PollStreak& streak = streak_of(rank);
  auto earlier = std::move(streak.earlier);
  for (const auto& watched : streak.watched) {
    std::pair<HandleKind, ipc::Handle> object{watched.kind, watched.handle};
    std::erase(earlier, object);
    earlier.insert(earlier.begin(), object);
  }
  if (earlier.size() > kEarlierKept)
    earlier.resize(kEarlierKept);
  streak = PollStreak{};
  streak.earlier = std::move(earlier);
}

bool Api::counter_changed_in_streak(RankPortals& rank, ipc::Handle handle)
{
  CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts);
  if (counter == nullptr)
    return true;
  const auto& value = counter->at(sim_now());
  for (const auto& watched : streak_of(rank).watched)
    if (watched.kind == HandleKind::CT && watched.handle == handle)
      return value.success != watched.seen.success || value.failure != watched.seen.failure;
  return false;
}

void Api::count_empty_poll(RankPortals& rank, HandleKind kind, std::span<const ipc::Handle> handles, double now)
{
  PollStreak& streak = streak_of(rank);
  bool grew = false;
  for (ipc::Handle handle : handles) {
    auto same = [&](const PollStreak::Watched& w) { return w.kind == kind && w.handle == handle; };
    if (std::find_if(streak.watched.begin(), streak.watched.end(), same) != streak.watched.end())
      continue;
    PollStreak::Watched watched{kind, handle, {}, 0};
    if (kind == HandleKind::CT)
      if (CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts))
        watched.seen = counter->at(now);
    streak.watched.push_back(watched);
    grew = true;
  }
  // A program's progress loop may poll some objects only every few rounds
  // (OpenMPI's low-priority progress callbacks run one call in 8): count the
  // polls since the last object new to the streak, so that the program's
  // whole loop is watched before it blocks.
  streak.count = grew ? 1 : streak.count + 1;
}

bool Api::landed_in_any(RankPortals& rank, std::span<const ipc::Handle> queues, double at)
{
  for (ipc::Handle handle : queues)
    if (EventQueue* queue = find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs);
        eq_readiness(queue, at).ready) {
      describe_landing(queue, at);
      return true;
    }
  return false;
}

void Api::describe_landing(const EventQueue* queue, double poll_end)
{
  mismatch_detail_.clear();
  if (queue == nullptr || queue->events.empty())
    return;
  char text[160];
  std::snprintf(text, sizeof text, " (event type %d landed at %.12g s, written at %.12g s; the poll ended at %.12g s)",
                static_cast<int>(queue->events.front().event.type), queue->events.front().visible_at,
                queue->events.front().written_at, poll_end);
  mismatch_detail_ = text;
}

namespace {

// The queues a step polled: its bits index the report's list of queues.
size_t polled_queues(const ipc::LocalPollStep& step, const ipc::LocalPolls& polls, ipc::Handle* polled)
{
  const uint32_t queues = std::min<uint32_t>(polls.queue_count, ipc::kMaxLocalPollQueues);
  size_t polled_count = 0;
  for (uint32_t i = 0; i < queues; ++i)
    if ((step.polled >> i) & 1U)
      polled[polled_count++] = polls.queues[i];
  return polled_count;
}

} // namespace

size_t Api::begin_local_step(RankPortals& rank, const ipc::LocalPollStep& step, const ipc::LocalPolls& polls,
                             ipc::Handle* polled)
{
  const size_t polled_count = polled_queues(step, polls, polled);
  if (polled_count == 0)
    return 0;
  rank.stats.portals_calls++;
  rank.stats.answered_in_process++;
  // Compute between two polls is work, as between two calls (Api::handle).
  if (step.compute_ns > ipc::kWorkBetweenPollsNs)
    end_poll_streak(rank, false);
  return polled_count;
}

const char* Api::replay_empty_polls(RankPortals& rank, std::span<const ipc::LocalPollStep> steps,
                                    const ipc::LocalPolls& polls)
{
  // The streak as the polls one by one would leave it.
  for (const ipc::LocalPollStep& step : steps) {
    if (step.kind != ipc::LocalPollStep::Empty)
      return "a poll of another kind among empty ones";
    ipc::Handle polled[ipc::kMaxLocalPollQueues];
    const size_t polled_count = begin_local_step(rank, step, polls, polled);
    if (polled_count == 0)
      return "a poll of no queue";
    count_empty_poll(rank, HandleKind::EQ, std::span(polled, polled_count), rank.time());
  }
  // One sleep to where the polls' own sleeps would have ended, each a poll
  // cost after the one before (the same additions, so the same time).
  const double cost = options::poll_cost_s();
  const double start = rank.time();
  double end = start;
  if (cost > 0) {
    for (size_t i = 0; i < steps.size(); ++i)
      end += cost;
    // Or none: the proxy serves only a poll after these, which may block
    // (RankPortals::may_defer), and nothing can happen before they end that
    // depends on this sleep (may_leave_unslept). The block sleeps it, or
    // RankPortals::settle does.
    if (rank.may_defer && may_leave_unslept(rank, end)) {
      rank.deferred_until = end;
    } else {
      s4bxi::sleep_until(end);
      rank.deferred_until = 0;
    }
  }
  // Each poll found nothing at its own end: no polled queue had an event
  // landed by then (a later landing was written after it, or lands later).
  double poll_end = start;
  for (const ipc::LocalPollStep& step : steps) {
    const double poll_start = poll_end;
    if (cost > 0)
      poll_end += cost;
    charge_blocked(rank, trace::Kind::Poll, poll_start, poll_end, "empty poll answered by the process");
    ipc::Handle polled[ipc::kMaxLocalPollQueues];
    const size_t polled_count = polled_queues(step, polls, polled);
    if (landed_in_any(rank, std::span(polled, polled_count), poll_end))
      return "an empty poll found an event";
  }
  XBT_VERB("rank %u: %zu empty polls answered by the process", rank.rank, steps.size());
  return nullptr;
}

const char* Api::replay_local_poll(RankPortals& rank, const ipc::LocalPollStep& step, const ipc::LocalPolls& polls)
{
  const uint32_t queues = std::min<uint32_t>(polls.queue_count, ipc::kMaxLocalPollQueues);
  ipc::Handle polled[ipc::kMaxLocalPollQueues];
  const size_t polled_count = begin_local_step(rank, step, polls, polled);
  if (polled_count == 0)
    return "a poll of no queue";
  // (A blocked poll sleeps what the replays before it left: charge_empty_poll.
  // An event taken at once is taken at the rank's time, which may stay ahead
  // of the clock when nothing is written for the rank meanwhile: no event
  // posted behind it finds its queue fuller than it is.)
  const bool at_rank_time = step.kind == ipc::LocalPollStep::FoundAfterBlock ||
                            step.kind == ipc::LocalPollStep::EmptyAfterBlock ||
                            (step.kind == ipc::LocalPollStep::FoundAtOnce && may_leave_unslept(rank, rank.time()));
  if (not at_rank_time)
    rank.settle();
  if (step.kind == ipc::LocalPollStep::Empty || step.kind == ipc::LocalPollStep::FoundAfterCost) {
    const double start = sim_now();
    count_empty_poll(rank, HandleKind::EQ, std::span(polled, polled_count), start);
    // (The process answers no poll that would block here, but one at whose
    // end an event has landed: its block would have ended at once.)
    if (const double cost = options::poll_cost_s(); cost > 0)
      s4bxi::sleep_for(cost);
    charge_blocked(rank, trace::Kind::Poll, start, "empty poll answered by the process");
  }
  auto none_ready = [&] { return not landed_in_any(rank, std::span(polled, polled_count), rank.time()); };
  if (step.kind == ipc::LocalPollStep::Empty) {
    // The process found nothing at the end of the period: neither may the
    // server (an event landed meanwhile: the process misjudged its horizon).
    if (not none_ready())
      return "an empty poll found an event";
    XBT_VERB("rank %u: empty poll answered by the process", rank.rank);
    return nullptr;
  }
  if (step.kind == ipc::LocalPollStep::FoundAfterBlock || step.kind == ipc::LocalPollStep::EmptyAfterBlock) {
    // The process saw in its mirror when the block would end: it blocks
    // here as it would have, and must end as the process said.
    if (const EmptyPoll ended = charge_empty_poll(rank, HandleKind::EQ, std::span(polled, polled_count));
        ended != EmptyPoll::BlockedUntilChange)
      return ended == EmptyPoll::Charged ? "a blocked poll did not block" : "a blocked poll was released";
    if (step.kind == ipc::LocalPollStep::EmptyAfterBlock) {
      if (not none_ready())
        return "a blocked poll found an event";
      XBT_VERB("rank %u: blocked poll answered by the process (nothing polled changed)", rank.rank);
      return nullptr;
    }
  } else if (step.kind != ipc::LocalPollStep::FoundAtOnce && step.kind != ipc::LocalPollStep::FoundAfterCost) {
    return "a poll of no known kind";
  }
  // The event the process took: the first of that queue, landed by now.
  if (step.taken >= queues || ((step.polled >> step.taken) & 1U) == 0)
    return "an event taken from a queue it did not poll";
  EventQueue* queue = find_object(rank, polls.queues[step.taken], HandleKind::EQ, &NetworkInterface::eqs);
  if (queue == nullptr || not eq_readiness(queue, rank.time()).ready || queue->dropped)
    return "an event taken before it landed";
  XBT_VERB("rank %u: event %d taken by the process%s", rank.rank, static_cast<int>(queue->events.front().event.type),
           step.kind == ipc::LocalPollStep::FoundAfterBlock ? " (after a blocked poll)" : "");
  pop_event(*queue);
  end_poll_streak(rank);
  return nullptr;
}

ipc::PollStreakState Api::poll_streak_state(const RankPortals& rank)
{
  const PollStreak& streak = streak_of(rank);
  ipc::PollStreakState state;
  state.count = static_cast<uint32_t>(streak.count);
  state.watched_count = static_cast<uint32_t>(streak.watched.size());
  for (size_t i = 0; i < streak.watched.size() && i < ipc::kMaxLocalPollQueues; ++i)
    state.watched[i] = streak.watched[i].handle;
  state.earlier_count = static_cast<uint32_t>(streak.earlier.size());
  for (size_t i = 0; i < streak.earlier.size() && i < ipc::kMaxEarlierPolled; ++i)
    state.earlier[i] = streak.earlier[i].second;
  return state;
}

bool Api::no_instant_watched() const
{
  // Not while the outside holder may have to hold the simulation at some
  // instant (a thread that may abort a wait, a parked rank), nor while a wait
  // with a deadline makes the sentinel look at every round.
  return RankPortals::deadline_waits == 0 && abort_watch_.threaded_waiters() == 0 &&
         abort_watch_.deadline_waiters() == 0 && world_.parked_ranks == 0;
}

bool Api::may_sleep_period_in_block() const
{
  return options::poll_period_in_block() && no_instant_watched();
}

bool Api::may_leave_unslept(const RankPortals& rank, double until) const
{
  // The polls find the same whenever they are looked at (the checks look at
  // their own ends) when the NIC writes nothing for the rank before they
  // end; and the poll sentinel, which acts when nothing else is pending,
  // cannot act before then either without this sleep: a message on the wire
  // keeps the simulation busy.
  const double clock = sim_now();
  return world_.landing.earliest_write(rank.node, clock) > until && world_.landing.busy_until() > until;
}

bool Api::may_answer_ahead(const RankPortals& rank, double until) const
{
  // Its NIC writes nothing for it before then (no event, no payload, no
  // read of its memory: LandingBounds). (Unlike a replay left unslept, its
  // proxy sleeps to `until` once it has answered, RankProxy::operator():
  // the simulation stays busy until then without a message on the wire.)
  return options::answers_ahead() && rank.lane == nullptr && rank.process().alive &&
         rank.process().calling_lanes == 0 && no_instant_watched() &&
         world_.landing.earliest_write(rank.node, sim_now()) > until;
}

Api::EmptyPoll Api::charge_empty_poll(RankPortals& rank, HandleKind kind, std::span<const ipc::Handle> handles)
{
  // The poll starts at the rank's time, which the replays before it may
  // have left ahead of the clock: then only the block sleeps to it, if
  // nothing can happen meanwhile that depends on that sleep.
  if (not may_leave_unslept(rank, rank.time()))
    rank.settle();
  const double now = rank.time();
  count_empty_poll(rank, kind, handles, now);
  PollStreak& streak = streak_of(rank);
  const double cost = options::poll_cost_s();
  const int limit = options::poll_block_after();
  // Not while other threads of the process call: what ends this thread's
  // polling may be a write of theirs in its memory, not an event.
  auto blocks = [&] { return limit > 0 && streak.count >= limit && rank.process().calling_lanes == 0; };
  // The program only polls: let simulated time run until something it polls
  // changes, instead of one round trip per poll period; when nothing else can
  // happen any more, the poll sentinel lets it poll once more instead. The
  // block starts when this poll's period ends.
  double start = now + cost;
  // What the block watches: the objects of the streak, and those of earlier
  // streaks (their events and counts at the block's start are no change).
  std::vector<PollStreak::Watched> watching;
  auto watch = [&] {
    watching = streak.watched;
    for (const auto& [object_kind, handle] : streak.earlier) {
      auto same = [&](const PollStreak::Watched& w) { return w.kind == object_kind && w.handle == handle; };
      if (std::find_if(watching.begin(), watching.end(), same) != watching.end())
        continue;
      PollStreak::Watched watched{object_kind, handle, {}, 0};
      if (object_kind == HandleKind::CT) {
        CountingEvent* counter = find_object(rank, handle, HandleKind::CT, &NetworkInterface::cts);
        if (counter == nullptr)
          continue; // freed since
        watched.seen = counter->at(start);
      } else if (EventQueue* queue = find_object(rank, handle, HandleKind::EQ, &NetworkInterface::eqs)) {
        // Events the program left there are no change: wait for a new one.
        watched.events_seen = queue->events.size();
      } else {
        continue;
      }
      watching.push_back(watched);
    }
  };
  // (Seen from the block's start while its poll's period is still slept.)
  auto at = [&] { return std::max(sim_now(), start); };
  auto changed = [&] {
    Readiness overall{false, kForever};
    for (const auto& watched : watching) {
      Readiness r;
      if (watched.kind == HandleKind::EQ) {
        EventQueue* queue = find_object(rank, watched.handle, HandleKind::EQ, &NetworkInterface::eqs);
        if (queue == nullptr)
          return Readiness{true, kForever}; // freed: the next poll reports it
        if (queue->events.size() > watched.events_seen) {
          const double landing = queue->events[watched.events_seen].visible_at;
          r = Readiness{landing <= at(), landing};
        } else if (queue->events.size() < watched.events_seen) {
          r = Readiness{true, kForever}; // read meanwhile (another thread): poll again
        }
      } else {
        CountingEvent* counter = find_object(rank, watched.handle, HandleKind::CT, &NetworkInterface::cts);
        if (counter == nullptr)
          return Readiness{true, kForever}; // freed: the next poll reports it
        const auto& value = counter->at(at());
        r.ready = value.success != watched.seen.success || value.failure != watched.seen.failure;
        r.next_landing = counter->pending.empty() ? kForever : counter->pending.front().visible_at;
      }
      if (r.ready)
        return r;
      overall.next_landing = std::min(overall.next_landing, r.next_landing);
    }
    return overall;
  };
  // Something already on its way ends the block, and nothing can land
  // before it (landings come in the order of their writes): not a stretch in
  // which nothing else can happen, whatever the sentinel would find while
  // this proxy is between two steps of its wait. (So the process, which sees
  // the landing in its mirror, can tell how the block ends:
  // preload/local_polls.cpp.)
  auto end_on_its_way = [](const Readiness& r) { return r.ready || r.next_landing < kForever; };

  // The poll's period is slept within the block (one sleep, one scheduling
  // round of the engine, instead of two, with the same simulated times) when,
  // seen now, the block finds and watches what it would at its start:
  // - the block's end is on its way (an event written, not landed yet: one
  //   written later lands after it, whatever queue it is in, so the block
  //   ends the same); the poll sentinel is not involved then;
  // - or nothing is written for the rank before the block starts, and the
  //   sentinel cannot act before then either: it acts only when nothing at
  //   all is pending, and a message on the wire keeps the simulation busy
  //   until after the block's start.
  // (From the clock, when the rank's time is ahead of it: nothing the block
  // watches changes meanwhile.)
  bool within = false;
  if (cost > 0 && blocks() && may_sleep_period_in_block()) {
    watch();
    const double clock = sim_now();
    within = end_on_its_way(changed()) ||
             (world_.landing.earliest_write(rank.node, clock) > start && world_.landing.busy_until() > start);
  }
  if (within)
    rank.deferred_until = 0; // the block sleeps to its start at least
  else
    rank.settle();
  if (cost > 0) {
    if (not within) {
      s4bxi::sleep_for(cost);
      start = sim_now();
    }
    charge_blocked(rank, trace::Kind::Poll, now, start, "empty poll");
  }
  if (not blocks())
    return EmptyPoll::Charged;
  if (not within)
    watch();

  bool released = false;
  PollPeriods periods{.start = start, .period = cost, .ended_on_period = false, .may_end_ahead = {}};
  // A block that ends on a landing already on its way may end at once, the
  // rank's time left there, when the rank may be answered from there
  // (s4bxi/answers-ahead): the answer comes without the scheduling round of
  // that sleep. Queues only: the checks after a block read them at the rank's
  // time.
  const bool queues_only = std::all_of(watching.begin(), watching.end(),
                                       [](const PollStreak::Watched& w) { return w.kind == HandleKind::EQ; });
  if (queues_only && kind == HandleKind::EQ)
    periods.may_end_ahead = [this, &rank](double until) { return may_answer_ahead(rank, until); };
  if (const Readiness on_its_way = changed(); end_on_its_way(on_its_way)) {
    // A block the process replayed (it saw its end in its mirror) among the
    // polls before one that may block: its end is known, and it may be left
    // unslept too (replay_empty_polls), to where block_until would sleep.
    if (rank.may_defer && within) {
      const double end = on_its_way.ready ? start
                                          : on_its_way.next_landing +
                                                rest_of_poll_period(start, on_its_way.next_landing, cost);
      if (may_leave_unslept(rank, end)) {
        rank.deferred_until = end;
        poll_sentinel_.progress();
        charge_blocked(rank, trace::Kind::Poll, start, end, "polling (blocked until a polled object changes)");
        streak.count = 0;
        return EmptyPoll::BlockedUntilChange;
      }
    }
    block_until(rank, kForever, changed, &periods);
    poll_sentinel_.progress();
  } else {
    poll_sentinel_.blocked(rank);
    block_until(rank, kForever, [&] { return rank.poll_released ? Readiness{true, kForever} : changed(); },
                &periods);
    released = rank.poll_released;
    poll_sentinel_.unblocked(rank);
  }
  // A block that ended at once (what it watches had landed by its start)
  // still ends with the poll's period.
  if (rank.time() < start && rank.process().alive)
    s4bxi::sleep_until(start);
  // Round the blocked time up to whole poll periods, as the polls would have
  // (a block that ended on a landing already slept to its period's end, or
  // left it to the answer).
  if (cost > 0 && not periods.ended_on_period)
    if (const double extra = rest_of_poll_period(start, sim_now(), cost); extra > 0)
      s4bxi::sleep_for(extra);
  charge_blocked(rank, trace::Kind::Poll, start, rank.time(), "polling (blocked until a polled object changes)");
  // Released to poll once more: the next empty poll blocks again.
  streak.count = released ? limit - 1 : 0;
  return released ? EmptyPoll::Released : EmptyPoll::BlockedUntilChange;
}

} // namespace s4bxi::portals
