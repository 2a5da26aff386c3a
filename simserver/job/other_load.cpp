#include "other_load.hpp"

#include "stall_notice.hpp"

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
  const std::optional<unsigned> machine = machine_runnable();
  if (not machine)
    return false;
  unsigned job = threads_running(server);
  // (Read until the job's count reaches the machine's, and no further than
  // kMostRanksRead ranks: a long wait of a large job costs a few
  // milliseconds at most.)
  std::size_t read = 0;
  for (const pid_t rank : ranks) {
    if (job >= *machine || ++read > kMostRanksRead)
      break;
    job += main_thread_running(rank) ? 1 : 0;
  }
  if (*machine <= job)
    return true;
  // Counted again after the job's threads: a task runnable only for a moment
  // (one of the job's that has gone to sleep since, a kernel thread) is
  // seldom runnable at both counts; a process that wants a CPU is.
  const std::optional<unsigned> again = machine_runnable();
  return again && *again <= job;
}

} // namespace s4bxi::job
