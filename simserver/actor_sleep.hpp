// Sleeps of the calling actor in simulated time: the NIC's delays, the poll
// periods charged to ranks, the ranks' own sleeps.
//
// SimGrid 3.32 makes each this_actor::sleep_for an action of the CPU model: a
// variable of its linear system, made, updated and freed at every sleep. Here
// a kernel timer releases a semaphore that the actor waits on instead (one
// timer per wake date), and sleepers due within SimGrid's precision of the
// date time moves to wake in that round, as SimGrid's own sleeps would: the
// same simulated times, for about 0.8 of the wall time of a round that wakes
// one actor (bench/simgrid_rounds prints both). At one simulated instant, the
// actors woken by timers run before those whose activity ended (SimGrid's
// main loop).
#pragma once

#include <functional>

namespace s4bxi {

// Returns at once when `when` is not after the current simulated time; a
// later `when` must be finite.
void sleep_until(double when);
// Returns at once when `duration` is not positive.
void sleep_for(double duration);
// Whether an actor sleeps here: a wake is then on its way, as a sleep action
// of SimGrid's models would be (portals/poll_sentinel.cpp looks at both).
bool some_actor_sleeps();
// SimGrid's precision (surf/precision): what ends within it of the date
// time moves to ends in that round, as SimGrid's models end their actions;
// the server's timers do the same (here, and nic/wire.cpp).
double time_precision();
// Runs `callback` in maestro at `when` (later than now, finite), in the
// round where an actor sleeping until then wakes, before the actors run: a
// delay of the simulation's own, without an actor to switch to (the NIC's TX
// engines, nic/nic.cpp). It counts as a sleep for some_actor_sleeps, and the
// wake-up callbacks run after it. Returns what cancel_call takes.
using CallHandle = unsigned long long;
CallHandle call_at(double when, std::function<void()> callback);
// Forgets a call not made yet (nothing when it was made).
void cancel_call(CallHandle handle);
// Called in the actor's context once it wakes from a sleep, as SimGrid's
// Actor::on_wake_up is after this_actor::sleep_for (and in maestro after the
// calls of call_at).
void on_wake_up_cb(std::function<void()> callback);

} // namespace s4bxi
