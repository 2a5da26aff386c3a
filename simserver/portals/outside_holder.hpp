// Holds the simulation in real time while something outside it may still
// release a rank (DESIGN.md, "Waiting outside calls").
//
// When nothing else is pending in the simulation, it must not end as a
// deadlock while a rank can still be released from outside: a thread that
// may still call PtlAbort on another thread's wait (abort_watch.hpp), a rank
// parked in the kernel that may still wake (job/parked_ranks.hpp). Nor may
// simulated time run past a poll's deadline while a thread that may abort it
// runs. The poll sentinel (poll_sentinel.hpp) sees those moments at the end
// of a scheduling round and asks; this holder's own actor then waits, in real
// time, until a notice of the rank watcher (World::outside_notice) has
// released a rank, or none can anymore.
#pragma once

#include "../world.hpp"
#include "abort_watch.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdint>
#include <functional>

namespace s4bxi::portals {

class OutsideHolder {
public:
  // What the holder asks of the poll sentinel, which knows the simulation's
  // state: how many things have happened so far (grows with each), whether
  // nothing is pending, and to look again at the end of this round.
  struct Sentinel {
    std::function<uint64_t()> happenings;
    std::function<bool()> simulation_idle;
    std::function<void()> look_again;
  };

  OutsideHolder(World& world, AbortWatch& aborts) : world_(world), aborts_(aborts) {}

  // Starts the holder's actor (on `host`, any will do).
  void start(simgrid::s4u::Host* host, Sentinel sentinel);
  [[nodiscard]] bool started() const { return hold_wanted_ != nullptr; }
  // Holds the simulation once the actors that can still run this round have.
  void request();

  // Acts on the rank watcher's notices (World::outside_notice): aborted
  // waits and parked ranks that called or ended are woken, lanes taken are
  // opened. Returns whether any rank was. `look_anyway`: with no notice too
  // (what they tell is in the channels before the notice is sent: a notice
  // still on its way, or taken by a proxy that could not act on it all, is
  // no reason to leave a rank waiting).
  bool deliver_outside_notices(bool look_anyway = false);

  // Called while the simulation is held (Ctrl-C must still end the run).
  std::function<void()> on_hold_tick;

private:
  // The actor's body.
  void hold_when_requested();
  // Waits in real time while something outside may still release a rank
  // (while the simulation is `idle`: a running thread or a parked rank that
  // may wake; otherwise only a running thread that may abort a wait); true
  // once one was released.
  bool hold_for_outside(bool idle);

  World& world_;
  AbortWatch& aborts_;
  Sentinel sentinel_;
  simgrid::s4u::MutexPtr hold_mutex_;
  simgrid::s4u::ConditionVariablePtr hold_wanted_;
  bool hold_requested_ = false;
};

} // namespace s4bxi::portals
