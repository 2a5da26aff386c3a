#include "parked_ranks.hpp"

#include "stall_notice.hpp"

namespace s4bxi::job {

bool rang_or_ended(const RankPortals& rank)
{
  return rank.channel->request_bell.current() != rank.parked_bell ||
         (rank.channel->attention.load(std::memory_order_seq_cst) & (ipc::kAttentionEnded | ipc::kAttentionPmi)) != 0;
}

bool runs_outside_its_call(const RankPortals& rank)
{
  return any_thread_running(rank.os_pid, rank.channel->exchange_tid.load(std::memory_order_relaxed));
}

bool release_parked(World& world)
{
  if (world.parked_ranks == 0)
    return false;
  bool any = false;
  for (auto& rank : world.ranks)
    if (rank.parked && rang_or_ended(rank)) {
      rank.notify();
      any = true;
    }
  return any;
}

bool parked_may_wake(const World& world)
{
  std::vector<pid_t> job_pids;
  for (const auto& rank : world.ranks)
    job_pids.push_back(rank.os_pid);
  for (const auto& rank : world.ranks) {
    if (not rank.parked)
      continue;
    if (rang_or_ended(rank) || not asleep_in_kernel(rank.os_pid) || not blocked_on_job_pipe(rank.os_pid, job_pids))
      return true;
  }
  // Every parked rank reads a pipe of the job's: another rank that runs may write to it.
  for (const auto& rank : world.ranks)
    if (rank.alive && not rank.parked && runs_outside_its_call(rank))
      return true;
  return false;
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
