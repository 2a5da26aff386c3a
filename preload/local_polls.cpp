#include "local_polls.hpp"

#include "sim_clock.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace s4bxi::preload::local_polls {
namespace {

// The rank's event queues: a handle is known valid from the reply of its
// PtlEQAlloc until its PtlEQFree (or the end of its NI). A poll of anything
// else goes to the server, which says what is wrong with it.
std::vector<ipc::Handle> queues_known;
int64_t horizon_ns = 0; // of the latest reply (0: none)
ipc::LocalPolls report;

// The server's poll streak, followed poll by poll from the latest reply: the
// process answers no poll that the server would have blocked (a blocked poll
// stands for several polls, so the program would see fewer empty ones).
struct Streak {
  uint32_t count = 0;
  std::vector<ipc::Handle> watched;
  bool watched_known = true; // false: more objects than the reply could name
};
Streak streak;

bool contains(const std::vector<ipc::Handle>& handles, ipc::Handle handle)
{
  return std::find(handles.begin(), handles.end(), handle) != handles.end();
}

// Adds `queue` to the report's list; false when the list is full.
bool reported(ipc::Handle queue)
{
  const auto begin = report.queues;
  const auto end = report.queues + report.queue_count;
  if (std::find(begin, end, queue) != end)
    return true;
  if (report.queue_count == ipc::kMaxLocalPollQueues)
    return false;
  report.queues[report.queue_count++] = queue;
  return true;
}

} // namespace

void on_exchange(const ipc::Request& request, const ipc::Reply& reply)
{
  horizon_ns = std::llround(reply.horizon * 1e9);
  streak.count = reply.poll_streak.count;
  streak.watched_known = reply.poll_streak.watched_count <= ipc::kMaxLocalPollQueues;
  streak.watched.assign(reply.poll_streak.watched,
                        reply.poll_streak.watched + std::min(reply.poll_streak.watched_count, ipc::kMaxLocalPollQueues));
  switch (request.op) {
    case ipc::Op::EQAlloc:
      if (reply.status == ipc::Status::Ok)
        queues_known.push_back(reply.result.handle);
      break;
    case ipc::Op::EQFree:
      std::erase(queues_known, request.args.handle.handle);
      break;
    case ipc::Op::NIFini:
    case ipc::Op::Fini:
      // The queues of that NI (or of every NI) may be gone: learn them again.
      queues_known.clear();
      break;
    default: break;
  }
}

ipc::LocalPolls take_report()
{
  ipc::LocalPolls taken = report;
  report = ipc::LocalPolls{};
  return taken;
}

bool answer_empty(std::span<const ipc::Handle> queues, int64_t poll_cost_ns, int64_t poll_block_after)
{
  if (queues.empty() || report.count >= ipc::kMaxLocalPolls)
    return false;
  for (ipc::Handle queue : queues)
    if (not contains(queues_known, queue))
      return false;
  const sim_clock::LocalStep step = sim_clock::plan_local_step(poll_cost_ns, horizon_ns);
  if (not step.possible)
    return false;
  // The streak as the server would count this poll (portals/api.cpp): work
  // before it ends the streak; a queue new to it restarts the count. When
  // the watched objects are not all known, none is taken for new: the
  // count can only be higher than the server's, never lower.
  Streak after = streak;
  if (step.burst_cpu_ns > ipc::kWorkBetweenPollsNs)
    after = Streak{};
  bool grew = false;
  for (ipc::Handle queue : queues)
    if (not contains(after.watched, queue)) {
      grew = grew || after.watched_known;
      after.watched.push_back(queue);
    }
  after.count = grew ? 1 : after.count + 1;
  if (poll_block_after > 0 && after.count >= static_cast<uint64_t>(poll_block_after))
    return false; // it blocks in the server
  // The report must name every queue these polls watched.
  const ipc::LocalPolls before = report;
  for (ipc::Handle queue : queues)
    if (not reported(queue)) {
      report = before;
      return false;
    }
  sim_clock::take_local_step(step);
  streak = std::move(after);
  report.count++;
  report.streak_count = streak.count;
  report.compute_ns += step.counted_cpu_ns;
  report.longest_burst_ns = std::max(report.longest_burst_ns, step.burst_cpu_ns);
  return true;
}

} // namespace s4bxi::preload::local_polls
