#include "other_load.hpp"

#include "stall_notice.hpp"

#include "other_processes.hpp" // (ipc/)

#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace s4bxi::job {

std::optional<unsigned> runnable_in_loadavg(std::string_view text)
{
  // Three load averages, then RUNNABLE/TASKS.
  std::size_t at = 0;
  for (int field = 0; field < 3; ++field) {
    at = text.find(' ', at);
    if (at == std::string_view::npos)
      return std::nullopt;
    ++at;
  }
  unsigned runnable = 0;
  const char* end = text.data() + text.size();
  const auto [next, error] = std::from_chars(text.data() + at, end, runnable);
  if (error != std::errc() || next == end || *next != '/')
    return std::nullopt;
  return runnable;
}

namespace {

std::optional<unsigned> machine_runnable()
{
  std::ifstream file("/proc/loadavg");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  return runnable_in_loadavg(text);
}

} // namespace

bool only_the_job_runs(pid_t server, std::span<const pid_t> ranks)
{
  // One look at a time: the machine's count, then the job's (until it
  // reaches the machine's, and no further than kMostRanksRead ranks: a long
  // wait of a large job costs a few milliseconds at most).
  for (int look = 0; look < kLooks; ++look) {
    const std::optional<unsigned> machine = machine_runnable();
    if (not machine)
      return false;
    unsigned job = threads_running(server);
    std::size_t read = 0;
    for (const pid_t rank : ranks) {
      if (job >= *machine || ++read > kMostRanksRead)
        break;
      job += main_thread_running(rank) ? 1 : 0;
    }
    if (*machine <= job)
      return true;
  }
  // The machine counted more at every look. A task of the job that wakes or
  // sleeps between the two reads is counted by one and not the other, and
  // the ranks' other threads (Open MPI's progress thread) by the machine
  // only: at the start of a 2-rank MPI sweep, looks of 2 on the machine
  // against 1 in the job, with no task outside the job runnable when every
  // process of the machine was read, marked 4 runs in 10. So the machine is
  // read process by process before the wait counts.
  return not ipc::another_process_runs(server, ranks);
}

} // namespace s4bxi::job
