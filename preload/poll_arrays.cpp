#include "poll_arrays.hpp"

#include "own_memory.hpp"

#include <algorithm>
#include <cstring>
#include <sys/uio.h>

namespace s4bxi::preload::poll_arrays {
namespace {

void by_address(ipc::PollArgs& args, const void* handles, const uint64_t* tests)
{
  args.is_inline = 0;
  args.handles_address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(handles));
  args.tests_address = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(tests));
}

// The addresses stay 0: the server has nothing to read.
void inline_arrays(ipc::PollArgs& args)
{
  args.is_inline = 1;
  args.handles_address = 0;
  args.tests_address = 0;
}

void fill(ipc::PollArgs& args, const void* handles, const uint64_t* tests, bool with_tests)
{
  by_address(args, handles, tests);
  if (args.size == 0 || args.size > ipc::kMaxInlinePollHandles || (args.handle_size != 4 && args.handle_size != 8))
    return;
  // Both arrays in one system call; a fault anywhere leaves them to the server.
  unsigned char raw[ipc::kMaxInlinePollHandles * 8];
  const size_t handle_bytes = static_cast<size_t>(args.size) * args.handle_size;
  const size_t test_bytes = with_tests ? static_cast<size_t>(args.size) * sizeof(uint64_t) : 0;
  iovec local[2] = {{raw, handle_bytes}, {args.inline_tests, test_bytes}};
  iovec remote[2] = {{const_cast<void*>(handles), handle_bytes}, {const_cast<uint64_t*>(tests), test_bytes}};
  const unsigned count = with_tests ? 2 : 1; // (a PtlCTPoll's NULL tests fail the read)
  if (not own_memory::read(local, remote, count, handle_bytes + test_bytes)) {
    std::fill(std::begin(args.inline_tests), std::end(args.inline_tests), 0);
    return;
  }
  for (uint32_t i = 0; i < args.size; ++i) {
    uint64_t element = 0; // little-endian: the low bytes first, as the server reads them
    std::memcpy(&element, raw + static_cast<size_t>(i) * args.handle_size, args.handle_size);
    args.inline_handles[i] = wire_handle(element);
  }
  inline_arrays(args);
}

} // namespace

void set(ipc::PollArgs& args, const void* handles)
{
  fill(args, handles, nullptr, false);
}

void set(ipc::PollArgs& args, const void* handles, const uint64_t* tests)
{
  fill(args, handles, tests, true);
}

void set_read(ipc::PollArgs& args, const ipc::Handle* read)
{
  std::copy_n(read, args.size, args.inline_handles);
  inline_arrays(args);
}

} // namespace s4bxi::preload::poll_arrays
