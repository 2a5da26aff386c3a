#include "huge_pages.hpp"

#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <mutex>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 // Linux 6.1 (uapi asm-generic/mman-common.h)
#endif

namespace s4bxi::preload::huge_pages {
namespace {

constexpr uint64_t kHugePage = 2ULL << 20;

std::atomic<bool> enabled{false};

// The stretches collapsed lately (round robin): a buffer used again and
// again costs one look here, not a system call each time. A stretch freed
// and mapped again meanwhile is only left in small pages.
struct Stretch {
  uint64_t begin = 0;
  uint64_t end = 0;
};
constexpr unsigned kRemembered = 32;
std::mutex remembered_mutex; // (trivially destructible in libstdc++)
Stretch remembered[kRemembered];
unsigned next_slot = 0;

bool remembered_locked(uint64_t begin, uint64_t end)
{
  for (const Stretch& stretch : remembered)
    if (stretch.begin <= begin && end <= stretch.end)
      return true;
  return false;
}

} // namespace

void enable(bool on)
{
  enabled.store(on, std::memory_order_relaxed);
}

bool worth_backing(uint64_t length)
{
  return length >= kHugePage && enabled.load(std::memory_order_relaxed);
}

void back(uint64_t start, uint64_t length)
{
  if (not worth_backing(length) || start > UINT64_MAX - length)
    return;
  const uint64_t begin = (start + kHugePage - 1) / kHugePage * kHugePage;
  const uint64_t end = (start + length) / kHugePage * kHugePage;
  if (begin >= end)
    return;
  std::lock_guard lock(remembered_mutex);
  if (remembered_locked(begin, end))
    return;
  const int saved_errno = errno; // the program's, whatever the kernel says
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_COLLAPSE);
  errno = saved_errno;
  remembered[next_slot] = Stretch{begin, end};
  next_slot = (next_slot + 1) % kRemembered;
}

void back_entry(uint64_t start, uint64_t length)
{
  constexpr uint64_t kLargestEntry = 256ULL << 20;
  if (length <= kLargestEntry)
    back(start, length);
}

} // namespace s4bxi::preload::huge_pages
