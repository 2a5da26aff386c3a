#include "local_polls.hpp"

#include "sim_clock.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace s4bxi::preload::local_polls {
namespace {

// Two readings of the same simulated time may differ by a rounding error
// (the server keeps seconds in doubles, the process nanoseconds): an outcome
// that depends on times closer than the margin is left to the server. Each
// step with compute widens it: the process truncates the compute to whole
// nanoseconds, the server does not (seen under load, where polls come with
// compute: the clocks drifted apart by a nanosecond a step, and an event
// landed within a period the process had found empty).
constexpr int64_t kRoundingNs = 2;
int64_t margin_ns = kRoundingNs;

struct MirroredEvent {
  int64_t visible_ns;
  ipc::Event event;
};

// (Fixed-size state only, with nothing to destroy: the process's last call
// may come from a destructor that runs after this file's statics are gone.)
struct Queue {
  ipc::Handle handle = ipc::kHandleInvalid;
  uint32_t beyond = 0; // events the mirror does not show
  bool dropped = false;
  uint32_t capacity = 0;
  MirroredEvent events[ipc::kMaxMirroredEvents]; // the first ones
  uint32_t taken = 0, mirrored = 0;              // of `events`

  [[nodiscard]] bool empty() const { return taken == mirrored; }
  [[nodiscard]] const MirroredEvent& front() const { return events[taken]; }
};

int64_t horizon_ns = 0; // of the latest reply (0: no local answers)
int64_t event_write_ns = 0; // of the latest reply: Reply::event_write_s
// Where the answered polls are published (Channel::published_polls), from the first reply.
ipc::PublishedPolls* publication = nullptr;
Queue queues_of_rank[ipc::kMaxMirroredQueues];
uint32_t queue_count = 0;
ipc::LocalPolls report;

// The server's poll streak, followed poll by poll from the latest reply: the
// process answers no empty poll that the server would have blocked (a
// blocked poll stands for several polls, so the program would see fewer).
struct Streak {
  uint32_t count = 0;
  ipc::Handle watched[2 * ipc::kMaxLocalPollQueues]{};
  uint32_t watched_count = 0;
  bool watched_known = true; // false: more objects than the reply could name
  // Objects of earlier streaks, most recent first, as the server keeps them.
  ipc::Handle earlier[ipc::kMaxEarlierPolled]{};
  uint32_t earlier_count = 0;
  bool earlier_known = true;

  [[nodiscard]] bool watches(ipc::Handle handle) const
  {
    return std::find(watched, watched + watched_count, handle) != watched + watched_count;
  }

  // An event found, or work between two polls: the server's
  // end_poll_streak (portals/api_polls.cpp) moves the watched objects to the
  // front of the earlier ones.
  void end()
  {
    ipc::Handle kept[ipc::kMaxEarlierPolled];
    uint32_t kept_count = 0;
    for (uint32_t i = watched_count; i-- > 0 && kept_count < ipc::kMaxEarlierPolled;)
      kept[kept_count++] = watched[i];
    for (uint32_t i = 0; i < earlier_count && kept_count < ipc::kMaxEarlierPolled; ++i)
      if (std::find(kept, kept + kept_count, earlier[i]) == kept + kept_count)
        kept[kept_count++] = earlier[i];
    // Beyond the kept ones the server drops the oldest too; what it drops
    // is known only if every object was known.
    earlier_known = earlier_known && watched_known;
    std::copy_n(kept, kept_count, earlier);
    earlier_count = kept_count;
    count = 0;
    watched_count = 0;
    watched_known = true;
  }
};
Streak streak;

using sim_clock::to_ns;

Queue* find(ipc::Handle handle)
{
  for (uint32_t i = 0; i < queue_count; ++i)
    if (queues_of_rank[i].handle == handle)
      return &queues_of_rank[i];
  return nullptr;
}

// The index of `queue` in the report's list, added if needed; -1 when full.
int reported(ipc::Handle queue)
{
  for (uint32_t i = 0; i < report.queue_count; ++i)
    if (report.queues[i] == queue)
      return static_cast<int>(i);
  if (report.queue_count == ipc::kMaxLocalPollQueues)
    return -1;
  report.queues[report.queue_count] = queue;
  return static_cast<int>(report.queue_count++);
}

// Which polled queue shows an event at `at`, as the server's check would
// (the first one in the polled order): its index, -1 for none, -2 when that
// depends on a rounding error or on events the mirror does not show.
int first_landed(std::span<Queue* const> polled, int64_t at)
{
  for (size_t i = 0; i < polled.size(); ++i) {
    const Queue& queue = *polled[i];
    if (queue.empty()) {
      if (queue.beyond > 0)
        return -2;
      continue;
    }
    const int64_t landing = queue.front().visible_ns;
    if (landing <= at - margin_ns)
      return static_cast<int>(i);
    if (landing <= at + margin_ns)
      return -2;
  }
  return -1;
}

// When a blocked poll that begins at `start` ends (portals/api_polls.cpp,
// charge_empty_poll): at the first landing of a watched queue's first event,
// rounded up to whole poll periods; -1 when the mirror cannot tell (a
// watched object it does not show, a counter, no landing before the
// horizon, a landing within a rounding error of a period's end). A queue of
// an earlier streak ends the block only with an event written after it
// began, which lands after the horizon.
int64_t block_ends(const Streak& counted, int64_t start, int64_t poll_cost_ns)
{
  if (not counted.watched_known || not counted.earlier_known)
    return -1;
  int64_t landing = INT64_MAX;
  for (uint32_t i = 0; i < counted.watched_count; ++i) {
    const Queue* queue = find(counted.watched[i]);
    if (queue == nullptr || queue->dropped)
      return -1;
    if (not queue->empty())
      landing = std::min(landing, queue->front().visible_ns);
    else if (queue->beyond > 0)
      return -1;
  }
  for (uint32_t i = 0; i < counted.earlier_count; ++i)
    if (find(counted.earlier[i]) == nullptr)
      return -1;
  if (landing == INT64_MAX || landing + margin_ns >= horizon_ns)
    return -1;
  if (landing <= start - margin_ns)
    return start; // already there: the block ends at once
  if (landing < start + margin_ns)
    return -1;
  if (poll_cost_ns <= 0)
    return landing;
  const int64_t blocked = landing - start;
  const int64_t part = blocked % poll_cost_ns;
  if (part < margin_ns || poll_cost_ns - part < margin_ns)
    return -1;
  return start + (blocked / poll_cost_ns + 1) * poll_cost_ns;
}

} // namespace

void on_reply(const ipc::Reply& reply, const ipc::QueueMirror& mirror, ipc::PublishedPolls& published)
{
  // The server claims nothing until it waits for the next request.
  publication = &published;
  publication->queue_count = 0;
  publication->count.store(0, std::memory_order_seq_cst);
  horizon_ns = reply.horizon > 0 ? to_ns(reply.horizon) : 0;
  event_write_ns = to_ns(reply.event_write_s);
  margin_ns = kRoundingNs;
  streak.count = reply.poll_streak.count;
  streak.watched_known = reply.poll_streak.watched_count <= ipc::kMaxLocalPollQueues;
  streak.watched_count = std::min(reply.poll_streak.watched_count, ipc::kMaxLocalPollQueues);
  std::copy_n(reply.poll_streak.watched, streak.watched_count, streak.watched);
  streak.earlier_known = reply.poll_streak.earlier_count <= ipc::kMaxEarlierPolled;
  streak.earlier_count = std::min(reply.poll_streak.earlier_count, ipc::kMaxEarlierPolled);
  std::copy_n(reply.poll_streak.earlier, streak.earlier_count, streak.earlier);
  queue_count = 0;
  if (horizon_ns == 0)
    return;
  // Read once, and checked: the mirror is in the process's own writable
  // channel, where a stray write of the program may have landed.
  const uint32_t listed = std::min(mirror.queue_count, ipc::kMaxMirroredQueues);
  const uint32_t events = std::min(mirror.event_count, ipc::kMaxMirroredEvents);
  for (uint32_t i = 0; i < listed; ++i) {
    const ipc::MirroredQueue& entry = mirror.queues[i];
    Queue& queue = queues_of_rank[queue_count++];
    queue.handle = entry.handle;
    queue.dropped = entry.dropped != 0;
    queue.capacity = entry.capacity;
    queue.taken = 0;
    queue.mirrored = 0;
    for (uint32_t e = 0; e < entry.mirrored && entry.first + e < events && e < ipc::kMaxMirroredEvents; ++e)
      queue.events[queue.mirrored++] = {to_ns(mirror.events[entry.first + e].visible_at),
                                        mirror.events[entry.first + e].event};
    queue.beyond = entry.events > queue.mirrored ? entry.events - queue.mirrored : 0;
  }
}

ipc::LocalPolls report_so_far()
{
  return report;
}

void end_streak()
{
  streak.end();
}

int64_t own_event_landing(int64_t at_ns)
{
  return at_ns + event_write_ns;
}

void note_own_call(int64_t at_ns)
{
  if (horizon_ns > 0)
    horizon_ns = std::min(horizon_ns, own_event_landing(at_ns));
}

namespace {

// Whether an event the NIC writes now for a call of the process's own, into
// `eq`, landing at `landing_ns`, can join the mirror: the NIC writes it after
// every event already in its queue (they land in the order they are written),
// and none it has not written yet lands before `horizon`. The queue must have
// room for it then: its events not taken by now, at most (the process may
// take some before it).
bool room_for_own_event(ipc::Handle eq, int64_t landing_ns, int64_t horizon)
{
  const Queue* queue = find(eq);
  return queue != nullptr && not queue->dropped && queue->beyond == 0 && queue->mirrored < ipc::kMaxMirroredEvents &&
         queue->mirrored - queue->taken < queue->capacity && landing_ns + margin_ns < horizon;
}

void add_own_event(ipc::Handle eq, int64_t landing_ns, const ipc::Event& event)
{
  if (Queue* queue = find(eq); queue != nullptr && queue->mirrored < ipc::kMaxMirroredEvents)
    queue->events[queue->mirrored++] = {landing_ns, event};
}

} // namespace

bool expects_own_put(const queued_puts::Forecast& forecast)
{
  if (horizon_ns == 0)
    return false;
  return not forecast.send_event ||
         room_for_own_event(forecast.eq, forecast.send_landing_ns, std::min(horizon_ns, forecast.own_events_ns));
}

void expect_own_put(const queued_puts::Forecast& forecast)
{
  if (forecast.send_event)
    add_own_event(forecast.eq, forecast.send_landing_ns, forecast.event);
  horizon_ns = std::min(horizon_ns, forecast.own_events_ns);
  streak.end();
}

bool expects_own_event(ipc::Handle eq, int64_t landing_ns)
{
  return horizon_ns > 0 && room_for_own_event(eq, landing_ns, horizon_ns);
}

void expect_own_event(ipc::Handle eq, int64_t landing_ns, const ipc::Event& event)
{
  add_own_event(eq, landing_ns, event);
}

int64_t rounding_margin_ns()
{
  return margin_ns;
}

void note_truncated_compute()
{
  margin_ns += 1;
}

ipc::LocalPolls take_report()
{
  ipc::LocalPolls taken = report;
  report = ipc::LocalPolls{};
  if (publication != nullptr) { // (no claim comes during the exchange that sends them)
    publication->queue_count = 0;
    publication->count.store(0, std::memory_order_seq_cst);
  }
  return taken;
}

Answer answer(std::span<const ipc::Handle> handles, bool wait, const ipc::ClockConfig& clock,
              ipc::LocalPollStep* steps)
{
  if (handles.empty() || handles.size() > ipc::kMaxLocalPollQueues || horizon_ns == 0 ||
      report.count >= ipc::kMaxLocalPolls)
    return {};
  Queue* polled_queues[ipc::kMaxLocalPollQueues];
  for (size_t i = 0; i < handles.size(); ++i) {
    Queue* queue = find(handles[i]);
    if (queue == nullptr || queue->dropped) // unknown, or a PTL_EQ_DROPPED to tell
      return {};
    polled_queues[i] = queue;
  }
  const std::span<Queue* const> polled(polled_queues, handles.size());
  const sim_clock::LocalStep planned = sim_clock::plan_local_step();
  if (not planned.possible)
    return {};
  const int64_t margin_before = margin_ns;
  if (planned.counted)
    note_truncated_compute();
  ipc::LocalPollStep step;
  step.compute_ns = planned.burst_cpu_ns;
  step.compute_counted = planned.counted ? 1 : 0;
  const ipc::LocalPolls before = report;
  auto refuse = [&] {
    report = before;
    margin_ns = margin_before;
    return Answer{};
  };
  for (ipc::Handle handle : handles) {
    const int index = reported(handle);
    if (index < 0)
      return refuse();
    step.polled = static_cast<uint8_t>(step.polled | (1U << index));
  }
  // The streak as the server will count it (portals/api_polls.cpp): work before
  // this poll ends the streak; an empty poll period counts in it (a queue
  // new to it restarts the count; when the watched objects are not all
  // known, none is taken for new: the count can only be higher than the
  // server's); an event found ends it.
  Streak counted = streak;
  if (planned.burst_cpu_ns > ipc::kWorkBetweenPollsNs)
    counted.end();
  auto count_empty = [&] {
    bool grew = false;
    for (ipc::Handle handle : handles)
      if (not counted.watches(handle)) {
        grew = grew || counted.watched_known;
        if (counted.watched_count < std::size(counted.watched))
          counted.watched[counted.watched_count++] = handle;
        else
          counted.watched_known = false;
      }
    counted.count = grew ? 1 : counted.count + 1;
  };
  // The step in the channel, then published (ipc::PublishedPolls): false
  // when the server claimed the steps before it, and the poll is its to answer.
  auto publish = [&] {
    const uint32_t index = report.count;
    steps[index] = step;
    if (publication == nullptr)
      return false;
    for (uint32_t i = publication->queue_count; i < report.queue_count; ++i)
      publication->queues[i] = report.queues[i];
    publication->queue_count = report.queue_count;
    uint32_t expected = index;
    if (not publication->count.compare_exchange_strong(expected, index + 1, std::memory_order_seq_cst))
      return false;
    report.count = index + 1;
    return true;
  };
  auto take = [&](ipc::LocalPollStep::Kind kind, unsigned which, int64_t end_ns) {
    step.kind = kind;
    step.taken = static_cast<uint8_t>(reported(handles[which]));
    if (not publish())
      return refuse();
    Answer answer{Answer::Event, polled[which]->front().event, which};
    polled[which]->taken++;
    sim_clock::take_local_step(planned, end_ns);
    counted.end();
    streak = counted;
    return answer;
  };
  auto nothing = [&](ipc::LocalPollStep::Kind kind, int64_t end_ns) {
    step.kind = kind;
    if (not publish())
      return refuse();
    sim_clock::take_local_step(planned, end_ns);
    streak = counted;
    return Answer{Answer::Empty, {}, 0};
  };

  // An event that has landed is taken at once.
  const int64_t start = planned.start_ns;
  const int now = first_landed(polled, start);
  if (now >= 0)
    return take(ipc::LocalPollStep::FoundAtOnce, static_cast<unsigned>(now), start);
  if (now == -2 || wait)
    return refuse();

  // A poll period, before the horizon: at its end an event has landed, or
  // the queues are still empty.
  const int64_t end = start + clock.poll_cost_ns;
  const int after = end + margin_ns < horizon_ns ? first_landed(polled, end) : -2;
  if (after == -2)
    return refuse();
  count_empty();
  if (after >= 0)
    return take(ipc::LocalPollStep::FoundAfterCost, static_cast<unsigned>(after), end);
  if (clock.poll_block_after > 0 && counted.count >= static_cast<uint64_t>(clock.poll_block_after)) {
    // The server blocks this poll until a watched object changes: known
    // here only when the mirror shows which event ends the block. Only
    // without simulated compute for now: with it, under load, a poll the
    // process took for blocked was seen not to block in the server (its
    // streak counted fewer polls), for a cause not found yet.
    if (clock.cpu_factor > 0)
      return refuse();
    const int64_t block_end = block_ends(counted, end, clock.poll_cost_ns);
    if (block_end < 0)
      return refuse();
    const int found = first_landed(polled, block_end);
    if (found == -2)
      return refuse();
    if (found >= 0)
      return take(ipc::LocalPollStep::FoundAfterBlock, static_cast<unsigned>(found), block_end);
    counted.count = 0; // the block stood for the polls: the next empty one counts from zero
    return nothing(ipc::LocalPollStep::EmptyAfterBlock, block_end);
  }
  return nothing(ipc::LocalPollStep::Empty, end);
}

} // namespace s4bxi::preload::local_polls
