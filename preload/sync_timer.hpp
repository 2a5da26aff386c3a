// Preemption of a rank that runs without calling the emulator (spinning on a
// flag in its memory that a remote Put will set, or a long compute): a timer
// on the thread's CPU time interrupts it every quantum; if it made no call
// during the last quantum, the handler makes a Sync call, the simulation
// advances to the rank's time (delivering what lands in its memory
// meanwhile), and the rank goes on.
//
// The kernel checks CPU-time timers only at its tick (4 ms at HZ=250), so a
// spinning thread would sync only every tick. So after each answer a thread
// also gets a one-shot wall-clock timer (high resolution), a quantum away:
// if by then the thread has been running (not sleeping in a wait or in the
// kernel), it syncs once it has run most of a quantum, and the timer is
// armed again, for the first three syncs after a call's answer (a spin on a
// flag that the call asked for is seen within a quantum; a long compute then
// pays a sync per tick, not per quantum); if it has been sleeping, the timer
// stays off until its next answer; an answer inside an MPI call arms none
// (the library calls again before the program runs). Its cost: at most one timer_settime and
// one signal per quantum of wall-clock time for a thread that makes calls;
// the signal interrupts a system call the thread may have blocked in within
// a quantum of its last call (restarted, SA_RESTART, except for those Linux
// never restarts: poll, select, epoll_wait...).
#pragma once

#include <cstdint>

namespace s4bxi::preload::sync_timer {

// For the calling thread (the program's main thread, from attach); nothing if
// `quantum_ns` is 0 or the timer's signal is the program's. Threads the
// program creates later get theirs as they start (thread_hooks.cpp).
void start(int64_t quantum_ns);

// For a thread the program created: the same timer, deleted when it ends.
void start_for_new_thread();

// The calling thread got an answer (its CPU time then; `sync`: to a Sync
// the timers made): arms its wall-clock timer if it is not armed. One
// thread-local test otherwise.
void after_reply(uint64_t thread_cpu_ns, bool sync);

} // namespace s4bxi::preload::sync_timer
