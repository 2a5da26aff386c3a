// Sleeps of the calling actor in simulated time: the NIC's delays, the poll
// periods charged to ranks, the ranks' own sleeps.
//
// SimGrid 3.32 makes each this_actor::sleep_for an action of the CPU model: a
// variable of its linear system, made, updated and freed at every sleep. Here
// a kernel timer releases a semaphore that the actor waits on instead: the
// actor wakes at the same simulated time (the timer's date is computed as
// sleep_for computes its end), for about 0.6 of the wall time
// (bench/simgrid_rounds prints both). At one simulated instant, the actors
// woken by timers run before those whose activity ended (SimGrid's main loop).
#pragma once

namespace s4bxi {

// Returns at once when `when` is not after the current simulated time.
void sleep_until(double when);
// Returns at once when `duration` is not positive.
void sleep_for(double duration);

} // namespace s4bxi
