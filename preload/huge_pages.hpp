// Communication buffers backed by huge pages (s4bxi/huge-pages).
//
// The server copies a payload between two ranks with process_vm_readv and
// process_vm_writev, and the kernel walks and pins the rank's pages one at a
// time for each: for a 4 KiB-page buffer that walk costs more than the copy
// itself (a 4 MiB MPI message: 47% of the server's time in the page walk,
// 27% copying). So the process has the 2 MiB-aligned stretches of a large
// buffer it communicates with (an entry it appends, the local side of a Put
// or a Get) collapsed into transparent huge pages (madvise MADV_COLLAPSE,
// Linux 6.1), once per stretch: the same bytes, in fewer pages. For the local
// side of a Put or a Get, or an entry used once, also the stretch at either
// end that the buffer covers a quarter of at least (512 KiB), from 512 KiB on
// (a buffer from malloc starts just past a page boundary). Where the kernel cannot (no THP, memory it will not move, a
// stretch another mapping shares), nothing changes.
#pragma once

#include <cstdint>

namespace s4bxi::preload::huge_pages {

// From the Hello reply: whether the run asks for it.
void enable(bool on);
// Whether a buffer of `length` bytes may have a stretch collapsed, and the
// run asks for them: a check without a system call or a lock.
bool worth_backing(uint64_t length);
// The buffer [start, start + length) is about to be communicated with (the
// local side of a Put or a Get: every byte of it is copied), with the
// stretches at its ends it covers a quarter of at least.
void back(uint64_t start, uint64_t length);
// The same for an entry the process appends, unless it is larger than 256
// MiB: such an entry exposes a heap or all of memory rather than a message,
// and collapsing fills each stretch that holds a page (the kernel collapses
// only those), at some 100 us a stretch. The stretches at its ends only for
// an entry used once (`use_once`).
void back_entry(uint64_t start, uint64_t length, bool use_once);

} // namespace s4bxi::preload::huge_pages
