// Whether a process outside the job wants a CPU now: what tells a waiter
// kept off its CPU by other load from one kept off by the job's own
// processes (ipc::CpuContention::explain_with).
//
// The job is the server and its ranks: named (the server knows them), or
// the server's children (a rank knows only its parent). A process that is
// none of these, nor one of the kernel's own threads (kthreadd and its children),
// and has a thread that runs or is runnable, is other load. Every process of
// the machine is read, one /proc/PID/stat each (and the threads of those
// with several): about a millisecond for 70 processes here, so a waiter asks
// only when it would mark the job contended.
//
// Called from a rank's waiter, which may be in the sync timer's signal
// handler: system calls and the stack only (no allocation, no stdio).
#pragma once

#include "proc_stat.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <fcntl.h>
#include <span>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

namespace s4bxi::ipc {

namespace other_processes_detail {

// A name of /proc that is a number (a process, or a thread in task/).
inline bool numeric_name(const char* name, long& value)
{
  value = 0;
  if (*name == '\0')
    return false;
  for (; *name != '\0'; ++name) {
    if (*name < '0' || *name > '9')
      return false;
    value = value * 10 + (*name - '0');
  }
  return true;
}

// What a stat file (/proc/PID/stat, /proc/PID/task/TID/stat) says: the
// state, the parent, the thread count. False when it cannot be read (the
// process ended meanwhile).
struct Stat {
  char state = '?';
  long parent = 0;
  long threads = 0;
};

inline bool read_stat(const char* path, Stat& stat)
{
  char text[1024];
  const std::size_t length = proc_stat::read_file(path, text, sizeof text);
  const char* state = proc_stat::field(text, length, 3);
  if (state == nullptr || proc_stat::field(text, length, 20) == nullptr)
    return false;
  stat.state = *state;
  stat.parent = static_cast<long>(proc_stat::number(text, length, 4));
  stat.threads = static_cast<long>(proc_stat::number(text, length, 20));
  return true;
}

// Calls `each(name)` for each entry of the directory at `path`; stops at the
// first that returns true, and returns true then.
template <class Each> bool any_entry(const char* path, Each each)
{
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd < 0)
    return false;
  alignas(8) char buffer[4096];
  bool found = false;
  while (not found) {
    const long got = syscall(SYS_getdents64, fd, buffer, sizeof buffer);
    if (got <= 0)
      break;
    for (long offset = 0; offset < got && not found;) {
      // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name.
      unsigned short length = 0;
      __builtin_memcpy(&length, buffer + offset + 16, sizeof length);
      found = each(buffer + offset + 19);
      offset += length;
    }
  }
  syscall(SYS_close, fd);
  return found;
}

// Appends `text`, or a number, at `at` (a path of at most 256 bytes).
inline char* append(char* at, const char* text)
{
  while (*text != '\0')
    *at++ = *text++;
  *at = '\0';
  return at;
}
inline char* append(char* at, long number)
{
  char digits[24];
  int count = 0;
  do {
    digits[count++] = static_cast<char>('0' + number % 10);
    number /= 10;
  } while (number > 0);
  while (count > 0)
    *at++ = digits[--count];
  *at = '\0';
  return at;
}

} // namespace other_processes_detail

// Whether a process that is not the job's (`server`, the `ranks`, and with
// `children_too` every child of `server`) nor the kernel's has a thread
// running or runnable now. (`proc`: where the processes are listed; another
// tree for tests, of at most 128 bytes.)
inline bool another_process_runs(pid_t server, std::span<const pid_t> ranks, bool children_too = false,
                                 const char* proc = "/proc")
{
  using namespace other_processes_detail;
  constexpr long kKernelThreads = 2; // kthreadd
  return any_entry(proc, [&](const char* name) {
    long pid = 0;
    if (not numeric_name(name, pid) || pid == server || pid == kKernelThreads)
      return false;
    for (const pid_t rank : ranks)
      if (pid == rank)
        return false;
    char path[256];
    char* after_pid = append(append(append(path, proc), "/"), pid);
    append(after_pid, "/stat");
    Stat stat;
    if (not read_stat(path, stat) || (children_too && stat.parent == server) || stat.parent == kKernelThreads)
      return false;
    if (stat.state == 'R')
      return true;
    if (stat.threads <= 1)
      return false;
    char* after_task = append(after_pid, "/task/");
    char tasks[256];
    append(tasks, path);
    return any_entry(tasks, [&](const char* task) {
      long tid = 0;
      if (not numeric_name(task, tid) || tid == pid)
        return false;
      append(append(after_task, tid), "/stat"); // "/proc/PID/task/TID/stat"
      Stat thread;
      return read_stat(path, thread) && thread.state == 'R';
    });
  });
}

// One look at the machine for a whole job: whether the job's own load
// explains a waiter's long wait at `now` (ticks). `other_load_runs` reads the
// machine (true: a process outside the job wants a CPU); the processes that
// share `explained_until` and `looking_since` (SharedScheduling) call it at
// most once per `hold` ticks between them, one at a time (the others take
// their waits as explained meanwhile); a look begun `stale` ticks ago or more
// is taken over (its process died in it).
template <class Look>
bool own_load_explains(std::atomic<uint64_t>& explained_until, std::atomic<uint64_t>& looking_since, uint64_t now,
                       uint64_t hold, uint64_t stale, Look&& other_load_runs)
{
  if (now < explained_until.load(std::memory_order_relaxed))
    return true;
  uint64_t looking = looking_since.load(std::memory_order_relaxed);
  // (Another process's clock may read a little ahead of ours.)
  if (looking != 0 && (now < looking || now - looking < stale))
    return true;
  if (not looking_since.compare_exchange_strong(looking, now, std::memory_order_acq_rel))
    return true; // another process began to look meanwhile
  const bool other_load = other_load_runs();
  if (not other_load)
    explained_until.store(now + hold, std::memory_order_relaxed);
  looking_since.store(0, std::memory_order_release);
  return not other_load;
}

} // namespace s4bxi::ipc
