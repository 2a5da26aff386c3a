// Reading a process's /proc stat file with system calls and the stack only
// (no allocation, no stdio): a rank reads its own, and those of the machine's
// processes, possibly in the sync timer's signal handler
// (preload/own_memory.cpp, ipc/other_processes.hpp).
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::ipc::proc_stat {

// Reads the file at `path` into `buffer`, up to `size` bytes: how many it
// read (0 when it cannot be read: the process ended meanwhile). errno is
// left as it was.
inline std::size_t read_file(const char* path, char* buffer, std::size_t size)
{
  const int saved_errno = errno;
  std::size_t length = 0;
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC));
  if (fd >= 0) {
    while (length < size) {
      const long got = syscall(SYS_read, fd, buffer + length, size - length);
      if (got <= 0)
        break;
      length += static_cast<std::size_t>(got);
    }
    syscall(SYS_close, fd);
  }
  errno = saved_errno;
  return length;
}

// Where field `number` of a stat file's text starts, in proc(5)'s numbering
// (3: the state, 4: the parent, 20: the thread count, 28: startstack, 47:
// start_brk), counted after the command name, which may hold spaces and
// parentheses (the last ')' ends it); nullptr when the text has no such field.
inline const char* field(const char* text, std::size_t length, unsigned number)
{
  const char* end = text + length;
  const char* at = end;
  while (at > text && at[-1] != ')')
    --at;
  if (at == text)
    return nullptr;
  for (unsigned current = 3;; ++current) {
    while (at < end && *at == ' ')
      ++at;
    if (at == end)
      return nullptr;
    if (current == number)
      return at;
    while (at < end && *at != ' ')
      ++at;
  }
}

// The decimal value of field `number` (0 when there is none).
inline uint64_t number(const char* text, std::size_t length, unsigned number)
{
  const char* end = text + length;
  uint64_t value = 0;
  for (const char* at = field(text, length, number); at != nullptr && at < end && *at >= '0' && *at <= '9'; ++at)
    value = value * 10 + static_cast<uint64_t>(*at - '0');
  return value;
}

} // namespace s4bxi::ipc::proc_stat
