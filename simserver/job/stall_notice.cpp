#include "stall_notice.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::job {

namespace {

const char* syscall_name(long number)
{
  switch (number) {
    case SYS_read: return "read";
    case SYS_write: return "write";
    case SYS_poll: return "poll";
    case SYS_select: return "select";
    case SYS_pselect6: return "pselect6";
    case SYS_ppoll: return "ppoll";
    case SYS_nanosleep: return "nanosleep";
    case SYS_clock_nanosleep: return "clock_nanosleep";
    case SYS_wait4: return "wait4";
    case SYS_waitid: return "waitid";
    case SYS_futex: return "futex";
    case SYS_epoll_wait: return "epoll_wait";
    case SYS_epoll_pwait: return "epoll_pwait";
    case SYS_accept: return "accept";
    case SYS_accept4: return "accept4";
    case SYS_connect: return "connect";
    case SYS_recvfrom: return "recvfrom";
    case SYS_recvmsg: return "recvmsg";
    case SYS_sendto: return "sendto";
    case SYS_sendmsg: return "sendmsg";
    case SYS_pause: return "pause";
    case SYS_rt_sigsuspend: return "sigsuspend";
    case SYS_rt_sigtimedwait: return "sigtimedwait";
    case SYS_flock: return "flock";
    case SYS_fcntl: return "fcntl";
    default: return nullptr;
  }
}

// The calls whose first argument is a file descriptor worth naming.
bool takes_descriptor(long number)
{
  return number == SYS_read || number == SYS_write || number == SYS_accept || number == SYS_accept4 ||
         number == SYS_connect || number == SYS_recvfrom || number == SYS_recvmsg || number == SYS_sendto ||
         number == SYS_sendmsg || number == SYS_flock || number == SYS_fcntl;
}

// /proc/PID/syscall: "running", or the system call's number and arguments
// (hexadecimal) that the main thread sleeps in.
struct SyscallLine {
  std::string first;
  std::string argument; // its first argument
};

SyscallLine syscall_line(pid_t pid)
{
  std::ifstream file("/proc/" + std::to_string(pid) + "/syscall");
  SyscallLine line;
  file >> line.first >> line.argument;
  return line;
}

// What descriptor `fd_hex` (hexadecimal, as /proc/PID/syscall gives it) of
// `pid` names ("pipe:[123]", "/dev/pts/0"); empty if it cannot be read.
std::string descriptor_target(pid_t pid, const std::string& fd_hex)
{
  try {
    const long fd = std::stol(fd_hex, nullptr, 16);
    char target[256] = {};
    if (readlink(("/proc/" + std::to_string(pid) + "/fd/" + std::to_string(fd)).c_str(), target,
                 sizeof target - 1) > 0)
      return target;
  } catch (...) {
  }
  return {};
}

// The fields of /proc/.../stat after the process name, which may hold spaces.
std::string stat_fields(const std::filesystem::path& stat_file)
{
  std::ifstream stat(stat_file);
  std::string text;
  try {
    text.assign(std::istreambuf_iterator<char>(stat), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    // The thread ended between opening and reading: the read fails (ESRCH),
    // and a stream buffer's read error is thrown, not flagged.
    return {};
  }
  const auto end_of_name = text.rfind(')');
  return end_of_name == std::string::npos || end_of_name + 2 > text.size() ? std::string()
                                                                           : text.substr(end_of_name + 2);
}

} // namespace

namespace {

// Whether the pipe `pipe` ("pipe:[123]") is held by the processes in `job_pids` only.
bool only_the_job_holds(const std::string& pipe, const std::vector<pid_t>& job_pids)
{
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const pid_t holder = static_cast<pid_t>(std::stol(name));
    bool holds = false;
    std::error_code fd_error;
    for (const auto& fd : std::filesystem::directory_iterator(entry.path() / "fd", fd_error)) {
      char target[256] = {};
      if (readlink(fd.path().c_str(), target, sizeof target - 1) > 0 && pipe == target) {
        holds = true;
        break;
      }
    }
    if (holds && std::find(job_pids.begin(), job_pids.end(), holder) == job_pids.end())
      return false;
  }
  return true;
}

// A thread (its /proc/PID/task/TID/syscall file) waits for what only the
// job can do: a read of a pipe only the job holds, or a futex wait without a
// timeout (a mutex, a condition, a join: another thread of the job wakes it).
bool waits_for_the_job(pid_t pid, const std::filesystem::path& syscall_file, const std::vector<pid_t>& job_pids)
{
  std::ifstream file(syscall_file);
  std::string number;
  std::string arguments[4];
  file >> number >> arguments[0] >> arguments[1] >> arguments[2] >> arguments[3];
  if (number == std::to_string(SYS_futex)) {
    try {
      constexpr long kFutexCommand = 0x7f; // less FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME
      constexpr long kFutexWait = 0;
      constexpr long kFutexWaitBitset = 9;
      const long command = std::stol(arguments[1], nullptr, 16) & kFutexCommand;
      return (command == kFutexWait || command == kFutexWaitBitset) && std::stol(arguments[3], nullptr, 16) == 0;
    } catch (...) {
      return false;
    }
  }
  if (number != std::to_string(SYS_read))
    return false;
  const std::string pipe = descriptor_target(pid, arguments[0]);
  return pipe.rfind("pipe:[", 0) == 0 && only_the_job_holds(pipe, job_pids);
}

} // namespace

bool blocked_on_job_pipe(pid_t pid, const std::vector<pid_t>& job_pids)
{
  const SyscallLine line = syscall_line(pid);
  if (line.first != std::to_string(SYS_read))
    return false;
  const std::string pipe = descriptor_target(pid, line.argument);
  return pipe.rfind("pipe:[", 0) == 0 && only_the_job_holds(pipe, job_pids);
}

bool ThreadSet::includes(pid_t tid) const
{
  if (only != 0)
    return tid == only;
  return std::find(except.begin(), except.end(), tid) == except.end();
}

namespace {

// Calls `look` with the /proc path of each thread of `pid` in `threads`;
// stops at the first that returns false (and returns false).
template <class Look>
bool each_thread(pid_t pid, const ThreadSet& threads, Look look)
{
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    pid_t tid = 0;
    try {
      tid = static_cast<pid_t>(std::stol(task.path().filename().string()));
    } catch (...) {
      continue;
    }
    if (threads.includes(tid) && not look(task.path()))
      return false;
  }
  return true;
}

} // namespace

bool thread_exists(pid_t pid, pid_t tid)
{
  std::error_code error;
  return std::filesystem::exists("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid), error);
}

bool any_thread_running(pid_t pid, const ThreadSet& threads)
{
  // (The state comes first in the fields.)
  return not each_thread(pid, threads, [](const std::filesystem::path& task) {
    return stat_fields(task / "stat").rfind('R', 0) != 0;
  });
}

unsigned threads_running(pid_t pid, const ThreadSet& threads)
{
  unsigned running = 0;
  each_thread(pid, threads, [&running](const std::filesystem::path& task) {
    running += stat_fields(task / "stat").rfind('R', 0) == 0 ? 1 : 0;
    return true;
  });
  return running;
}

bool main_thread_running(pid_t pid)
{
  return stat_fields("/proc/" + std::to_string(pid) + "/stat").rfind('R', 0) == 0;
}

bool asleep_in_kernel(pid_t pid, const ThreadSet& threads)
{
  bool any = false;
  const bool all_asleep = each_thread(pid, threads, [&any](const std::filesystem::path& task) {
    if (stat_fields(task / "stat").rfind('S', 0) != 0)
      return false;
    std::ifstream syscall_file(task / "syscall");
    long number = -1;
    if (syscall_file >> number && (number == SYS_write || number == SYS_writev || number == SYS_pwrite64 ||
                                   number == SYS_sendto || number == SYS_sendmsg))
      return false;
    any = true;
    return true;
  });
  return all_asleep && any;
}

bool waits_only_for_the_job(pid_t pid, const ThreadSet& threads, const std::vector<pid_t>& job_pids)
{
  bool any = false;
  const bool all = each_thread(pid, threads, [&](const std::filesystem::path& task) {
    any = true;
    return waits_for_the_job(pid, task / "syscall", job_pids);
  });
  return all && any;
}

double process_cpu_s(pid_t pid)
{
  std::istringstream fields(stat_fields("/proc/" + std::to_string(pid) + "/stat"));
  std::string field;
  unsigned long user = 0, system = 0;
  // Fields 3 onwards; utime and stime are fields 14 and 15.
  for (int index = 3; index <= 15 && fields >> field; ++index) {
    if (index == 14)
      user = std::stoul(field);
    if (index == 15)
      system = std::stoul(field);
  }
  return static_cast<double>(user + system) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string what_process_does(pid_t pid, double cpu_at_last_call_s, int pmi_fd)
{
  const SyscallLine line = syscall_line(pid);
  if (line.first.empty())
    return "in an unknown state";
  if (line.first == "running") {
    char text[128];
    std::snprintf(text, sizeof text, "running without calling anything (%.1f s of CPU time since its last call)",
                  process_cpu_s(pid) - cpu_at_last_call_s);
    return text;
  }
  long number = -1;
  try {
    number = std::stol(line.first);
  } catch (...) {
    return "in an unknown state";
  }
  std::string call = syscall_name(number) != nullptr ? syscall_name(number) : "system call " + std::to_string(number);
  if (number == SYS_futex) {
    call += "(" + line.argument + ")"; // the futex word's address
  } else if (takes_descriptor(number)) {
    const std::string target = descriptor_target(pid, line.argument);
    try {
      const long fd = std::stol(line.argument, nullptr, 16);
      call += "(fd " + std::to_string(fd) + (target.empty() ? std::string() : ": " + target) + ")";
      if (fd == pmi_fd && pmi_fd >= 0)
        return "blocked in a PMI call (" + call + ", its PMI socket)";
    } catch (...) {
    }
  }
  return "blocked in the kernel in " + call + ", outside any emulated call";
}

} // namespace s4bxi::job
