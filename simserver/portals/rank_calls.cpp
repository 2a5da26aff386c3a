#include "rank_calls.hpp"

#include "event_delivery.hpp"

#include <algorithm>
#include <limits>

namespace s4bxi::portals {

double earliest_rank_call(const World& world, double now)
{
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // First the callers whose next call depends on nothing written for them.
  double earliest = kNever;
  bool at_once = false;
  bool change_waiters = false;
  world.for_each_caller([&](const RankPortals& caller) {
    // (A parked caller's call comes from outside the simulation: no sooner
    // than the calls promised so far, RankProxy::park.)
    if (not caller.alive || caller.parked || at_once)
      return;
    if (caller.debugged || caller.awaiting_request || caller.wait_ends_no_sooner_than == -kNever)
      at_once = true;
    else if (caller.wait_ends_on_change)
      change_waiters = true;
    else
      earliest = std::min(earliest, caller.wait_ends_no_sooner_than);
  });
  if (at_once)
    return now;
  const double others = std::max(earliest, now);
  // Then those that wait for a change: woken by a landing, which follows a
  // write of their NIC, which follows the others' calls at the earliest.
  if (change_waiters)
    world.for_each_caller([&](const RankPortals& caller) {
      if (caller.alive && not caller.parked && caller.wait_ends_on_change) {
        const RankPortals& rank = caller.process();
        const double written = world.landing.earliest_write(rank.node, now, others);
        earliest = std::min({earliest, caller.wait_ends_no_sooner_than, written + (event_landing_time(rank) - now)});
      }
    });
  return std::max(earliest, now);
}

} // namespace s4bxi::portals
