#include "staged_writes.hpp"

#include "own_memory.hpp"

#include <cstring>

namespace s4bxi::preload::staged_writes {

void publish(ipc::StagedWrites& area)
{
  area.ranges = own_memory::in_place_now();
}

void apply(const ipc::StagedWrites& area, uint32_t count)
{
  // (The server writes only within what publish() gave, and the channel is
  // this process's: a write out of bounds here would be the program's own
  // stray write over its channel, which is not followed.)
  for (uint32_t i = 0; i < count && i < ipc::kMaxStagedWrites; ++i) {
    const ipc::StagedWrite write = area.writes[i];
    if (write.offset > ipc::kStagedBytes || write.length > ipc::kStagedBytes - write.offset ||
        not area.ranges.covers(write.address, write.length))
      continue;
    std::memcpy(reinterpret_cast<void*>(write.address), area.bytes + write.offset, write.length);
  }
}

} // namespace s4bxi::preload::staged_writes
