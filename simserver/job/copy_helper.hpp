// A second thread for the large copies between the server and a rank's
// memory (rank_memory.cpp). A copy by process_vm_readv or process_vm_writev
// runs on the calling thread alone, and a large one is most of what the
// server does while a large message moves: with the rank's memory in huge
// pages, two threads that each copy one 2 MiB half of a 4 MiB buffer took
// 83 us where one thread took 161 us (this 2-core VM). The copy is cut into
// pieces; the caller and the helper take them in turn, and the caller
// returns once every piece is done. What is copied, and when in simulated
// time, does not change; only how long the server takes.
#pragma once

#include <cstddef>
#include <functional>

namespace s4bxi::job {

// Runs piece(0) .. piece(count - 1), each exactly once, some on the helper
// thread (started at the first call), the rest on the calling thread, and
// returns whether all returned true. A helper that is slow to come (asleep,
// or its CPU busy) takes fewer pieces or none: the caller never waits for a
// piece nobody has started, only for one the helper is copying.
// For the simulation's thread: one call at a time.
bool run_pieces_with_helper(size_t count, const std::function<bool(size_t)>& piece);

} // namespace s4bxi::job
