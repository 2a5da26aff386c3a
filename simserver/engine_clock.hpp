// The simulated time, read at the cost of a load.
//
// s4u::Engine::get_clock() goes through three calls of libsimgrid (the
// engine's instance, twice, and its implementation's clock), and the server
// read the clock about 140 times per simulated message of an 8 B MPI
// ping-pong: 2.4% of the server's instructions (callgrind). SimGrid moves
// its clock only in its solve step, which then calls the time-advance
// callbacks: the first of them, connected before main runs, copies the clock
// here, so that every later callback, timer and actor reads the same value
// as get_clock() would. (The calls back that solve makes before, to the
// server's listeners of communications and links, copy it first too:
// engine_clock.cpp. A listener of another of SimGrid's signals that may be
// called within solve reads s4u::Engine::get_clock(), or is followed there.)
#pragma once

namespace s4bxi {

namespace detail {
extern double engine_clock;
} // namespace detail

// The current simulated time, as s4u::Engine::get_clock().
inline double sim_now()
{
  return detail::engine_clock;
}

} // namespace s4bxi
