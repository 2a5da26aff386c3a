#include "parked_ranks.hpp"

#include "job_control.hpp"
#include "stall_notice.hpp"

#include <algorithm>

namespace s4bxi::job {

bool rang_or_ended(const RankPortals& rank)
{
  return rank.request_bell().current() != rank.parked_bell ||
         (rank.attention().load(std::memory_order_seq_cst) & (ipc::kAttentionEnded | ipc::kAttentionPmi)) != 0;
}

bool released_from_park(const RankPortals& caller)
{
  if (caller.dormant())
    return caller.request_bell().current() != caller.parked_bell || not caller.process().alive;
  return rang_or_ended(caller);
}

ThreadSet threads_of(const World& world, const RankPortals& caller)
{
  if (caller.lane != nullptr) // (a thread in a call runs nothing of its own: none, then)
    return {.only = caller.thread_in_call() != 0 ? -1 : caller.os_tid, .except = {}};
  ThreadSet threads;
  if (const pid_t in_call = caller.thread_in_call(); in_call != 0)
    threads.except.push_back(in_call);
  for (const auto& lane : world.lanes)
    if (lane.alive && lane.owner == &caller)
      threads.except.push_back(lane.os_tid);
  return threads;
}

bool runs_outside_its_call(const World& world, const RankPortals& caller)
{
  return any_thread_running(caller.os_pid, threads_of(world, caller));
}

bool release_parked(World& world)
{
  if (world.parked_ranks == 0 && world.dormant_lanes == 0)
    return false;
  bool any = false;
  world.for_each_caller([&any](RankPortals& caller) {
    if (caller.parked && released_from_park(caller)) {
      caller.notify_parked();
      any = true;
    }
  });
  return any;
}

double latest_clock_read(const World& world)
{
  int64_t latest = 0;
  for (unsigned rank = 0; rank < world.processes->count(); ++rank)
    latest = std::max(latest, world.processes->channel(rank)->latest_clock_ns.load(std::memory_order_relaxed));
  return static_cast<double>(latest) * 1e-9;
}

namespace {

// A thread of the rank is in the crash handler (preload/crash_handler.cpp): it
// sleeps until the server has read its stack, and so may every other thread
// of the process, in a join: not a deadlock, the process ends. For at most
// this long after it was first seen (the handler waits 5 s at most), so that
// a stray write into the channel cannot hold the simulation.
constexpr double kCrashEndsWithinS = 10.0;

bool crashing(const RankPortals& rank)
{
  if (rank.channel->crash_signal.load(std::memory_order_acquire) == 0)
    return false;
  const double now = wall_clock_now();
  if (rank.crash_seen_s < 0)
    rank.crash_seen_s = now;
  return now - rank.crash_seen_s < kCrashEndsWithinS;
}

} // namespace

std::string why_parked_may_wake(const World& world)
{
  for (const auto& rank : world.ranks)
    if (rank.alive && rank.channel != nullptr && crashing(rank))
      return "a thread of rank " + std::to_string(rank.rank) + " is in its crash handler";
  // A thread took a lane that is not open yet: its call comes (the notice
  // that opens it may still be on its way).
  for (const auto& rank : world.ranks)
    if (rank.alive && rank.channel != nullptr)
      for (const auto& lane : rank.channel->lanes)
        if (lane.state.load(std::memory_order_acquire) == ipc::kLaneOpening)
          return "a thread of rank " + std::to_string(rank.rank) + " is about to make its first call";
  std::vector<pid_t> job_pids;
  for (const auto& rank : world.ranks)
    job_pids.push_back(rank.os_pid);
  std::string why;
  world.for_each_caller([&](const RankPortals& caller) {
    if (not why.empty() || not caller.parked || caller.dormant()) // (a dormant lane holds nothing up)
      return;
    const std::string who = "parked rank " + std::to_string(caller.rank);
    if (rang_or_ended(caller))
      why = who + " called or ended";
    else if (not asleep_in_kernel(caller.os_pid, threads_of(world, caller)))
      why = who + " runs";
    else if (not waits_only_for_the_job(caller.os_pid, threads_of(world, caller), job_pids))
      why = who + " waits for something outside the job";
  });
  if (not why.empty())
    return why;
  // Every parked caller reads a pipe of the job's: another one that runs may write to it.
  world.for_each_caller([&](const RankPortals& caller) {
    if (why.empty() && caller.alive && not caller.parked && runs_outside_its_call(world, caller))
      why = "rank " + std::to_string(caller.rank) + " runs outside its call";
  });
  return why;
}

std::string kernel_wait_of(const RankPortals& rank)
{
  // "blocked in the kernel in read(fd 5: pipe:[1234]), outside any emulated
  // call": deadlock reports say "rank 1 in read(...), outside ...".
  std::string what = what_process_does(rank.os_pid, process_cpu_s(rank.os_pid), rank.pmi_fd);
  for (std::string_view blocked : {"blocked in the kernel in ", "blocked "}) // "blocked in a PMI call": "in a PMI call"
    if (what.rfind(blocked, 0) == 0) {
      what.erase(0, blocked.size());
      break;
    }
  return what;
}

} // namespace s4bxi::job
