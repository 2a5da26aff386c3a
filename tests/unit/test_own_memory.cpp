// Reads of the process's own memory that cannot fault (preload/own_memory.hpp):
// what is mapped is copied, a bad address is refused with errno untouched, and
// a child after fork() reads its own memory, not its parent's.
#include "own_memory.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <thread>
#include <cstdint>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

namespace s4bxi::preload {
namespace {

TEST(OwnMemory, CopiesEveryPieceOfMappedMemory)
{
  const uint64_t first[2] = {11, 12};
  const uint32_t second = 13;
  uint64_t first_copy[2] = {};
  uint32_t second_copy = 0;
  const iovec local[2] = {{first_copy, sizeof first_copy}, {&second_copy, sizeof second_copy}};
  const iovec remote[2] = {{const_cast<uint64_t*>(first), sizeof first}, {const_cast<uint32_t*>(&second), sizeof second}};
  ASSERT_TRUE(own_memory::read(local, remote, 2, sizeof first + sizeof second));
  EXPECT_EQ(first_copy[1], 12U);
  EXPECT_EQ(second_copy, 13U);
}

TEST(OwnMemory, RefusesAnAddressThatIsNotMappedWithoutFaultingOrTouchingErrno)
{
  const long page = sysconf(_SC_PAGESIZE);
  void* gone = mmap(nullptr, static_cast<size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  ASSERT_EQ(munmap(gone, static_cast<size_t>(page)), 0);
  unsigned char copy[8] = {};
  const iovec local{copy, sizeof copy};
  const iovec remote{gone, sizeof copy};
  errno = EAGAIN;
  EXPECT_FALSE(own_memory::read(&local, &remote, 1, sizeof copy));
  EXPECT_EQ(errno, EAGAIN);
}

// The heap below the break and the main thread's stack above the copying
// frame are copied without a system call; a mapping of its own is not (it may
// be gone), nor a range that runs past the break.
TEST(OwnMemory, CopiesTheHeapAndTheStackInPlaceAndOtherMappingsThroughTheKernel)
{
  auto* on_heap = static_cast<uint64_t*>(std::malloc(64)); // (below malloc's mmap threshold: the heap)
  ASSERT_NE(on_heap, nullptr);
  EXPECT_TRUE(own_memory::copied_in_place(on_heap, 64));
  uint64_t on_stack[4] = {1, 2, 3, 4};
  EXPECT_TRUE(own_memory::copied_in_place(on_stack, sizeof on_stack));
  const long page = sysconf(_SC_PAGESIZE);
  void* mapped = mmap(nullptr, static_cast<size_t>(page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(mapped, MAP_FAILED);
  EXPECT_FALSE(own_memory::copied_in_place(mapped, 8));
  const auto* brk = static_cast<const char*>(sbrk(0));
  EXPECT_FALSE(own_memory::copied_in_place(brk - 8, 16)) << "a range past the break";
  EXPECT_FALSE(own_memory::copied_in_place(brk, 1));
  // And each copy is the same bytes, wherever they are.
  on_heap[0] = 21;
  static_cast<uint64_t*>(mapped)[0] = 22;
  uint64_t copies[3] = {};
  const iovec local[3] = {{&copies[0], 8}, {&copies[1], 8}, {&copies[2], 8}};
  const iovec remote[3] = {{on_heap, 8}, {&on_stack[3], 8}, {mapped, 8}};
  ASSERT_TRUE(own_memory::read(local, remote, 3, 24));
  EXPECT_EQ(copies[0], 21U);
  EXPECT_EQ(copies[1], 4U);
  EXPECT_EQ(copies[2], 22U);
  munmap(mapped, static_cast<size_t>(page));
  std::free(on_heap);
}

// A thread's own stack is not the main thread's: its copies go through the
// kernel (and are still right).
TEST(OwnMemory, AnotherThreadsStackGoesThroughTheKernel)
{
  bool in_place = true;
  uint64_t copy = 0;
  bool read = false;
  std::thread([&] {
    const uint64_t word = 33;
    in_place = own_memory::copied_in_place(&word, sizeof word);
    const iovec local{&copy, sizeof copy};
    const iovec remote{const_cast<uint64_t*>(&word), sizeof word};
    read = own_memory::read(&local, &remote, 1, sizeof word);
  }).join();
  EXPECT_FALSE(in_place);
  EXPECT_TRUE(read);
  EXPECT_EQ(copy, 33U);
}

// The process's ID is kept from one read to the next: a child that forgot
// it (rank_client's fork handler) must read its own copy of the memory,
// which it changed, and not its parent's through the parent's ID.
TEST(OwnMemory, AChildAfterForkReadsItsOwnMemory)
{
  static volatile uint64_t word = 1;
  uint64_t copy = 0;
  const iovec local{&copy, sizeof copy};
  const iovec remote{const_cast<uint64_t*>(&word), sizeof copy};
  ASSERT_TRUE(own_memory::read(&local, &remote, 1, sizeof copy)); // the ID is now known
  ASSERT_EQ(copy, 1U);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    word = 2;
    own_memory::forget_pid();
    uint64_t seen = 0;
    const iovec child_local{&seen, sizeof seen};
    _exit(own_memory::read(&child_local, &remote, 1, sizeof seen) && seen == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child read its parent's memory, or nothing";
}

} // namespace
} // namespace s4bxi::preload
