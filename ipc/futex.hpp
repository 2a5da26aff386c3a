// Thin wrappers around the futex system call, shared by the rank processes and
// the server. The futex words live in a MAP_SHARED segment mapped by several
// processes, so the non-private operations are required.
#pragma once

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::ipc {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "futex words must be plain 32-bit lock-free atomics");

// Sleeps while *word == expected. Returns false on timeout, true otherwise
// (woken, spurious wake-up or value already changed: the caller re-checks).
inline bool futex_wait(std::atomic<uint32_t>* word, uint32_t expected, const timespec* relative_timeout)
{
  long rc = syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAIT, expected, relative_timeout, nullptr, 0);
  return not(rc == -1 && errno == ETIMEDOUT);
}

inline void futex_wake_all(std::atomic<uint32_t>* word)
{
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(word), FUTEX_WAKE, INT32_MAX, nullptr, nullptr, 0);
}

} // namespace s4bxi::ipc
