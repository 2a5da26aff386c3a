// Reads and writes of a rank's memory by the server, at the simulated moment of
// the DMA that moves the bytes. Serialized execution guarantees that the rank
// is stopped in an intercepted call while this happens.
#pragma once

#include <cstdint>
#include <cstddef>
#include <sys/types.h>

namespace s4bxi::job {

// Both return false if the range is not (entirely) mapped in the process.
bool read_rank_memory(pid_t pid, uint64_t address, void* destination, size_t bytes);
bool write_rank_memory(pid_t pid, uint64_t address, const void* source, size_t bytes);

} // namespace s4bxi::job
