// Keeps the blocking of polling ranks exact (DESIGN.md, "Polling").
//
// A rank whose polls keep finding nothing is blocked until something it polls
// changes, instead of costing a round trip per poll period. That stands for
// the polls it would have made only while something else can still happen: a
// message in flight, another rank computing or sleeping, a timer. Once nothing
// else is pending in the whole simulation, the only thing that can happen is
// the polling ranks' own next polls (a bounded loop that ends, a loop that
// watches the clock): the sentinel then lets each of them poll once more, at
// the simulated time it would have, and they block again after that poll if
// it finds nothing. So blocking changes no simulated result, a bounded poll
// loop is never mistaken for a deadlock, and ranks that only poll while
// nothing else can ever happen are a deadlock, reported after a number of such
// polls in a row (s4bxi/poll-deadlock-after).
//
// The same moment (nothing else pending) is when a wait that only another
// thread of its process can end (PtlAbort) must not yet be taken for a
// deadlock while that thread runs: the sentinel lets the abort watch hold the
// simulation until then (abort_watch.hpp).
#pragma once

#include "../world.hpp"
#include "abort_watch.hpp"

#include <functional>
#include <string>

namespace simgrid::kernel::timer {
class Timer;
}

namespace s4bxi::portals {

class PollSentinel {
public:
  PollSentinel(World& world, AbortWatch& aborts);

  // `rank` blocks in a streak of empty polls / stops being blocked.
  void blocked(RankPortals& rank);
  void unblocked(RankPortals& rank);
  // A rank made progress (a call other than a poll, a poll that found
  // something): the count of polls made while nothing else was pending restarts.
  void progress() { idle_polls_ = 0; }

  // Ends the run (the sentence) when polling ranks are deadlocked.
  std::function<void(const std::string&)> on_deadlock;

  // Checks at the end of this scheduling round (when a rank blocks, polling
  // or in a wait another thread may abort).
  void arm();

private:
  void check(); // release the blocked pollers if nothing else is pending
  [[nodiscard]] static bool simulation_idle();

  World& world_;
  AbortWatch& aborts_;
  unsigned blocked_ = 0;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  double timer_date_ = -1;
  unsigned long idle_polls_ = 0;
};

} // namespace s4bxi::portals
