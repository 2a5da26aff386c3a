// The copy helper (simserver/job/copy_helper.hpp) and the large copies of
// rank memory it shares (simserver/job/rank_memory.cpp): every piece once,
// failures reported, and the bytes where they belong, whatever the cut.
#include "job/copy_helper.hpp"
#include "job/rank_memory.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

TEST(CopyHelper, RunsEveryPieceExactlyOnceJobAfterJob)
{
  // Many short jobs in a row: a helper that took a piece of a job already
  // over, or a job that returned before a piece ended, shows in the counts.
  std::thread::id caller = std::this_thread::get_id();
  bool helped = false;
  for (size_t job = 0; job < 2000; job++) {
    const size_t count = 2 + job % 7;
    std::vector<std::atomic<int>> runs(count);
    ASSERT_TRUE(s4bxi::job::run_pieces_with_helper(count, [&](size_t index) {
      runs[index]++;
      if (std::this_thread::get_id() != caller)
        helped = true;
      return true;
    }));
    for (size_t index = 0; index < count; index++)
      ASSERT_EQ(runs[index].load(), 1) << "job " << job << " piece " << index;
  }
  // (Which thread runs what is up to the scheduler; that the helper can run
  // a piece at all is checked with pieces long enough for it to come.)
  for (int attempt = 0; attempt < 100 && not helped; attempt++)
    s4bxi::job::run_pieces_with_helper(2, [&](size_t) {
      if (std::this_thread::get_id() != caller)
        helped = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return true;
    });
  EXPECT_TRUE(helped) << "the helper thread never ran a piece";
}

TEST(CopyHelper, OneFailedPieceFailsTheJobAndTheNextJobStartsClean)
{
  EXPECT_FALSE(s4bxi::job::run_pieces_with_helper(5, [](size_t index) { return index != 3; }));
  EXPECT_TRUE(s4bxi::job::run_pieces_with_helper(5, [](size_t) { return true; }));
  EXPECT_TRUE(s4bxi::job::run_pieces_with_helper(0, [](size_t) { return false; }));
  EXPECT_FALSE(s4bxi::job::run_pieces_with_helper(1, [](size_t) { return false; }));
}

// A rank's memory is this process's own here: process_vm_* works on it too.
TEST(RankMemory, LargeCopiesLandWholeWhereverTheyStartAndEnd)
{
  const size_t span = size_t{12} << 20;
  auto* remote = static_cast<unsigned char*>(
      mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(remote, MAP_FAILED);
  std::vector<unsigned char> local(span);
  // Below the cut, two halves, 2 MiB pieces; starts on and off 2 MiB and page
  // boundaries; ends on and off them.
  const size_t sizes[] = {4096, (512 << 10) - 1, 512 << 10, (1 << 20) + 5, (3 << 20) - 1, 3 << 20, (4 << 20) + 17,
                          (8 << 20) + 4096};
  const uintptr_t two_mib = uintptr_t{2} << 20;
  const uintptr_t aligned = (reinterpret_cast<uintptr_t>(remote) + two_mib - 1) / two_mib * two_mib;
  const uintptr_t starts[] = {aligned, aligned + 16, aligned + two_mib - 4096 + 16, aligned + (1 << 20) + 3};
  unsigned seed = 1;
  for (size_t bytes : sizes)
    for (uintptr_t start : starts) {
      ASSERT_LE(start + bytes, reinterpret_cast<uintptr_t>(remote) + span);
      for (size_t i = 0; i < bytes; i++)
        local[i] = static_cast<unsigned char>(rand_r(&seed));
      ASSERT_TRUE(s4bxi::job::write_rank_memory(getpid(), start, local.data(), bytes));
      ASSERT_EQ(0, memcmp(reinterpret_cast<void*>(start), local.data(), bytes)) << bytes << " B written";
      std::vector<unsigned char> back(bytes + 2, 0xA5);
      ASSERT_TRUE(s4bxi::job::read_rank_memory(getpid(), start, back.data() + 1, bytes));
      ASSERT_EQ(0, memcmp(back.data() + 1, local.data(), bytes)) << bytes << " B read";
      ASSERT_EQ(back.front(), 0xA5);
      ASSERT_EQ(back.back(), 0xA5) << "a read of " << bytes << " B wrote past its end";
    }
  // A range that runs into unmapped memory fails, split or not.
  const uintptr_t end = reinterpret_cast<uintptr_t>(remote) + span;
  ASSERT_EQ(0, munmap(remote + span - (2 << 20), 2 << 20));
  EXPECT_FALSE(s4bxi::job::read_rank_memory(getpid(), end - (4 << 20) - 4096, local.data(), 4 << 20));
  EXPECT_FALSE(s4bxi::job::write_rank_memory(getpid(), end - (2 << 20) - (512 << 10), local.data(), 1 << 20));
  munmap(remote, span - (2 << 20));
}

} // namespace
