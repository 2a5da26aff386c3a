#include "outside_holder.hpp"

#include "../job/blocked_ranks.hpp"
#include "../job/job_control.hpp"
#include "../job/parked_ranks.hpp"
#include "../model_options.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <cstdio>
#include <ctime>
#include <utility>

namespace s4u = simgrid::s4u;

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_outside_holder, "Holding the simulation for what happens outside it");

namespace s4bxi::portals {

void OutsideHolder::start(s4u::Host* host, Sentinel sentinel)
{
  sentinel_ = std::move(sentinel);
  hold_mutex_ = s4u::Mutex::create();
  hold_wanted_ = s4u::ConditionVariable::create();
  s4u::Actor::create("outside-holder", host, [this] { hold_when_requested(); })->daemonize();
}

void OutsideHolder::request()
{
  hold_requested_ = true;
  hold_wanted_->notify_all();
}

void OutsideHolder::hold_when_requested()
{
  while (true) {
    {
      std::unique_lock lock(*hold_mutex_);
      while (not hold_requested_)
        hold_wanted_->wait(lock);
      hold_requested_ = false;
    }
    // A timer runs after time moved and before the actors that this woke
    // have run: only two scheduling rounds in which nothing happened (no
    // activity ended, no rank was notified) prove that no actor can run.
    s4u::this_actor::yield();
    const uint64_t seen = sentinel_.happenings();
    s4u::this_actor::yield();
    // Something happened, or the hold released a rank: look again once the
    // actors that ran have run, as they may leave the simulation idle again
    // with no activity ending (a rank released by its PMI command that enters
    // the PMI barrier while another rank stays parked). A hold that released
    // nothing leaves the simulation to end as a deadlock.
    if (sentinel_.happenings() != seen || hold_for_outside(sentinel_.simulation_idle()))
      sentinel_.look_again();
  }
}

bool OutsideHolder::deliver_outside_notices(bool look_anyway)
{
  if (not world_.outside_notice.exchange(false, std::memory_order_acq_rel) && not look_anyway)
    return false;
  const bool aborted = aborts_.deliver();
  const bool released = job::release_parked(world_);
  // Lanes the ranks' threads took: opened here when the rank's own proxy
  // does not wait on its process (it is in a call, or parked), else there
  // (kAttentionLane), after what the process answered itself.
  bool opened = false;
  for (auto& rank : world_.ranks)
    if (rank.alive && not rank.awaiting_request && world_.open_lanes && rank.channel != nullptr) {
      const auto before = world_.lanes.size();
      world_.open_lanes(rank);
      opened = opened || world_.lanes.size() != before;
    }
  return aborted || released || opened;
}

namespace {

// A caller whose proxy has taken its process's call and not begun to serve
// it (the calls the process queued, the polls it answered itself and the
// compute before it run first): it waits for nothing outside the simulation,
// and the simulation goes on with it.
bool call_taken_not_served(const World& world)
{
  bool taken = false;
  world.for_each_caller([&taken](const RankPortals& caller) {
    taken = taken || (caller.alive && caller.channel != nullptr && not caller.parked && not caller.awaiting_request &&
                      caller.request_bell().current() == caller.bell_seen && caller.stats.answers > 0 &&
                      caller.current_call == "user code");
  });
  return taken;
}

} // namespace

bool OutsideHolder::hold_for_outside(bool idle)
{
  // Notices are looked at every millisecond; whether anything can still
  // come (a /proc scan) every 50.
  const timespec slice{0, 1'000'000};
  constexpr int kSlicesPerScan = 50;
  const double start = job::wall_clock_now();
  struct Held {
    double& total;
    double since;
    ~Held() { total += job::wall_clock_now() - since; }
  } held{world_.held_for_outside_s, start};
  double next_note = options::stall_notice_after_s();
  // The channels are looked at each time, not only on a notice: what a
  // notice tells is in the channels before it is sent, and under load the
  // rank watcher's thread may not have read a PtlAbort's notice yet when the
  // thread that sent it already sleeps in a join and nothing else can come
  // (seen once beside two CPU hogs: the run ended as a deadlock with both
  // waits of e2e.ThreadLanes.AnAbortAfterASleepEndsTheOtherThreadsWaits
  // still blocked).
  std::string why; // what it waits for, for the note
  // (Seen beside CPU hogs, hpcc at 2 ranks, about 1 run in 80: both ranks'
  // proxies had taken their PtlEQGet and not served it, with nothing pending
  // in the simulation, when a parked thread of Open MPI made the holder hold
  // for it: held until the run's timeout. Whatever let them stand there, the
  // simulation, not the outside, is what they wait for.)
  if (call_taken_not_served(world_))
    return deliver_outside_notices(true);
  for (int slice_count = 0;; ++slice_count) {
    if (deliver_outside_notices(true))
      return true;
    // (A notice may have come just before what could send one stopped.)
    if (const int waiter = aborts_.waiter_another_thread_may_abort(); waiter >= 0) {
      why = "another thread of rank " + std::to_string(waiter) + " runs and may abort its wait";
    } else {
      if (not idle) // simulated time may move on
        return deliver_outside_notices(true);
      if (slice_count % kSlicesPerScan == 0) {
        why = job::why_parked_may_wake(world_);
        if (why.empty())
          return deliver_outside_notices(true);
      }
    }
    if (on_hold_tick)
      on_hold_tick();
    const double waited = job::wall_clock_now() - start;
    if (idle && next_note > 0 && waited >= next_note) {
      const std::string states = job::describe_blocked_ranks(world_, [](const RankPortals& rank) {
        return not rank.alive ? std::string("exited") : "in " + rank.current_call;
      });
      std::fprintf(stderr,
                   "s4bxi-run: note: nothing can happen in the simulation (simulated time %.9f s) until something "
                   "outside it releases a rank (%s); waited %.3g s (real time) so far (%s)\n",
                   sim_now(), why.c_str(), waited, states.c_str());
      world_.for_each_caller([](const RankPortals& caller) {
        XBT_VERB("held: rank %u%s (thread %d, %u answers): call '%s', parked %d, awaiting its request %d, poll "
                 "blocked %d (released %d), request bell %u (seen %u, parked at %u), reply bell sleepers %u, abort "
                 "counted %d, deferred until %.9f",
                 caller.rank, caller.lane != nullptr ? " (a lane)" : "", static_cast<int>(caller.os_tid),
                 static_cast<unsigned>(caller.stats.answers), caller.current_call.c_str(), caller.parked,
                 caller.awaiting_request, caller.poll_blocked, caller.poll_released, caller.request_bell().current(),
                 caller.bell_seen, caller.parked_bell, caller.reply_bell().sleeping.load(std::memory_order_relaxed),
                 caller.abort_counted, caller.deferred_until);
      });
      next_note *= 3;
    }
    nanosleep(&slice, nullptr);
  }
}

} // namespace s4bxi::portals
