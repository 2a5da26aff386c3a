// A rank thread's CPU time as the kernel counts it (sum_exec_runtime, the
// clock behind CLOCK_THREAD_CPUTIME_ID), read by the server from /proc
// while the thread runs: how far a computing rank has come (s4bxi/run-ahead).
#pragma once

#include <cstdint>
#include <optional>
#include <sys/types.h>

namespace s4bxi::job {

class ThreadCpuClock {
public:
  ThreadCpuClock(pid_t pid, pid_t tid) : pid_(pid), tid_(tid) {}
  ~ThreadCpuClock();
  ThreadCpuClock(const ThreadCpuClock&) = delete;
  ThreadCpuClock& operator=(const ThreadCpuClock&) = delete;

  // Nanoseconds of CPU time, or nothing once the thread is gone.
  std::optional<uint64_t> read_ns();

private:
  pid_t pid_;
  pid_t tid_;
  int fd_ = -1; // /proc/PID/task/TID/schedstat, opened at the first read
};

} // namespace s4bxi::job
