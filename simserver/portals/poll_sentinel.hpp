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
// The same moment (nothing else pending) is when the simulation must wait in
// real time for what happens outside it, rather than take its waits for a
// deadlock: a thread that may still call PtlAbort on another thread's wait
// (abort_watch.hpp), a rank parked in the kernel that may still wake
// (job/parked_ranks.hpp). The sentinel sees that moment and has its outside
// holder (outside_holder.hpp) hold the simulation until one of them has
// released a rank, or none can anymore.
#pragma once

#include "../world.hpp"
#include "abort_watch.hpp"
#include "outside_holder.hpp"

#include <simgrid/s4u/Host.hpp>

#include <cstdint>
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
  void progress();

  // Ends the run (the sentence) when polling ranks are deadlocked.
  std::function<void(const std::string&)> on_deadlock;

  // Starts the outside holder's actor (on `host`, any will do).
  void start_holder(simgrid::s4u::Host* host);
  OutsideHolder& holder() { return holder_; }
  // The rank proxies deliver the rank watcher's notices as they wait
  // (OutsideHolder::deliver_outside_notices).
  bool deliver_outside_notices() { return holder_.deliver_outside_notices(); }

  // Checks at the end of this scheduling round (when a rank blocks, polling
  // or in a wait another thread may abort).
  void arm();

private:
  void happened(); // anything happened in the simulation: counted, and the check armed
  void check(); // release the blocked pollers if nothing else is pending
  [[nodiscard]] static bool simulation_idle();
  // Something on its way ends in time and arms the check again when it does:
  // an activity started (its end is an activity's end or a time advance);
  // but not while a proxy waits with a deadline, whose timeout a
  // notification cancels without either.
  [[nodiscard]] static bool something_ends_later();
  // An action of one of SimGrid's models is started and not done yet.
  [[nodiscard]] static bool some_activity_started();
  // Grows whenever anything happens in the simulation (an activity ends, an
  // actor wakes up, time advances, a rank is notified).
  [[nodiscard]] uint64_t happenings() const;

  World& world_;
  AbortWatch& aborts_;
  OutsideHolder holder_;
  uint64_t events_ = 0;
  unsigned blocked_ = 0;
  simgrid::kernel::timer::Timer* timer_ = nullptr;
  double timer_date_ = -1;
  unsigned long idle_polls_ = 0;
  unsigned long idle_rounds_ = 0; // checks in a row that released pollers, nothing else pending
  // Per rank, in the current stretch of polls in vain: what its stack said,
  // and where it made its MPI call.
  enum class Verdict : uint8_t { Unknown, Stuck, MayEnd };
  struct StackLook {
    Verdict verdict = Verdict::Unknown;
    std::string call_site;
  };
  std::vector<StackLook> mpi_looks_;
  // Whether every live rank waits without end or polls in vain inside a
  // blocking MPI call (job/blocked_ranks.hpp).
  // A parked caller that may still send something: then no stack look.
  [[nodiscard]] bool parked_caller_may_send() const;
  bool every_rank_stuck_in_mpi();
};

} // namespace s4bxi::portals
