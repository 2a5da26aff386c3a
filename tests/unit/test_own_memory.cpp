// Reads of the process's own memory that cannot fault (preload/own_memory.hpp):
// what is mapped is copied, a bad address is refused with errno untouched, and
// a child after fork() reads its own memory, not its parent's.
#include "own_memory.hpp"

#include <gtest/gtest.h>

#include <cerrno>
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
