// The server's writes into this process's memory that the process copies
// itself (simserver/job/staged_writes.hpp): while the main thread waits in a
// call, a small payload landing in its heap or stack goes into the channel
// instead of through a system call of the server, and the main thread copies
// it to its place as its wait ends, before the call returns.
#pragma once

#include "segment.hpp"

#include <cstdint>

namespace s4bxi::preload::staged_writes {

// Before the main thread's request: the memory the server may stage writes
// for while it waits (own_memory::in_place_now).
void publish(ipc::StagedWrites& area);
// After its reply: makes the first `count` staged writes, in order.
void apply(const ipc::StagedWrites& area, uint32_t count);

} // namespace s4bxi::preload::staged_writes
