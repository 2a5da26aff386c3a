// The arrays of a PtlEQPoll/PtlCTPoll in the request (preload/poll_arrays.hpp):
// a few handles and tests travel inline, as the server would take them from
// the program's memory; a longer array, or one the process cannot read whole,
// goes by address (the server answers PTL_ARG_INVALID), without a fault.
#include "poll_arrays.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

namespace s4bxi::preload {
namespace {

ipc::PollArgs args_for(uint32_t size, uint32_t handle_size)
{
  ipc::PollArgs args{};
  args.size = size;
  args.handle_size = handle_size;
  return args;
}

uint64_t address(const void* pointer)
{
  return reinterpret_cast<uintptr_t>(pointer);
}

TEST(PollArrays, AFewEightByteHandlesTravelInlineAsTheServerReadsThem)
{
  // BXI handles are pointers: the server takes the low 32 bits.
  const uint64_t handles[2] = {0x0000000120000003ULL, 0x20000004ULL};
  auto args = args_for(2, 8);
  poll_arrays::set(args, handles);
  EXPECT_EQ(args.is_inline, 1U);
  EXPECT_EQ(args.handles_address, 0U);
  EXPECT_EQ(args.tests_address, 0U);
  EXPECT_EQ(args.inline_handles[0], 0x20000003U);
  EXPECT_EQ(args.inline_handles[1], 0x20000004U);
}

TEST(PollArrays, CTPollTestsTravelWithTheirHandles)
{
  uint32_t handles[ipc::kMaxInlinePollHandles];
  uint64_t tests[ipc::kMaxInlinePollHandles];
  for (unsigned i = 0; i < ipc::kMaxInlinePollHandles; ++i) {
    handles[i] = 0x30000000U + i;
    tests[i] = 100 + i;
  }
  auto args = args_for(ipc::kMaxInlinePollHandles, 4);
  poll_arrays::set(args, handles, tests);
  ASSERT_EQ(args.is_inline, 1U);
  for (unsigned i = 0; i < ipc::kMaxInlinePollHandles; ++i) {
    EXPECT_EQ(args.inline_handles[i], handles[i]);
    EXPECT_EQ(args.inline_tests[i], tests[i]);
  }
}

TEST(PollArrays, ALongerArrayGoesByAddress)
{
  uint32_t handles[ipc::kMaxInlinePollHandles + 1]{};
  uint64_t tests[ipc::kMaxInlinePollHandles + 1]{};
  auto args = args_for(ipc::kMaxInlinePollHandles + 1, 4);
  poll_arrays::set(args, handles, tests);
  EXPECT_EQ(args.is_inline, 0U);
  EXPECT_EQ(args.handles_address, address(handles));
  EXPECT_EQ(args.tests_address, address(tests));
}

TEST(PollArrays, NothingInlineForNoHandlesOrAnUnknownHandleSize)
{
  uint32_t handles[2]{};
  auto none = args_for(0, 4);
  poll_arrays::set(none, handles);
  EXPECT_EQ(none.is_inline, 0U);
  auto odd = args_for(2, 2);
  poll_arrays::set(odd, handles);
  EXPECT_EQ(odd.is_inline, 0U);
  EXPECT_EQ(odd.handles_address, address(handles));
}

// An array that runs into an unreadable page, an unmapped address, NULL:
// no fault, and the addresses for the server to fail to read.
TEST(PollArrays, AnArrayTheProcessCannotReadGoesByAddress)
{
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  auto* pages = static_cast<unsigned char*>(
      mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(pages, MAP_FAILED);
  ASSERT_EQ(mprotect(pages + page, page, PROT_NONE), 0);
  auto* tail = reinterpret_cast<uint64_t*>(pages + page) - 2; // two readable elements
  tail[0] = 7;
  tail[1] = 8;
  uint64_t tests[3] = {1, 1, 1};
  uint32_t handles[3] = {1, 2, 3};

  auto readable = args_for(2, 8);
  poll_arrays::set(readable, tail, tests);
  EXPECT_EQ(readable.is_inline, 1U);

  auto handles_beyond = args_for(3, 8);
  poll_arrays::set(handles_beyond, tail, tests);
  EXPECT_EQ(handles_beyond.is_inline, 0U);
  EXPECT_EQ(handles_beyond.handles_address, address(tail));
  EXPECT_EQ(handles_beyond.tests_address, address(tests));

  auto tests_beyond = args_for(3, 4);
  poll_arrays::set(tests_beyond, handles, tail);
  EXPECT_EQ(tests_beyond.is_inline, 0U);
  EXPECT_EQ(tests_beyond.tests_address, address(tail));

  auto unmapped = args_for(1, 4);
  poll_arrays::set(unmapped, pages + page);
  EXPECT_EQ(unmapped.is_inline, 0U);
  EXPECT_EQ(unmapped.handles_address, address(pages + page));

  auto bad_tests = args_for(1, 4);
  poll_arrays::set(bad_tests, handles, reinterpret_cast<const uint64_t*>(8));
  EXPECT_EQ(bad_tests.is_inline, 0U);

  auto null_tests = args_for(1, 4); // a PtlCTPoll's: not "no tests"
  poll_arrays::set(null_tests, handles, nullptr);
  EXPECT_EQ(null_tests.is_inline, 0U);
  EXPECT_EQ(null_tests.tests_address, 0U);

  auto null_handles = args_for(1, 4);
  poll_arrays::set(null_handles, nullptr);
  EXPECT_EQ(null_handles.is_inline, 0U);
  EXPECT_EQ(null_handles.handles_address, 0U);
  munmap(pages, 2 * page);
}

TEST(PollArrays, ErrnoIsTheProgramsAfterAFailedRead)
{
  errno = 1234;
  auto args = args_for(1, 4);
  poll_arrays::set(args, reinterpret_cast<const void*>(8));
  EXPECT_EQ(errno, 1234);
}

// A PtlEQPoll the process tried to answer itself: the handles it read.
TEST(PollArrays, HandlesAlreadyReadTravelInline)
{
  const ipc::Handle read[3] = {5, 6, 7};
  auto args = args_for(3, 8);
  args.handles_address = 0x1000;
  poll_arrays::set_read(args, read);
  EXPECT_EQ(args.is_inline, 1U);
  EXPECT_EQ(args.handles_address, 0U);
  EXPECT_EQ(args.inline_handles[0], 5U);
  EXPECT_EQ(args.inline_handles[2], 7U);
}

} // namespace
} // namespace s4bxi::preload
