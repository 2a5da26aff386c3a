// How the EQ and CT calls wait (api_eq.cpp, api_ct.cpp) and how a poll streak
// blocks (api_polls.cpp): whether a queue or a counter is ready, or when
// something already on its way lands, and the blocking of the calling proxy
// in simulated time until it is. Not for other users.
#pragma once

#include "../actor_sleep.hpp"
#include "../world.hpp"

#include "abort_watch.hpp"
#include "protocol.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

namespace s4bxi::portals::detail {

inline constexpr double kForever = std::numeric_limits<double>::infinity();
inline constexpr double kTimeResolution = 1e-9; // SimGrid's numerical accuracy for timeouts

// Result of looking at a waited-for object: ready, or the earliest time at
// which something already on its way will land.
struct Readiness {
  bool ready = false;
  double next_landing = kForever;
};

// What is left of the poll period in which `end` falls, the periods counted
// from `start`: a blocked poll stands for polls, each of which costs a
// period. (Nothing when less than SimGrid's resolution is left: it cannot
// sleep that, and warns.)
inline double rest_of_poll_period(double start, double end, double period)
{
  const double blocked = end - start;
  const double extra = std::ceil(blocked / period) * period - blocked;
  return extra > kTimeResolution ? extra : 0.0;
}

// A blocked poll's periods: when it ends on a landing, it ends at the end of
// that landing's period, in one sleep instead of a sleep to the landing and
// another to the period's end (each sleep is a scheduling round of the
// engine).
struct PollPeriods {
  double start = 0.0;
  double period = 0.0;
  bool ended_on_period = false; // set when the block ended at a period's end
  // Whether the block may end at once when its end, `until`, is known (a
  // landing on its way): the rank's time is then left at `until`, ahead of
  // the clock (RankPortals::deferred_until), and its answer may come before
  // the clock gets there (s4bxi/answers-ahead, RankProxy::reply). Unset: no.
  std::function<bool(double until)> may_end_ahead;
};

// Blocks the calling proxy until `check` says ready or `deadline` passes.
// A PtlAbort ends the wait early (false; the caller tells it by aborted()).
template <class Check>
bool block_until(RankPortals& rank, double deadline, Check check, PollPeriods* periods = nullptr)
{
  // Actors run one at a time and only a simcall lets others run: a check
  // and the wait that follows it with no simcall between cannot miss a
  // notification (change_signal.hpp).
  // What ends each wait, for the earliest next call of any rank
  // (rank_calls.hpp); nothing once the wait is over.
  struct Waiting {
    RankPortals& rank;
    void until(double date, bool on_change)
    {
      rank.wait_ends_no_sooner_than = date;
      rank.wait_ends_on_change = on_change;
    }
    ~Waiting() { until(-std::numeric_limits<double>::infinity(), false); }
  } waiting{rank};
  while (true) {
    // Its process ended meanwhile (another thread of it exited): nobody
    // waits for the answer any more.
    if (aborted(rank) || not rank.process().alive)
      return false;
    Readiness r = check();
    if (r.ready)
      return true;
    double now = sim_now();
    if (now >= deadline - kTimeResolution)
      return false; // (a residue below SimGrid's resolution is no time left)
    double wake = std::min(r.next_landing, deadline);
    rank.expect_long_wait();
    if (periods != nullptr)
      periods->ended_on_period = false;
    if (std::isinf(r.next_landing)) {
      // Nothing on its way yet: whatever comes notifies us (up to the deadline).
      // What was staged for the process is written first: no answer is known
      // to come (job/staged_writes.hpp).
      rank.process().staged.flush();
      waiting.until(deadline, true);
      if (std::isinf(deadline))
        rank.changed->wait_until(kForever);
      else {
        struct Counted {
          Counted() { RankPortals::deadline_waits++; }
          ~Counted() { RankPortals::deadline_waits--; }
        } counted;
        rank.changed->wait_until(deadline);
      }
    } else {
      // Something lands at `wake` at the latest (landings are in arrival
      // order): a plain sleep is cheaper than a condition wait with timeout.
      // (At least twice SimGrid's resolution: a landing a rounding error away
      // would otherwise be a sleep SimGrid cannot do.)
      double until = std::max(wake, now + 2 * kTimeResolution);
      const bool rounded = periods != nullptr && periods->period > 0 && until < deadline;
      if (rounded)
        until += rest_of_poll_period(periods->start, until, periods->period);
      if (periods != nullptr && periods->may_end_ahead && periods->may_end_ahead(until)) {
        rank.deferred_until = until;
        periods->ended_on_period = rounded;
        return true;
      }
      waiting.until(until, false);
      s4bxi::sleep_until(until);
      if (periods != nullptr)
        periods->ended_on_period = rounded;
    }
  }
}

// Whether a queue has an event landed at `at` (by default now).
inline Readiness eq_readiness(EventQueue* queue, double at = -1)
{
  if (queue == nullptr)
    return {true, kForever}; // freed meanwhile: let the caller report it
  if (queue->events.empty())
    return {false, kForever};
  double landing = queue->events.front().visible_at;
  return {landing <= (at < 0 ? sim_now() : at), landing};
}

inline Readiness ct_readiness(CountingEvent* counter, uint64_t test)
{
  if (counter == nullptr)
    return {true, kForever};
  const auto& value = counter->at(sim_now());
  if (value.success + value.failure >= test)
    return {true, kForever};
  return {false, counter->pending.empty() ? kForever : counter->pending.front().visible_at};
}

// Polls over several objects: the first ready one (its index in `found`), or
// the earliest landing among those with something on its way.
template <class ReadinessOf> Readiness first_ready(size_t count, int& found, ReadinessOf readiness_of)
{
  Readiness overall{false, kForever};
  for (size_t i = 0; i < count; ++i) {
    Readiness r = readiness_of(i);
    if (r.ready) {
      found = static_cast<int>(i);
      return r;
    }
    overall.next_landing = std::min(overall.next_landing, r.next_landing);
  }
  return overall;
}

inline ipc::Reply pop_event(EventQueue& queue)
{
  ipc::Reply reply{};
  reply.result.event = queue.events.front().event;
  queue.events.pop_front();
  reply.status = queue.dropped ? ipc::Status::EqDropped : ipc::Status::Ok;
  queue.dropped = false;
  return reply;
}

inline double deadline_after_ms(int64_t timeout_ms)
{
  return timeout_ms < 0 ? kForever : sim_now() + static_cast<double>(timeout_ms) * 1e-3;
}

} // namespace s4bxi::portals::detail
