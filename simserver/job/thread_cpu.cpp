#include "thread_cpu.hpp"

#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace s4bxi::job {

ThreadCpuClock::~ThreadCpuClock()
{
  if (fd_ >= 0)
    close(fd_);
}

std::optional<uint64_t> ThreadCpuClock::read_ns()
{
  if (fd_ < 0) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/task/%d/schedstat", pid_, tid_);
    fd_ = open(path, O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
      return std::nullopt;
  }
  // "<ns on the CPU> <ns waiting for it> <timeslices>": the first field.
  char text[96];
  const ssize_t got = pread(fd_, text, sizeof text - 1, 0);
  if (got <= 0)
    return std::nullopt;
  text[got] = 0;
  return std::strtoull(text, nullptr, 10);
}

} // namespace s4bxi::job
