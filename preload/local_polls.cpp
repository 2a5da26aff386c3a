#include "local_polls.hpp"

#include "sim_clock.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace s4bxi::preload::local_polls {
namespace {

// Two readings of the same simulated time may differ by a rounding error
// (the server keeps seconds in doubles, the process nanoseconds): an outcome
// that depends on times closer than this is left to the server.
constexpr int64_t kRoundingNs = 2;

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
  MirroredEvent events[ipc::kMaxMirroredEvents]; // the first ones
  uint32_t taken = 0, mirrored = 0;              // of `events`

  [[nodiscard]] bool empty() const { return taken == mirrored; }
  [[nodiscard]] const MirroredEvent& front() const { return events[taken]; }
};

int64_t horizon_ns = 0; // of the latest reply (0: no local answers)
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

  [[nodiscard]] bool watches(ipc::Handle handle) const
  {
    return std::find(watched, watched + watched_count, handle) != watched + watched_count;
  }
};
Streak streak;

int64_t to_ns(double seconds)
{
  return std::llround(seconds * 1e9);
}

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
    if (landing <= at - kRoundingNs)
      return static_cast<int>(i);
    if (landing <= at + kRoundingNs)
      return -2;
  }
  return -1;
}

} // namespace

void on_reply(const ipc::Reply& reply, const ipc::QueueMirror& mirror)
{
  horizon_ns = reply.horizon > 0 ? to_ns(reply.horizon) : 0;
  streak.count = reply.poll_streak.count;
  streak.watched_known = reply.poll_streak.watched_count <= ipc::kMaxLocalPollQueues;
  streak.watched_count = std::min(reply.poll_streak.watched_count, ipc::kMaxLocalPollQueues);
  std::copy_n(reply.poll_streak.watched, streak.watched_count, streak.watched);
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
    queue.taken = 0;
    queue.mirrored = 0;
    for (uint32_t e = 0; e < entry.mirrored && entry.first + e < events && e < ipc::kMaxMirroredEvents; ++e)
      queue.events[queue.mirrored++] = {to_ns(mirror.events[entry.first + e].visible_at),
                                        mirror.events[entry.first + e].event};
    queue.beyond = entry.events > queue.mirrored ? entry.events - queue.mirrored : 0;
  }
}

ipc::LocalPolls take_report()
{
  ipc::LocalPolls taken = report;
  report = ipc::LocalPolls{};
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
  ipc::LocalPollStep step;
  step.compute_ns = planned.burst_cpu_ns;
  step.compute_counted = planned.counted ? 1 : 0;
  const ipc::LocalPolls before = report;
  for (ipc::Handle handle : handles) {
    const int index = reported(handle);
    if (index < 0) {
      report = before;
      return {};
    }
    step.polled = static_cast<uint8_t>(step.polled | (1U << index));
  }
  auto take = [&](unsigned which, int64_t end_ns) {
    Answer answer{Answer::Event, polled[which]->front().event, which};
    polled[which]->taken++;
    step.taken = static_cast<uint8_t>(reported(handles[which]));
    sim_clock::take_local_step(planned, end_ns);
    streak = Streak{}; // an event found ends the streak
    steps[report.count++] = step;
    return answer;
  };

  // An event that has landed is taken at once.
  const int64_t start = planned.start_ns;
  const int now = first_landed(polled, start);
  if (now >= 0) {
    step.kind = ipc::LocalPollStep::FoundAtOnce;
    return take(static_cast<unsigned>(now), start);
  }
  if (now == -2 || wait) {
    report = before;
    return {};
  }

  // A poll period, before the horizon: at its end an event has landed, or
  // the queues are still empty.
  const int64_t end = start + clock.poll_cost_ns;
  const int after = end + kRoundingNs < horizon_ns ? first_landed(polled, end) : -2;
  if (after >= 0) {
    step.kind = ipc::LocalPollStep::FoundAfterCost;
    return take(static_cast<unsigned>(after), end);
  }
  if (after == -2) {
    report = before;
    return {};
  }
  // Empty, unless the server would block this poll: the streak as it would
  // count it (portals/api.cpp): work before it ends the streak; a queue new
  // to it restarts the count. When the watched objects are not all known,
  // none is taken for new: the count can only be higher than the server's.
  Streak counted = streak;
  if (planned.burst_cpu_ns > ipc::kWorkBetweenPollsNs)
    counted = Streak{};
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
  if (clock.poll_block_after > 0 && counted.count >= static_cast<uint64_t>(clock.poll_block_after)) {
    report = before;
    return {};
  }
  streak = counted;
  step.kind = ipc::LocalPollStep::Empty;
  sim_clock::take_local_step(planned, end);
  steps[report.count++] = step;
  return {Answer::Empty, {}, 0};
}

} // namespace s4bxi::preload::local_polls
