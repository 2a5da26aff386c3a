#include "blocked_ranks.hpp"

#include <algorithm>

#include "call_sites.hpp"
#include "job_control.hpp"

#include <map>

namespace s4bxi::job {

namespace {

// Reading stacks costs a ptrace attach per rank: past this much wall time,
// the remaining ranks are reported without their call site.
constexpr double kCallSiteBudgetS = 10.0;
// Enough to reach the program from a Portals call made deep inside Open MPI
// (its progress loop, the MTL, the PML, the MPI entry).
constexpr unsigned kFramesRead = 24;

} // namespace

std::string rank_ranges(const std::vector<unsigned>& sorted_ranks)
{
  std::string text;
  for (size_t i = 0; i < sorted_ranks.size();) {
    size_t j = i;
    while (j + 1 < sorted_ranks.size() && sorted_ranks[j + 1] == sorted_ranks[j] + 1)
      ++j;
    text += (text.empty() ? "" : ", ") + std::to_string(sorted_ranks[i]);
    if (j > i)
      text += "-" + std::to_string(sorted_ranks[j]);
    i = j + 1;
  }
  return text;
}

std::string describe_blocked_ranks(World& world, const std::function<std::string(const RankPortals&)>& state)
{
  std::vector<RankPortals>& ranks = world.ranks;
  const double deadline = wall_clock_now() + kCallSiteBudgetS;
  std::map<std::string, std::vector<unsigned>> groups;
  std::vector<std::string> order; // groups by their lowest rank
  for (auto& rank : ranks) {
    std::string what = state(rank);
    // (A parked rank whose threads have lanes: the stack read would be one of theirs.)
    const bool lanes_open = std::any_of(world.lanes.begin(), world.lanes.end(),
                                        [&rank](const RankPortals& lane) { return lane.alive && lane.lane_called && lane.owner == &rank; });
    const bool in_call =
        rank.alive && rank.os_pid > 0 && rank.current_call != "user code" && not(rank.parked && lanes_open);
    if (in_call && wall_clock_now() < deadline)
      if (std::string site = describe_call_site(portals_call_stack(rank.os_pid, kFramesRead)); not site.empty()) {
        rank.call_site = site.substr(3); // without "at " (or "in " before an MPI call)
        what += " " + site;
      }
    auto& members = groups[what];
    if (members.empty())
      order.push_back(what);
    members.push_back(rank.rank);
  }
  // The threads with lanes of their own, each after its rank's words.
  for (const auto& lane : world.lanes) {
    if (not lane.alive || not lane.lane_called) // (a library's thread that never called Portals: not part of it)
      continue;
    const std::string what = "(its thread " + std::to_string(lane.os_tid) + " " + state(lane) + ")";
    auto& members = groups[what];
    if (members.empty())
      order.push_back(what);
    members.push_back(lane.rank);
  }
  std::string text;
  for (const auto& what : order) {
    const auto& members = groups[what];
    text += (text.empty() ? "" : "; ") + std::string(members.size() > 1 ? "ranks " : "rank ") +
            rank_ranges(members) + " " + what;
  }
  return text;
}

bool waits_without_end(const RankPortals& rank)
{
  if (rank.parked)
    return false;
  for (const char* wait : {"PtlEQWait", "PtlCTWait", "PMI barrier"})
    if (rank.current_call.rfind(wait, 0) == 0)
      return true;
  return false;
}

bool polls_in_blocking_mpi_call(const RankPortals& rank, std::string& call_site)
{
  const auto stack = portals_call_stack(rank.os_pid, kFramesRead);
  auto call = mpi_call_of(stack);
  call_site = describe_call_site(stack);
  return call && mpi_call_blocks(call->function);
}

} // namespace s4bxi::job
