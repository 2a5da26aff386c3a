// Reads of the program's own memory that cannot fault.
//
// The process copies what the program hands to Portals (a Put's payload
// within the PIO limit, a poll's arrays, a map) at the call, as the CPU would
// write it. A bad address there must give the program the call's error, as
// the server's reads do, not a crash inside libportals; so the copy goes
// through process_vm_readv on this very process, which fails with EFAULT
// where a plain copy would fault.
#pragma once

#include <cstddef>
#include <sys/uio.h>

namespace s4bxi::preload::own_memory {

// Copies the `count` pieces `remote` of this process's memory into `local`
// (the same lengths, piece for piece). True only when all `total` bytes were
// read. errno is left as it was.
bool read(const iovec* local, const iovec* remote, unsigned count, std::size_t total);

// In a child after fork(): this process's ID changed.
void forget_pid();

} // namespace s4bxi::preload::own_memory
