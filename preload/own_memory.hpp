// Reads of the program's own memory that cannot fault.
//
// The process copies what the program hands to Portals (a Put's payload
// within the PIO limit, a poll's arrays, a map) at the call, as the CPU would
// write it. A bad address there must give the program the call's error, as
// the server's reads do, not a crash inside libportals; so the copy goes
// through process_vm_readv on this very process, which fails with EFAULT
// where a plain copy would fault.
//
// That system call cost a rank 1.3 us per Put, on the critical path of every
// small MPI message (an 8 B ping-pong: 0.91 of the wall time without it). So
// memory that no live buffer can lose while the copy runs is copied in place:
// the heap below the program break (malloc's main arena; the kernel moves the
// break down only past free memory at its top) and the main thread's stack
// above the copying frame (the caller's frames), when the main thread copies.
// Anything else (a mapping of its own: a large malloc, a thread's arena or
// stack, a file) goes through the kernel as before, as does a range that
// leaves those two. A program that takes a page of its heap away itself
// (munmap, or mprotect, under the break) and then hands it to Portals faults
// in the copy, as it would on the machine, whose CPU writes such a payload
// into the command (and, as the target of a payload staged for it, in the
// process's copy: simserver/job/staged_writes.hpp).
#pragma once

#include "writable_ranges.hpp"

#include <cstddef>
#include <sys/uio.h>

namespace s4bxi::preload::own_memory {

// Copies the `count` pieces `remote` of this process's memory into `local`
// (the same lengths, piece for piece). True only when all `total` bytes were
// read. errno is left as it was. `by_system_call`, when given, says whether
// the copy was a system call (memory outside what is copied in place).
bool read(const iovec* local, const iovec* remote, unsigned count, std::size_t total,
          bool* by_system_call = nullptr);

// Whether [address, address + length) is memory `read` copies in place: in
// the heap below the break, or on the main thread's stack above the caller's
// frame (for the tests).
bool copied_in_place(const void* address, std::size_t length);

// The memory `read` copies in place, for the calling thread now: the heap
// and, on the main thread, its stack from the caller's frames up. A write
// into it cannot fault either (the server's staged writes,
// preload/staged_writes.hpp).
ipc::WritableRanges in_place_now();

// In a child after fork(): this process's ID changed.
void forget_pid();

} // namespace s4bxi::preload::own_memory
