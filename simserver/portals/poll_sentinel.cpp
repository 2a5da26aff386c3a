#include "poll_sentinel.hpp"

#include "../job/blocked_ranks.hpp"
#include "../model_options.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/kernel/resource/Model.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

namespace s4u = simgrid::s4u;

namespace s4bxi::portals {

PollSentinel::PollSentinel(World& world, AbortWatch& aborts) : world_(world), aborts_(aborts)
{
  // Whatever may leave the simulation with nothing pending: an activity that
  // ends, an actor that wakes up, time that advances.
  s4u::Activity::on_completion_cb([this](const s4u::Activity&) { arm(); });
  s4u::Actor::on_wake_up_cb([this](const s4u::Actor&) { arm(); });
  s4u::Engine::on_time_advance_cb([this](double) { arm(); });
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
    idle_polls_ = 0; // it woke because something it polls changed
  rank.poll_released = false;
}

void PollSentinel::arm()
{
  if (blocked_ == 0 && aborts_.threaded_waiters() == 0)
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
  if (not simulation_idle())
    return;
  if (aborts_.threaded_waiters() > 0 && aborts_.hold_while_threads_run())
    return; // an aborted wait goes on
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
  if (limit == 0 || idle_polls_ < limit || not on_deadlock)
    return;
  const std::string states = job::describe_blocked_ranks(world_.ranks, [](const RankPortals& rank) {
    return not rank.alive      ? std::string("exited")
           : rank.poll_blocked ? "polling in vain (" + rank.current_call + ")"
                               : "in " + rank.current_call;
  });
  on_deadlock("deadlock: no rank can make progress (" + states + "); " + std::to_string(idle_polls_) +
              " polls in a row found nothing while nothing else could happen (s4bxi/poll-deadlock-after)");
}

} // namespace s4bxi::portals
