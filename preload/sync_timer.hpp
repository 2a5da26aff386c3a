// Preemption of a rank that runs without calling the emulator (spinning on a
// flag in its memory that a remote Put will set, or a long compute): a timer
// on the thread's CPU time interrupts it every quantum; if it made no call
// during the last quantum, the handler makes a Sync call, the simulation
// advances to the rank's time (delivering what lands in its memory
// meanwhile), and the rank goes on.
#pragma once

#include <cstdint>

namespace s4bxi::preload::sync_timer {

// For the calling thread (the program's main thread, from attach); nothing if
// `quantum_ns` is 0 or the timer's signal is the program's. Threads the
// program creates later get theirs as they start (thread_hooks.cpp).
void start(int64_t quantum_ns);

// For a thread the program created: the same timer, deleted when it ends.
void start_for_new_thread();

} // namespace s4bxi::preload::sync_timer
