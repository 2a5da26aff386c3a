#include "poll_sentinel.hpp"

#include "../actor_sleep.hpp"
#include "../job/blocked_ranks.hpp"
#include "../model_options.hpp"
#include "../nic/wire.hpp"
#include "api.hpp"
#include "../engine_clock.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

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

PollSentinel::PollSentinel(World& world, AbortWatch& aborts) : world_(world), aborts_(aborts), holder_(world, aborts)
{
  // Whatever may leave the simulation with nothing pending: an activity that
  // ends (a message's communication: once its RX engine takes it, nic/wire.hpp),
  // an actor that wakes up (from SimGrid's sleep or the server's,
  // actor_sleep.hpp), time that advances.
  s4u::Activity::on_completion_cb([this](const s4u::Activity&) { happened(); });
  nic::RxLane::on_message_taken_cb([this] { happened(); });
  s4u::Actor::on_wake_up_cb([this](const s4u::Actor&) { happened(); });
  s4bxi::on_wake_up_cb([this] { happened(); });
  s4u::Engine::on_time_advance_cb([this](double) { happened(); });
}

void PollSentinel::happened()
{
  events_++;
  arm();
}

void PollSentinel::start_holder(s4u::Host* host)
{
  holder_.start(host, {[this] { return happenings(); }, [] { return simulation_idle(); }, [this] { arm(); }});
}

uint64_t PollSentinel::happenings() const
{
  return events_ + RankPortals::notifications;
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
  // The simulation cannot be idle at the end of this round: whatever ends
  // later arms again then. (Arming at every event cost a scheduling round
  // with no time advance after each one: 19 of the 42 rounds per message of
  // a 2-rank MPI ping-pong.)
  if (something_ends_later())
    return;
  // Kernel timers due now run after the scheduling round, once every actor
  // that could run has run: then nothing pending means nothing ever will.
  const double now = sim_now();
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

bool PollSentinel::something_ends_later()
{
  if (RankPortals::deadline_waits > 0)
    return false;
  // (Not a timer: one may be removed, an E2E timer once its messages are
  // acknowledged, and nothing arms the check then. But an actor's sleep, on
  // a timer too, ends with its wake-up, which arms it.)
  // (A message crossing the wire alone is a timer, and queues at its lane:
  // its engine wakes, or takes it later, which arms it.)
  return some_activity_started() || some_actor_sleeps() || nic::Wire::lone_on_their_way() > 0 ||
         nic::Wire::in_maestro_pending() > 0;
}

bool PollSentinel::some_activity_started()
{
  // The engine's own list, as it walks it (platform/unused_models.hpp shortens
  // it once, in place): read at every arming, 24 times per simulated message of
  // a 2-rank MPI ping-pong.
  static const auto& models = s4u::Engine::get_instance()->get_all_models();
  for (auto* model : models)
    if (not model->get_started_action_set()->empty())
      return true;
  return false;
}

bool PollSentinel::simulation_idle()
{
  // An activity on its way (a message on a link, a PCIe transfer, compute, a
  // sleep, a wait with a deadline) or a timer (E2E retransmission, link
  // state change) can still change what the pollers poll.
  return not some_activity_started() && simgrid::kernel::timer::Timer::next() < 0;
}

void PollSentinel::check()
{
  const bool idle = simulation_idle();
  // Before simulated time moves on (this runs before it does): a thread that
  // may still abort a wait runs; or nothing else can happen, and a parked
  // rank may wake. Held by the outside holder's actor, once it is sure that
  // no actor can run.
  if (holder_.started() && ((aborts_.threaded_waiters() > 0 && idle) ||
                            (aborts_.deadline_waiters() > 0 && aborts_.thread_may_abort()) ||
                            (idle && world_.parked_ranks > 0)))
    holder_.request();
  if (not idle)
    return;
  if (blocked_ == 0)
    return;
  // One more poll for each blocked poller, at this simulated time.
  world_.for_each_caller([this](RankPortals& caller) {
    if (caller.poll_blocked && not caller.poll_released) {
      caller.poll_released = true;
      caller.notify();
      idle_polls_++;
    }
  });
  const unsigned long limit = options::poll_deadlock_after();
  if (limit == 0 || not on_deadlock)
    return;
  auto states = [this] {
    return job::describe_blocked_ranks(world_, [this](const RankPortals& rank) {
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
      not parked_caller_may_send() && every_rank_stuck_in_mpi()) {
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

bool PollSentinel::parked_caller_may_send() const
{
  // A parked rank, or a parked thread that has made Portals calls (a
  // library's thread that never did, asleep in epoll, sends nothing).
  bool may = false;
  world_.for_each_caller([&may](const RankPortals& caller) {
    may = may || (caller.parked && (caller.lane == nullptr || caller.lane_called));
  });
  return may;
}

void PollSentinel::progress()
{
  idle_polls_ = idle_rounds_ = 0;
  mpi_looks_.clear();
}

namespace {

bool in_poll(const RankPortals& rank)
{
  for (ipc::Op poll : {ipc::Op::EQGet, ipc::Op::EQPoll, ipc::Op::CTGet, ipc::Op::CTPoll})
    if (rank.current_call == Api::call_name(poll))
      return true;
  return false;
}

} // namespace

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
    // Blocked on its polls, or in the middle of one (a poll that the
    // sentinel has just released, now charged): either way inside the call,
    // its stack still. Between two polls of its loop: looked at later. (A
    // loop that alternates two polls, each blocking until the sentinel
    // releases it, is always in the middle of one when the sentinel looks.)
    if (not rank.poll_blocked && not in_poll(rank)) {
      all = false;
      continue;
    }
    look.verdict = job::polls_in_blocking_mpi_call(rank, look.call_site) ? Verdict::Stuck : Verdict::MayEnd;
    if (look.verdict == Verdict::MayEnd)
      return false;
  }
  return all;
}

} // namespace s4bxi::portals
