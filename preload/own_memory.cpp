#include "own_memory.hpp"

#include "proc_stat.hpp"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <unistd.h>

namespace s4bxi::preload::own_memory {
namespace {

// getpid() is a system call (glibc caches nothing since 2.25): once per
// process, not once per Put, whose capture was the process's one other
// system call (a sixth of a rank's own work in an 8 B ping-pong).
std::atomic<pid_t> own_pid{0};

pid_t pid()
{
  pid_t known = own_pid.load(std::memory_order_relaxed);
  if (known == 0) {
    known = getpid();
    own_pid.store(known, std::memory_order_relaxed);
  }
  return known;
}

// The kernel puts no mapping within 128 MiB below the top of the main
// thread's stack (its gap between the stack and mmap_base, whatever the stack
// limit): a frame within this reach of the top is on that stack, and every
// byte from it up to the top is mapped. (A thread's stack, or an alternate
// signal stack, lies farther down.)
constexpr uintptr_t kMainStackReach = uintptr_t{64} << 20;

// Where the heap starts and the top of the main thread's stack, from
// /proc/self/stat (start_brk, field 47; startstack, field 28); 0: unknown.
// Read once, with plain system calls: the first read may come from a signal
// handler (the sync timer's call).
struct Layout {
  uintptr_t heap_start = 0;
  uintptr_t stack_top = 0;
};

std::atomic<bool> layout_read{false};
std::atomic<uintptr_t> known_heap_start{0};
std::atomic<uintptr_t> known_stack_top{0};

Layout layout()
{
  if (not layout_read.load(std::memory_order_acquire)) {
    char text[1024];
    const std::size_t length = ipc::proc_stat::read_file("/proc/self/stat", text, sizeof text);
    known_heap_start.store(ipc::proc_stat::number(text, length, 47), std::memory_order_relaxed);
    known_stack_top.store(ipc::proc_stat::number(text, length, 28), std::memory_order_relaxed);
    layout_read.store(true, std::memory_order_release);
  }
  return {known_heap_start.load(std::memory_order_relaxed), known_stack_top.load(std::memory_order_relaxed)};
}

} // namespace

ipc::WritableRanges in_place_now()
{
  ipc::WritableRanges now;
  const Layout known = layout();
  // The heap: from its start up to the break, which only moves down past
  // free memory (malloc's trim), never under a live buffer. sbrk(0) reads
  // glibc's copy of the break, without a system call.
  if (known.heap_start != 0) {
    const auto brk = reinterpret_cast<uintptr_t>(sbrk(0));
    if (brk != UINTPTR_MAX && brk > known.heap_start) {
      now.heap_start = known.heap_start;
      now.heap_end = brk;
    }
  }
  // The main thread's stack, from this frame up: the caller's frames.
  volatile char here = 0;
  const auto frame = reinterpret_cast<uintptr_t>(&here);
  if (known.stack_top != 0 && frame < known.stack_top && known.stack_top - frame <= kMainStackReach) {
    now.stack_start = frame;
    now.stack_end = known.stack_top;
  }
  return now;
}

bool copied_in_place(const void* address, std::size_t length)
{
  return in_place_now().covers(reinterpret_cast<uintptr_t>(address), length);
}

bool read(const iovec* local, const iovec* remote, unsigned count, std::size_t total, bool* by_system_call)
{
  bool in_place = true;
  std::size_t bytes = 0;
  for (unsigned i = 0; i < count && in_place; ++i) {
    in_place = local[i].iov_len == remote[i].iov_len && copied_in_place(remote[i].iov_base, remote[i].iov_len);
    bytes += remote[i].iov_len;
  }
  if (by_system_call != nullptr)
    *by_system_call = not in_place;
  if (in_place) {
    for (unsigned i = 0; i < count; ++i)
      std::memcpy(local[i].iov_base, remote[i].iov_base, remote[i].iov_len);
    return bytes == total;
  }
  const int saved_errno = errno;
  const ssize_t copied = process_vm_readv(pid(), local, count, remote, count, 0);
  errno = saved_errno;
  return copied >= 0 && static_cast<std::size_t>(copied) == total;
}

void forget_pid()
{
  own_pid.store(0, std::memory_order_relaxed);
}

} // namespace s4bxi::preload::own_memory
