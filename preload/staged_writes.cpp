#include "staged_writes.hpp"

#include "own_memory.hpp"

#include <cstring>

namespace s4bxi::preload::staged_writes {

void publish(ipc::StagedWrites& area)
{
  const own_memory::InPlace now = own_memory::in_place_now();
  area.heap_start = now.heap_start;
  area.heap_end = now.heap_end;
  area.stack_start = now.stack_start;
  area.stack_end = now.stack_end;
}

void apply(const ipc::StagedWrites& area, uint32_t count)
{
  // (The server writes only within what publish() gave, and the channel is
  // this process's: a write out of bounds here would be the program's own
  // stray write over its channel, which is not followed.)
  const auto inside = [](uint64_t start, uint64_t end, uint64_t address, uint64_t length) {
    return address >= start && address <= end && length <= end - address;
  };
  for (uint32_t i = 0; i < count && i < ipc::kMaxStagedWrites; ++i) {
    const ipc::StagedWrite write = area.writes[i];
    if (write.offset > ipc::kStagedBytes || write.length > ipc::kStagedBytes - write.offset ||
        not(inside(area.heap_start, area.heap_end, write.address, write.length) ||
            inside(area.stack_start, area.stack_end, write.address, write.length)))
      continue;
    std::memcpy(reinterpret_cast<void*>(write.address), area.bytes + write.offset, write.length);
  }
}

} // namespace s4bxi::preload::staged_writes
