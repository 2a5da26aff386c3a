#include "huge_pages.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 // Linux 6.1 (uapi asm-generic/mman-common.h)
#endif

namespace s4bxi::preload::huge_pages {
namespace {

constexpr uint64_t kHugePage = 2ULL << 20;
// A buffer copied whole (the local side of a Put or a Get, an entry used
// once) from this size on has the stretches at its ends collapsed that it
// covers this much of at least. Since stop 48: half a stretch and 2 MiB
// until then, which left every buffer below 2 MiB in small pages, and the
// server's copy of 1 MiB took 1.5 times as long (a 1 MiB MPI ping-pong: about
// 137 against 211 us of wall time per message, buffers in huge pages or not).
constexpr uint64_t kCopiedWholeFrom = kHugePage / 4;

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

// The stretches to collapse for the buffer [start, end): those it covers
// whole, and at each end the one it covers a quarter of at least. A buffer
// from malloc starts just after a page boundary, not a 2 MiB one: the
// stretches it covers whole were half of a 4 MiB buffer (the server's page
// walks then cost as before on the other half), and none of a 2 MiB one.
// Collapsing a stretch the buffer covers a quarter of takes in at most 1.5
// MiB of the memory beside it, in the same mapping: the kernel refuses a
// stretch another mapping shares, so a buffer that malloc maps on its own
// (from 128 KiB on, by default) only ever gets the stretches it covers whole.
struct Stretches {
  uint64_t whole_begin;
  uint64_t whole_end; // whole_begin when none
  bool head;          // the stretch before whole_begin too
  bool tail;          // the stretch from whole_end too
  [[nodiscard]] uint64_t begin() const { return head ? whole_begin - kHugePage : whole_begin; }
  [[nodiscard]] uint64_t end() const { return tail ? whole_end + kHugePage : whole_end; }
};

Stretches stretches_of(uint64_t start, uint64_t end, bool with_ends)
{
  Stretches s{};
  s.whole_begin = (start + kHugePage - 1) / kHugePage * kHugePage;
  s.whole_end = std::max(s.whole_begin, end / kHugePage * kHugePage);
  // (A buffer within one stretch is its head, or its tail when it starts the
  // stretch: whole_end is then its start.)
  s.head = with_ends && std::min(end, s.whole_begin) - start >= kCopiedWholeFrom;
  s.tail = with_ends && end > s.whole_end && end - std::max(start, s.whole_end) >= kCopiedWholeFrom;
  return s;
}

void collapse(uint64_t start, uint64_t length, bool with_ends)
{
  if (length < (with_ends ? kCopiedWholeFrom : kHugePage) || not enabled.load(std::memory_order_relaxed) ||
      start > UINT64_MAX - length - kHugePage)
    return;
  const Stretches stretches = stretches_of(start, start + length, with_ends);
  if (stretches.begin() >= stretches.end())
    return;
  std::lock_guard lock(remembered_mutex);
  if (remembered_locked(stretches.begin(), stretches.end()))
    return;
  const int saved_errno = errno; // the program's, whatever the kernel says
  auto advise = [](uint64_t begin, uint64_t end) {
    madvise(reinterpret_cast<void*>(begin), end - begin, MADV_COLLAPSE);
  };
  if (stretches.whole_end > stretches.whole_begin)
    advise(stretches.whole_begin, stretches.whole_end);
  // The ends apart: the kernel may refuse them (another mapping beside),
  // and that must not cost the rest.
  if (stretches.head)
    advise(stretches.whole_begin - kHugePage, stretches.whole_begin);
  if (stretches.tail)
    advise(stretches.whole_end, stretches.whole_end + kHugePage);
  errno = saved_errno;
  remembered[next_slot] = Stretch{stretches.begin(), stretches.end()};
  next_slot = (next_slot + 1) % kRemembered;
}

} // namespace

void enable(bool on)
{
  enabled.store(on, std::memory_order_relaxed);
}

bool worth_backing(uint64_t length)
{
  return length >= kCopiedWholeFrom && enabled.load(std::memory_order_relaxed);
}

void back(uint64_t start, uint64_t length)
{
  collapse(start, length, true);
}

void back_entry(uint64_t start, uint64_t length, bool use_once)
{
  // The stretches at its ends only for an entry used once: the message that
  // matches it is all that lands in it, as a Put's or Get's buffer is copied
  // whole. A persistent one may take in much less than it covers: Open MPI
  // appends 2 MiB blocks for its short messages, each across two stretches
  // and mostly never written, and collapsing their ends took a rank of a 4
  // MiB ping-pong from 14 to 76 MB resident.
  constexpr uint64_t kLargestEntry = 256ULL << 20;
  if (length <= kLargestEntry)
    collapse(start, length, use_once);
}

} // namespace s4bxi::preload::huge_pages
