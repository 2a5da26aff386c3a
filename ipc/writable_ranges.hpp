// Memory of a rank's process that a copy cannot fault in while its main
// thread waits in a call (preload/own_memory.hpp): the heap below the break,
// and the main thread's stack from the caller's frames up. The process copies
// its own payloads from there without a system call, and the server stages
// its writes there (simserver/job/staged_writes.hpp).
#pragma once

#include <cstdint>

namespace s4bxi::ipc {

struct WritableRanges {
  // Empty ranges: none.
  uint64_t heap_start = 0, heap_end = 0;
  uint64_t stack_start = 0, stack_end = 0;

  // Whether [address, address + length) lies whole in one of them.
  [[nodiscard]] bool covers(uint64_t address, uint64_t length) const
  {
    return within(heap_start, heap_end, address, length) || within(stack_start, stack_end, address, length);
  }

private:
  static bool within(uint64_t start, uint64_t end, uint64_t address, uint64_t length)
  {
    return end > start && address >= start && address <= end && length <= end - address;
  }
};

} // namespace s4bxi::ipc
