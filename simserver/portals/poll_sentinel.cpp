#include "poll_sentinel.hpp"

#include "../job/blocked_ranks.hpp"
#include "../job/job_control.hpp"
#include "../job/parked_ranks.hpp"
#include "../model_options.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <cstdio>
#include <ctime>

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

namespace {
// Rounds of polls in vain, with nothing else pending, after which the polling
// ranks' stacks are read (a ptrace attach each) to see whether they are all
// in blocking MPI calls; then every few rounds for the ranks that were
// between two polls of their loop.
constexpr unsigned long kRoundsBeforeReadingStacks = 512;
constexpr unsigned long kRoundsBetweenLooks = 16;
} // namespace

PollSentinel::PollSentinel(World& world, AbortWatch& aborts) : world_(world), aborts_(aborts)
{
  // Whatever may leave the simulation with nothing pending: an activity that
  // ends, an actor that wakes up, time that advances.
  s4u::Activity::on_completion_cb([this](const s4u::Activity&) {
    events_++;
    arm();
  });
  s4u::Actor::on_wake_up_cb([this](const s4u::Actor&) {
    events_++;
    arm();
  });
  s4u::Engine::on_time_advance_cb([this](double) {
    events_++;
    arm();
  });
}

void PollSentinel::start_holder(s4u::Host* host)
{
  hold_mutex_ = s4u::Mutex::create();
  hold_wanted_ = s4u::ConditionVariable::create();
  s4u::Actor::create("outside-holder", host, [this] { hold_when_idle(); })->daemonize();
}

uint64_t PollSentinel::happenings() const
{
  return events_ + RankPortals::notifications;
}

void PollSentinel::hold_when_idle()
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
    const uint64_t seen = happenings();
    s4u::this_actor::yield();
    // Something happened, or the hold released a rank: look again once the
    // actors that ran have run, as they may leave the simulation idle again
    // with no activity ending (a rank released by its PMI command that enters
    // the PMI barrier while another rank stays parked). A hold that released
    // nothing leaves the simulation to end as a deadlock.
    if (happenings() != seen || hold_for_outside(simulation_idle()))
      arm();
  }
}

void PollSentinel::blocked(RankPortals& rank)
{
  rank.poll_blocked = true;
  rank.poll_released = false;
  blocked_++;
  arm();
}

void PollSentinel::unblocked(RankPortals& rank)
{
  if (rank.poll_blocked)
    blocked_--;
  rank.poll_blocked = false;
  if (not rank.poll_released)
    progress(); // it woke because something it polls changed
  rank.poll_released = false;
}

void PollSentinel::arm()
{
  if (blocked_ == 0 && aborts_.threaded_waiters() == 0 && world_.parked_ranks == 0)
    return;
  // Kernel timers due now run after the scheduling round, once every actor
  // that could run has run: then nothing pending means nothing ever will.
  const double now = s4u::Engine::get_clock();
  if (timer_ != nullptr && timer_date_ <= now)
    return;
  if (timer_ != nullptr)
    timer_->remove();
  timer_date_ = now;
  timer_ = simgrid::kernel::timer::Timer::set(now, [this] {
    timer_ = nullptr;
    check();
  });
}

bool PollSentinel::simulation_idle()
{
  // An activity on its way (a message on a link, a PCIe transfer, compute, a
  // sleep, a wait with a deadline) or a timer (E2E retransmission, link
  // state change) can still change what the pollers poll.
  for (auto* model : s4u::Engine::get_instance()->get_all_models())
    if (not model->get_started_action_set()->empty())
      return false;
  return simgrid::kernel::timer::Timer::next() < 0;
}

void PollSentinel::check()
{
  const bool idle = simulation_idle();
  // Before simulated time moves on (this runs before it does): a thread that
  // may still abort a wait runs; or nothing else can happen, and a parked
  // rank may wake. Held by its own actor (hold_when_idle), once it is sure
  // that no actor can run.
  if (hold_wanted_ != nullptr && ((aborts_.threaded_waiters() > 0 && idle) ||
                                  (aborts_.deadline_waiters() > 0 && aborts_.thread_may_abort()) ||
                                  (idle && world_.parked_ranks > 0))) {
    hold_requested_ = true;
    hold_wanted_->notify_all();
  }
  if (not idle)
    return;
  if (blocked_ == 0)
    return;
  // One more poll for each blocked poller, at this simulated time.
  for (auto& rank : world_.ranks)
    if (rank.poll_blocked && not rank.poll_released) {
      rank.poll_released = true;
      rank.notify();
      idle_polls_++;
    }
  const unsigned long limit = options::poll_deadlock_after();
  if (limit == 0 || not on_deadlock)
    return;
  auto states = [this] {
    return job::describe_blocked_ranks(world_.ranks, [this](const RankPortals& rank) {
      // A rank seen polling in this stretch and now between two polls of
      // its loop polls in vain all the same; between two calls, its call
      // site is the one read then (a stack is read for ranks in a call).
      const bool seen_polling = rank.rank < mpi_looks_.size() && mpi_looks_[rank.rank].verdict == Verdict::Stuck;
      if (not rank.alive)
        return std::string("exited");
      if (rank.poll_blocked || (seen_polling && rank.current_call != "user code"))
        return "polling in vain (" + rank.current_call + ")";
      if (seen_polling)
        return "polling in vain " + mpi_looks_[rank.rank].call_site;
      return "in " + rank.current_call;
    });
  };
  // Open MPI's blocking calls poll until what they wait for comes: once
  // their progress loop has gone round many times with nothing in flight,
  // the stacks tell whether every rank is in one (a count of rounds, not
  // real time, decides: the same run always ends the same way).
  ++idle_rounds_;
  if (idle_rounds_ >= kRoundsBeforeReadingStacks && idle_rounds_ % kRoundsBetweenLooks == 0 &&
      world_.parked_ranks == 0 && every_rank_stuck_in_mpi()) {
    const std::string where = states();
    // Open MPI's spawn fails at its root, over our PMI-1, and leaves the
    // other ranks waiting for the root's word: say why.
    const bool spawning = where.find("MPI_Comm_spawn") != std::string::npos;
    on_deadlock("deadlock: no rank can make progress (" + where +
                "); each waits in a blocking MPI call or a Portals wait, and nothing is in flight" +
                (spawning ? ". MPI_Comm_spawn is not supported: the emulator starts no processes after the job's "
                            "ranks (no dynamic processes, no name service)"
                          : ""));
  }
  if (idle_polls_ >= limit)
    on_deadlock("deadlock: no rank can make progress (" + states() + "); " + std::to_string(idle_polls_) +
                " polls in a row found nothing while nothing else could happen (s4bxi/poll-deadlock-after)");
}

void PollSentinel::progress()
{
  idle_polls_ = idle_rounds_ = 0;
  mpi_looks_.clear();
}

bool PollSentinel::every_rank_stuck_in_mpi()
{
  // Within one stretch of polls in vain nothing changes for any rank (any
  // change ends the stretch), so a rank seen polling inside a blocking MPI
  // call stays there: each stack is read once per stretch.
  mpi_looks_.resize(world_.ranks.size());
  bool all = true;
  for (const auto& rank : world_.ranks) {
    StackLook& look = mpi_looks_[rank.rank];
    if (not rank.alive || look.verdict == Verdict::Stuck || job::waits_without_end(rank))
      continue;
    if (look.verdict == Verdict::MayEnd)
      return false;
    if (not rank.poll_blocked) { // between two polls of its loop: looked at later
      all = false;
      continue;
    }
    look.verdict = job::polls_in_blocking_mpi_call(rank, look.call_site) ? Verdict::Stuck : Verdict::MayEnd;
    if (look.verdict == Verdict::MayEnd)
      return false;
  }
  return all;
}

bool PollSentinel::deliver_outside_notices()
{
  if (not world_.outside_notice.exchange(false, std::memory_order_acq_rel))
    return false;
  const bool aborted = aborts_.deliver();
  const bool released = job::release_parked(world_);
  return aborted || released;
}

bool PollSentinel::hold_for_outside(bool idle)
{
  // Notices are looked at every millisecond; whether anything can still
  // come (a /proc scan) every 50.
  const timespec slice{0, 1'000'000};
  constexpr int kSlicesPerScan = 50;
  const double start = job::wall_clock_now();
  double next_note = options::stall_notice_after_s();
  for (int slice_count = 0;; ++slice_count) {
    if (deliver_outside_notices())
      return true;
    // (A notice may have come just before what could send one stopped.)
    if (not aborts_.thread_may_abort()) {
      if (not idle) // simulated time may move on
        return deliver_outside_notices();
      if (slice_count % kSlicesPerScan == 0 && not job::parked_may_wake(world_))
        return deliver_outside_notices();
    }
    if (on_hold_tick)
      on_hold_tick();
    const double waited = job::wall_clock_now() - start;
    if (idle && next_note > 0 && waited >= next_note) {
      const std::string states = job::describe_blocked_ranks(world_.ranks, [](const RankPortals& rank) {
        return not rank.alive ? std::string("exited") : "in " + rank.current_call;
      });
      std::fprintf(stderr,
                   "s4bxi-run: note: nothing can happen in the simulation (simulated time %.9f s) until something "
                   "outside it releases a rank; waited %.3g s (real time) so far (%s)\n",
                   s4u::Engine::get_clock(), waited, states.c_str());
      next_note *= 3;
    }
    nanosleep(&slice, nullptr);
  }
}

} // namespace s4bxi::portals
