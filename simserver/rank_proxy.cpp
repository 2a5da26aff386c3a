#include "rank_proxy.hpp"

#include "actor_sleep.hpp"
#include "job/blocked_ranks.hpp"
#include "job/parked_ranks.hpp"
#include "job/stall_notice.hpp"
#include "model_options.hpp"
#include "nic/nic.hpp"
#include "nic/nic_parameters.hpp"
#include "portals/event_delivery.hpp"
#include "trace/recorder.hpp"
#include "engine_clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

// How long (real time) a caller that most likely waits for another thread
// of its process sleeps in the kernel before it is parked (asleep_for_long).
constexpr double kQuickParkS = 0.0005;

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_proxy, "Rank proxy actors: the server side of each rank's channel");

namespace s4u = simgrid::s4u;

namespace s4bxi {

namespace {

// The simulated seconds `cpu_ns` of a thread's CPU time become: times
// s4bxi/cpu-factor; nothing under s4bxi/cpu-threshold (as the process's clock).
std::optional<double> injected_compute_s(uint64_t cpu_ns)
{
  const double seconds = static_cast<double>(cpu_ns) * 1e-9 * options::cpu_factor();
  if (seconds < options::cpu_threshold_s())
    return std::nullopt;
  return seconds;
}

// A call that only polls event queues, at once: it may start at the rank's
// own time when that is later than the clock (portals/api_polls.cpp).
bool polls_at_rank_time(const ipc::Request& request)
{
  return request.op == ipc::Op::EQGet || (request.op == ipc::Op::EQPoll && request.args.poll.timeout_ms == 0);
}

// What a rank is blocked in, for deadlock reports: the call, and for the
// waits, the object waited on.
std::string describe_call(const ipc::Request& request)
{
  std::string text = portals::Api::call_name(request.op);
  char handle[32];
  switch (request.op) {
    case ipc::Op::EQWait:
      snprintf(handle, sizeof handle, " on EQ 0x%08x", request.args.handle.handle);
      return text + handle;
    case ipc::Op::CTWait:
      snprintf(handle, sizeof handle, " on CT 0x%08x", request.args.ct_wait.ct);
      return text + handle + " (until " + std::to_string(request.args.ct_wait.test) + ")";
    default: return text;
  }
}

// The process's peak resident memory (VmHWM), or -1. Read while it waits for
// the answer to its exit call: once it has ended, /proc no longer says.
long peak_resident_kb(pid_t pid)
{
  FILE* status = std::fopen(("/proc/" + std::to_string(pid) + "/status").c_str(), "r");
  if (status == nullptr)
    return -1;
  long kb = -1;
  char line[256];
  while (std::fgets(line, sizeof line, status) != nullptr)
    if (std::sscanf(line, "VmHWM: %ld kB", &kb) == 1)
      break;
  std::fclose(status);
  return kb;
}

// Says, after s4bxi/stall-notice-after real seconds without a call from the
// rank the simulation waits for, what that rank does (job/stall_notice).
class StallWatch {
public:
  // Returns a deadlock sentence when the rank is blocked for good outside the
  // emulated calls and no other rank can run to release it.
  std::string tick(World& world, const RankPortals& rank)
  {
    std::vector<RankPortals>& ranks = world.ranks;
    const double limit = options::stall_notice_after_s();
    if (limit <= 0 || rank.debugged) // stopped in the debugger: the user knows
      return {};
    const double now = job::wall_clock_now();
    if (start_ < 0) { // the first liveness period without a call
      start_ = now;
      cpu_at_start_ = job::process_cpu_s(rank.os_pid);
      next_notice_ = limit;
      return {};
    }
    if (now - start_ < next_notice_)
      return {};
    const std::string what = job::what_process_does(rank.os_pid, cpu_at_start_, rank.pmi_fd);
    const bool blocked = what.rfind("blocked", 0) == 0;
    std::fprintf(stderr,
                 "s4bxi-run: note: the simulation has waited %.3g s (real time) for rank %u's next call, at simulated "
                 "time %.9f s; rank %u is %s. %s\n",
                 now - start_, rank.rank, sim_now(), rank.rank, what.c_str(),
                 blocked ? "The simulation cannot go on without it: what it waits for (another rank's write, a "
                           "socket, a futex) cannot happen while the simulation waits for it"
                         : "If it waits for a flag in its memory that another rank sets, it waits forever: the "
                           "simulation delivers nothing until the rank's next call");
    next_notice_ *= 3;
    std::vector<pid_t> job_pids;
    for (const auto& member : ranks)
      job_pids.push_back(member.os_pid);
    if (not job::blocked_on_job_pipe(rank.os_pid, job_pids))
      return {};
    // (Not the thread of another rank that waits for its answer in an
    // exchange: it may spin there, yielding, for as long as this wait lasts,
    // and can end nothing. Beside CPU hogs, a rank whose call came while the
    // server waited here spun past four notices, 24 s.)
    for (const auto& other : ranks)
      if (other.alive && other.rank != rank.rank &&
          job::any_thread_running(other.os_pid, {.only = 0, .except = {other.thread_in_call()}}))
        return {};
    const std::string others = job::describe_blocked_ranks(world, [&rank, &what](const RankPortals& r) {
          if (r.rank == rank.rank)
            return what;
          if (not r.alive)
            return std::string("exited");
          if (r.current_call.empty() || r.current_call == "user code")
            return std::string("waiting for the simulation to serve its next call");
          return "in " + r.current_call;
        });
    return "deadlock: rank " + std::to_string(rank.rank) + " is " + what +
           ", and no other rank can run to end it (" + others + ")";
  }

private:
  double start_ = -1;
  double cpu_at_start_ = 0;
  double next_notice_ = 0;
};

} // namespace

RankProxy::Wake RankProxy::wait_for_request()
{
  ipc::Doorbell& request_bell = caller_.request_bell();
  std::atomic<uint32_t>& attention = caller_.attention();
  const bool main_lane = caller_.lane == nullptr;
  // A safety net: the rank watcher tells a process's end at once (pidfd), but
  // a kernel without pidfds, or Ctrl-C, are noticed here.
  const timespec liveness_period{0, 20'000'000};
  // The callers of a process whose threads make Portals calls: looked at
  // every half millisecond, and parked soon after their thread sleeps in
  // the kernel (asleep_for_long).
  const timespec quick_period{0, 500'000};
  // From now on, until its answer, the server waits on this rank alone.
  if (main_lane)
    world_.processes->scheduling()->served_rank.store(rank_, std::memory_order_relaxed);
  answer_taken();
  struct WaitClock {
    RankPortals& caller;
    const double start = job::wall_clock_now();
    WaitClock(RankPortals& waited) : caller(waited) { caller.awaiting_request = true; }
    ~WaitClock() { caller.awaiting_request = false; }
  } wait_clock{caller_};
  // Only the time the server's thread itself stands still for this process
  // counts as waiting for it: while the proxy is parked or runs ahead, the
  // other actors run (counted too, the proxies' waits overlapped: 1.5 s of
  // waiting in a 0.1 s start-up of 64 ranks).
  auto wait_for_the_call = [&](const timespec& period) {
    const double before = job::wall_clock_now();
    const bool woken = ipc::wait_for_ring(request_bell, requests_seen_, spin_, &period, &attention);
    const double after = job::wall_clock_now();
    caller_.stats.server_waited_s += after - before;
    if (world_.server_cpu != nullptr)
      world_.server_cpu->waited(after, after - before);
    return woken;
  };
  if (wake_relayed_) {
    // The warm rank was to wake it. If, whatever ended this wait (a call,
    // the time, an attention flag), the rank has not called since and still
    // sleeps, the server wakes it (a second wake is a spurious one, which the
    // rank absorbs); a relay that let the time pass gets no more wakes.
    wake_relayed_ = false;
    const timespec relay_period{0, 200'000};
    const bool woken = wait_for_the_call(relay_period);
    if (request_bell.current() == requests_seen_ &&
        caller_.reply_bell().sleeping.load(std::memory_order_seq_cst) != 0) {
      caller_.reply_bell().wake();
      if (not woken) {
        world_.relayed_wakes_missed++;
        world_.processes->drop_relay(relayed_to_);
      }
    }
  }
  StallWatch stall;
  while (true) {
    if (not main_lane) // its thread sets it when it starts (a lane taken by its creator)
      caller_.os_tid = caller_.lane->owner_tid.load(std::memory_order_acquire);
    const bool quick = caller_.process().calling_lanes > 0;
    const bool may_run_ahead = main_lane && not quick && options::compute_model() != options::ComputeModel::None &&
                               options::run_ahead() && node_has_a_core_per_caller();
    const timespec ahead_period{0, 100'000};
    const timespec& period = may_run_ahead ? ahead_period : quick ? quick_period : liveness_period;
    const bool woken = wait_for_the_call(period);
    if (not woken && may_run_ahead) {
      // The rank computes: its next call comes no earlier than this bound,
      // so the rest of the simulation may go on up to it meanwhile.
      const double bound = running_bound();
      if (bound > sim_now() + 1e-9) {
        run_queued_calls();
        replay_published_polls();
        caller_.awaiting_request = false;
        ran_ahead_s_ += bound - sim_now();
        s4bxi::sleep_until(bound);
        caller_.awaiting_request = true;
        world_.processes->scheduling()->served_rank.store(rank_, std::memory_order_relaxed);
      }
      if (job::wall_clock_now() - wait_clock.start < 0.02)
        continue;
    }
    if (not woken) {
      // A thread that ended without closing its lane (no call to
      // pthread_exit's destructors: killed by a signal handler's exit path,
      // say): nothing more comes from it.
      if (not main_lane && caller_.os_tid > 0 && not job::thread_exists(caller_.os_pid, caller_.os_tid) &&
          request_bell.current() == requests_seen_) {
        close_lane();
        return Wake::Ended;
      }
      // A call the process answered itself runs even while the process
      // makes no call (it spins on memory, or blocks in the kernel): at its
      // own simulated time, whenever it is taken.
      if (main_lane)
        run_queued_calls();
      if (std::string deadlock = stall.tick(world_, caller_); not deadlock.empty())
        control_.finish(job::kDeadlockStatus, deadlock);
      if (asleep_for_long()) {
        park();
        continue; // it called or ended
      }
    }
    // Only the server's rank watcher (and, for kAttentionLane, the process)
    // sets attention bits, and only these.
    if (const uint32_t bits = attention.load(); (bits & ~ipc::kAttentionAll) != 0) {
      char text[64];
      std::snprintf(text, sizeof text, "attention flags 0x%x", bits);
      overwritten(text);
    }
    // A PtlAbort or a parked rank's call, in any rank: wake who it releases.
    if ((attention.load() & ipc::kAttentionNotice) != 0) {
      attention.fetch_and(~ipc::kAttentionNotice);
      api_.poll_sentinel().deliver_outside_notices();
    }
    if ((attention.load() & ipc::kAttentionSibling) != 0) {
      // Another thread of the process called: its proxy waits behind this
      // one (one proxy waits at a time). What the process answered itself
      // comes first; then this proxy steps aside, at the same simulated time.
      attention.fetch_and(~ipc::kAttentionSibling);
      if (main_lane) {
        run_queued_calls();
        replay_published_polls();
      }
      if (request_bell.current() == requests_seen_ && sibling_call_waits()) {
        caller_.awaiting_request = false;
        s4u::this_actor::yield();
        caller_.awaiting_request = true;
        continue;
      }
    }
    if (main_lane && (attention.load() & ipc::kAttentionLane) != 0) {
      // A thread took a lane: what the process answered itself comes first
      // (from now on it answers nothing itself), then the thread's calls.
      attention.fetch_and(~ipc::kAttentionLane);
      catch_up_with_the_process(); // its threads' calls come at its time at the earliest
      open_lanes(world_, api_, pmi_, control_, caller_);
    }
    if (main_lane && (attention.load() & ipc::kAttentionPmi) != 0) {
      attention.fetch_and(~ipc::kAttentionPmi);
      return Wake::Pmi; // a request rung meanwhile stays pending for the next wait
    }
    if (request_bell.current() != requests_seen_) {
      requests_seen_ = request_bell.current();
      caller_.bell_seen = requests_seen_;
      // A happening for the outside holder (portals/outside_holder.cpp):
      // what this proxy starts for the call (a compute, a sleep) is not an
      // activity until the round ends, and the holder, running after it in
      // the same round, must not take the simulation for idle.
      RankPortals::notifications++;
      return Wake::Request;
    }
    if (woken)
      attention.fetch_and(~ipc::kAttentionEnded);
    control_.check_interrupt();
    if (auto end = world_.processes->poll_exit(rank_)) {
      // It may have rung just before dying.
      if (request_bell.current() != requests_seen_)
        continue;
      ended(*end);
      return Wake::Ended;
    }
  }
}

// The earliest simulated time at which the rank's next call can come, while
// it computes (s4bxi/run-ahead): its last answer plus the CPU time its main
// thread used since the point from which its compute surely counts.
double RankProxy::running_bound()
{
  ipc::Channel* channel = world_.processes->channel(rank_);
  const uint64_t since = channel->library.counting_since_cpu_ns.load(std::memory_order_relaxed);
  if (since == 0 || caller_.debugged)
    return last_answer_at_;
  if (not rank_cpu_)
    rank_cpu_.emplace(caller_.os_pid, caller_.os_pid); // the thread that attached: the main one
  const std::optional<uint64_t> cpu = rank_cpu_->read_ns();
  constexpr uint64_t kMarginNs = 2000; // the rank's clock readings, and rounding
  if (not cpu || *cpu <= since + kMarginNs)
    return last_answer_at_;
  // The rank may have entered the library (where its compute stops
  // counting) between the two readings: the CPU time read may then include
  // the library's. Only a count that still holds after the CPU reading
  // bounds the rank's clock (seen: calls up to 30 us before the bound, in
  // NetPIPE's integrity runs).
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (channel->library.counting_since_cpu_ns.load(std::memory_order_relaxed) != since)
    return last_answer_at_;
  return last_answer_at_ + injected_compute_s(*cpu - since - kMarginNs).value_or(0);
}

// The compute the simulation goes on through while the rank computes is not
// run on its node's cores (the rank's proxy sleeps through it): the same only
// while no two of the node's callers (its ranks, their threads' lanes) ever
// share a core in the model, as their compute would when it is run.
bool RankProxy::node_has_a_core_per_caller()
{
  if (node_ranks_ == 0)
    for (const auto& rank : world_.ranks)
      node_ranks_ += rank.node == caller_.node ? 1 : 0;
  unsigned callers = node_ranks_;
  for (const auto& lane : world_.lanes)
    callers += lane.alive && lane.node == caller_.node ? 1 : 0;
  return static_cast<int>(callers) <= world_.nodes[caller_.node].cores;
}

bool RankProxy::asleep_for_long()
{
  const RankPortals& rank = caller_;
  // A caller of a process whose threads make Portals calls: asleep in the
  // kernel, it most likely waits for another of its threads (a lock, a
  // condition of the MPI library), which cannot go on while the simulation
  // waits for this one.
  const bool quick = rank.process().calling_lanes > 0;
  const double limit = quick ? std::min(options::park_after_s(), kQuickParkS) : options::park_after_s();
  if (limit <= 0 || rank.debugged || not job::asleep_in_kernel(rank.os_pid, job::threads_of(world_, rank))) {
    asleep_since_ = -1;
    return false;
  }
  const double now = job::wall_clock_now();
  if (asleep_since_ < 0)
    asleep_since_ = now;
  return now - asleep_since_ >= limit;
}

void RankProxy::park()
{
  RankPortals& rank = caller_;
  asleep_since_ = -1;
  // Sequentially consistent, as the rank's ring and its look at `parked`:
  // either the rank's next call is seen here, or the rank sends a notice.
  rank.parked_flag().store(1, std::memory_order_seq_cst);
  if (rank.lane == nullptr) {
    // (After `parked`: a call queued later is followed by a Sync, a poll
    // answered later is left to the server.) It parks at its time.
    catch_up_with_the_process();
    // Lanes its threads took: from now on, whoever handles their notices opens them.
    rank.attention().fetch_and(~ipc::kAttentionLane);
    open_lanes(world_, api_, pmi_, control_, rank);
  }
  rank.awaiting_request = false;
  rank.parked_bell = requests_seen_;
  if (not job::released_from_park(rank)) {
    const std::string call_before = rank.current_call;
    rank.current_call = job::kernel_wait_of(rank);
    XBT_DEBUG("rank %u parked: %s", rank_, rank.current_call.c_str());
    const double start = sim_now();
    // A thread that blocked before its first call (a library's thread in
    // epoll) is dormant: nothing in the simulation waits for it, the outside
    // holder does not hold the simulation for it, and its blocked time is
    // not the rank's waiting time. Its call, if any, still wakes it.
    const bool dormant = rank.dormant();
    unsigned& parked_count = dormant ? world_.dormant_lanes : world_.parked_ranks;
    {
      std::unique_lock lock(*rank.mutex);
      rank.parked = true;
      parked_count++;
      world_.parks++;
      api_.poll_sentinel().arm();
      while (not job::released_from_park(rank)) {
        rank.unparked->wait(lock);
        world_.park_wake_ups++;
      }
      rank.parked = false;
      parked_count--;
    }
    // Woken from outside the simulation: its call comes no sooner than the
    // ranks' calls were promised to (portals/rank_calls.hpp), nor than any
    // rank's clock showed before (job::latest_clock_read).
    if (const double resume = std::max(world_.landing.calls_promised_from(), job::latest_clock_read(world_));
        rank.process().alive && resume > sim_now())
      s4bxi::sleep_until(resume);
    rank.current_call = call_before;
    if (not dormant)
      portals::Api::charge_blocked(rank, trace::Kind::Wait, start, "blocked in the kernel");
  }
  rank.awaiting_request = true;
  rank.parked_flag().store(0, std::memory_order_seq_cst);
  // Other proxies ran meanwhile: from now on, the server waits on this rank.
  if (rank.lane == nullptr)
    world_.processes->scheduling()->served_rank.store(rank_, std::memory_order_relaxed);
}

void RankProxy::overwritten(const std::string& evidence)
{
  control_.finish(1, "rank " + std::to_string(rank_) + " overwrote its channel to the emulator (" + evidence +
                         "): a stray pointer or an overrun in the program, the one part of the emulator's memory it "
                         "can write; the other ranks were stopped");
}

void RankProxy::inject_compute(uint64_t compute_ns)
{
  if (options::compute_model() == options::ComputeModel::None)
    return;
  const std::optional<double> burst = injected_compute_s(compute_ns);
  if (not burst)
    return;
  caller_.settle(); // compute starts at the rank's time
  double seconds = *burst;
  // What the simulation already went through while the rank computed
  // (s4bxi/run-ahead) is the start of this compute: only the rest is run.
  const double ahead = std::min(seconds, ran_ahead_s_);
  ran_ahead_s_ -= ahead;
  seconds -= ahead;
  const double start = sim_now() - ahead;
  if (seconds > 0)
    s4u::this_actor::execute(seconds * s4u::this_actor::get_host()->get_speed());
  caller_.stats.compute_s += ahead + seconds;
  caller_.stats.compute_ahead_s += ahead;
  if (trace::active != nullptr)
    trace::active->record({.kind = trace::Kind::Compute,
                           .node = caller_.node,
                           .rank = static_cast<int>(rank_),
                           .start = start,
                           .end = sim_now()});
}

void RankProxy::catch_up_with_the_process()
{
  run_queued_calls();
  replay_published_polls();
  caller_.settle();
}

void RankProxy::settle_unless_answered_ahead(const ipc::Reply& reply)
{
  // (An early answer's clock is synced later: not one of these.)
  const double until = caller_.deferred_until;
  if (until > sim_now() && (reply.flags & ipc::kReplyClockPending) == 0 &&
      api_.may_answer_ahead(caller_, until)) {
    world_.answers_ahead++;
    world_.answered_ahead_s += until - sim_now();
    return; // the proxy sleeps there while the process runs (operator())
  }
  caller_.settle();
}

void RankProxy::reply(ipc::Reply reply)
{
  // The answer comes at the rank's time: once the clock is there, or before
  // when nothing the rank could see happens meanwhile (s4bxi/answers-ahead).
  settle_unless_answered_ahead(reply);
  const double clock = sim_now();
  reply.now = caller_.time();
  const bool main_lane = caller_.lane == nullptr;
  // (A thread's lane: the process answers nothing itself while it has lanes,
  // so nothing of the mirror, the horizon or the append permits.)
  if (main_lane) {
    ipc::Channel* channel = world_.processes->channel(rank_);
    if (options::local_polls()) {
      // No event not written yet lands before a PCIe write from now (what the
      // mirror gives), nor before one from the NIC's earliest write. (Seen
      // from the clock, which an answer ahead leaves behind the rank's time:
      // the other ranks' calls may come from there.)
      const double landing_now = portals::mirror_queues(caller_, channel->mirror);
      const double earliest_write =
          options::horizon_from_traffic() ? world_.landing.earliest_write(caller_.node, clock) : clock;
      reply.horizon = landing_now + (earliest_write - clock);
      reply.event_write_s = landing_now - clock;
      // (A Put the process queues starts at its time, the answer's or later.)
      reply.put_forecast = world_.nics[caller_.node]->forecast_put(reply.now, earliest_write); // (none when off)
      reply.poll_streak = api_.poll_streak_state(caller_);
    }
    if (options::queued_appends())
      api_.write_append_permits(caller_, channel->append_permits);
    last_answer_at_ = reply.now;
    last_horizon_ = reply.horizon;
    ran_ahead_s_ = 0;
    // The calls it queued were run (the process waits for this answer, and
    // queues nothing meanwhile): it queues again from the first slot.
    if (queued_taken_ > 0) {
      channel->queued_state.store(0, std::memory_order_seq_cst);
      queued_taken_ = 0;
    }
    if (not answer_out_) {
      if (world_.answers_out > 0)
        caller_.stats.side_by_side++;
      world_.answers_out++;
      answer_out_ = true;
    }
  }
  if (main_lane)
    reply.staged_writes = caller_.staged.close_for_answer();
  RankStatistics& stats = caller_.stats;
  stats.answers++;
  ipc::Doorbell& bell = caller_.reply_bell();
  caller_.reply_slot() = reply;
  bell.sleep_hint.store(0, std::memory_order_relaxed);
  if (main_lane)
    world_.processes->scheduling()->served_rank.store(rank_, std::memory_order_relaxed);
  if (bell.publish()) {
    // It sleeps: the warm rank wakes it from the CPU where ranks run, if
    // there is one (checked in wait_for_request); else the server does.
    // (Either way a futex wake, and a scheduling delay.)
    stats.wake_ups++;
    if (main_lane && world_.processes->relay_wake(bell, rank_, relayed_to_)) {
      wake_relayed_ = true;
      world_.wakes_relayed++;
    } else {
      bell.wake();
    }
  }
}

void RankProxy::answer_taken()
{
  if (answer_out_) {
    world_.answers_out--;
    answer_out_ = false;
  }
}

void RankProxy::ended(const job::Termination& end)
{
  rank_cpu_.reset();
  answer_taken();
  if (caller_.lane != nullptr)
    close_lane();
  else
    caller_.staged.forget(); // (its memory is gone)
  RankPortals& rank = world_.ranks[rank_];
  if (not rank.alive)
    return; // told by the proxy of another of its threads
  rank.alive = false;
  // Its other threads' calls end too (portals/api.cpp, block_until), and
  // its parked threads go (a dormant lane's park ends with its process).
  rank.notify();
  world_.for_each_caller([&rank](RankPortals& caller) {
    if (&caller.process() == &rank && caller.parked)
      caller.notify_parked();
  });
  if (rank.debugged && rank.current_call != "exit")
    control_.finish(end.shell_status() != 0 ? end.shell_status() : 1,
                    "rank " + std::to_string(rank_) +
                        "'s debugger ended before the program did; the other ranks were stopped");
  rank.current_call = "exited";
  XBT_DEBUG("rank %u %s", rank_, end.describe().c_str());
  if (end.signaled || end.code != 0)
    control_.rank_failed(rank_, end);
}

void RankProxy::replay_local_polls(const ipc::LocalPolls& polls, uint32_t until)
{
  ipc::Channel* channel = world_.processes->channel(rank_);
  if (polls.count > ipc::kMaxLocalPolls || polls.queue_count > ipc::kMaxLocalPollQueues || until > polls.count)
    overwritten("it tells " + std::to_string(polls.count) + " polls of " + std::to_string(polls.queue_count) +
                " queues, more than libportals ever answers itself");
  while (steps_replayed_ < until) {
    // Copied: the channel is the process's to write.
    const ipc::LocalPollStep step = channel->local_steps[steps_replayed_];
    inject_compute(step.compute_counted != 0 ? step.compute_ns : 0);
    const char* mismatch = nullptr;
    uint32_t run = 1;
    if (step.kind == ipc::LocalPollStep::Empty) {
      // The empty polls that follow with no simulated compute in between.
      std::array<ipc::LocalPollStep, ipc::kMaxLocalPolls> empty;
      empty[0] = step;
      while (steps_replayed_ + run < until) {
        const ipc::LocalPollStep next = channel->local_steps[steps_replayed_ + run];
        if (next.kind != ipc::LocalPollStep::Empty || next.compute_counted != 0)
          break;
        empty[run++] = next;
      }
      mismatch = api_.replay_empty_polls(world_.ranks[rank_], std::span(empty.data(), run), polls);
    } else {
      mismatch = api_.replay_local_poll(world_.ranks[rank_], step, polls);
    }
    if (mismatch != nullptr) {
      char answer[120];
      std::snprintf(answer, sizeof answer, "; its last answer at %.12g s, horizon %.12g s", last_answer_at_,
                    last_horizon_);
      overwritten("the polls it answered itself do not match its event queues: " + std::string(mismatch) +
                  api_.mismatch_detail() + answer);
    }
    steps_replayed_ += run;
  }
}

void RankProxy::replay_published_polls()
{
  ipc::Channel* channel = world_.processes->channel(rank_);
  const uint32_t claimed =
      channel->published_polls.count.fetch_or(ipc::kPublishedPollsClaimed, std::memory_order_seq_cst) &
      ~ipc::kPublishedPollsClaimed;
  // Copied, and bounded: the channel is the process's to write.
  ipc::LocalPolls polls{};
  polls.count = claimed;
  polls.queue_count = std::min<uint32_t>(channel->published_polls.queue_count, ipc::kMaxLocalPollQueues);
  std::copy_n(channel->published_polls.queues, polls.queue_count, polls.queues);
  replay_local_polls(polls, claimed);
}

void RankProxy::run_queued_calls()
{
  ipc::Channel* channel = world_.processes->channel(rank_);
  // The calls counted so far that it has not run yet. It takes them without
  // a claim: the process goes on queuing after them, as it would have had
  // the server not looked (a look at a liveness period comes at a moment
  // real time decides, and what the process does next must not depend on it).
  const uint32_t counted = channel->queued_state.load(std::memory_order_seq_cst);
  // Only the process counts up, and only this proxy's reply sets the count
  // back to zero: any other word there is the program's stray write.
  if (counted > ipc::kMaxQueuedCalls || counted < queued_taken_) {
    char text[64];
    std::snprintf(text, sizeof text, "its queued calls count 0x%x", counted);
    overwritten(text);
  }
  for (; queued_taken_ < counted; ++queued_taken_) {
    // Copied: the channel is the process's to write. Its fields first, then
    // as much of the payload as they say was captured (bounded): the rest
    // of the slot may hold an earlier call's bytes, which nothing reads.
    ipc::QueuedCall queued;
    const ipc::QueuedCall& slot = channel->queued_calls[queued_taken_];
    std::memcpy(static_cast<void*>(&queued), &slot, ipc::kQueuedCallFieldBytes); // (trivially copyable)
    std::memcpy(queued.put_payload, slot.put_payload, ipc::queued_call_bytes(queued) - ipc::kQueuedCallFieldBytes);
    run_queued_call(queued);
  }
}

void RankProxy::run_queued_call(const ipc::QueuedCall& queued)
{
  ipc::Request request{};
  request.op = queued.op;
  const char* name = "PtlPut";
  if (queued.op == ipc::Op::Put) {
    // The process captured the payload in the call: the server never reads
    // it from memory the process has gone on using. Except a payload the NIC
    // reads by DMA (s4bxi/queued-dma-puts), which it reads when the Put runs,
    // as for a Put it was sent; Api::issue checks that it is one.
    const uint32_t captured = queued.args.put.captured_length;
    if ((captured != queued.args.put.length && not(captured == 0 && options::queued_dma_puts())) ||
        captured > ipc::kMaxQueuedPutPayload)
      overwritten("its queued PtlPut carries " + std::to_string(captured) + " of its " +
                  std::to_string(queued.args.put.length) + " bytes");
    request.args.put = queued.args.put;
  } else if (queued.op == ipc::Op::Append) {
    name = queued.args.append.is_matching != 0 ? "PtlMEAppend" : "PtlLEAppend";
    request.args.append = queued.args.append;
    request.args.append.reserved = 1;
  } else if (queued.op == ipc::Op::Unlink) {
    name = "PtlMEUnlink/PtlLEUnlink";
    request.args.handle = queued.args.unlink;
  } else {
    char text[64];
    std::snprintf(text, sizeof text, "its queued call names the operation 0x%x", static_cast<unsigned>(queued.op));
    overwritten(text);
  }
  RankPortals& rank = world_.ranks[rank_];
  // Before a Put, the polls the process answered itself may leave their
  // sleep to its command's write (s4bxi/replays-in-block, s4bxi/lone-commands).
  rank.may_defer = queued.op == ipc::Op::Put && options::replays_in_block() && options::lone_commands();
  replay_local_polls(queued.local_polls, queued.steps_before);
  rank.may_defer = false;
  inject_compute(queued.compute_counted != 0 ? queued.compute_ns : 0);
  if (queued.op != ipc::Op::Put)
    rank.settle(); // (a Put's command write starts at the rank's time: nic/lone_writes.cpp)
  rank.stats.answered_in_process++;
  const double start = rank.time();
  // A Put the process went on from as forecast (nic/put_forecast.cpp): its
  // SEND event is checked when written, its end here.
  const bool forecast = queued.op == ipc::Op::Put && queued.forecast.used != 0;
  if (forecast) {
    world_.put_forecasts++;
    world_.ranks[rank_].put_forecast = &queued.forecast;
  }
  if (queued.op == ipc::Op::Put) {
    rank.running_queued_put = true;
    rank.queued_put_payload = std::span(queued.put_payload, queued.args.put.captured_length);
  }
  if (queued.op == ipc::Op::Append && queued.link_forecast.used != 0)
    rank.link_forecast = &queued.link_forecast; // (checked by Api::append)
  const ipc::Reply answer = serve(request, nullptr);
  rank.put_forecast = nullptr;
  rank.link_forecast = nullptr;
  rank.queued_put_payload = {};
  rank.running_queued_put = false;
  if (forecast) {
    if (const double end = sim_now(); std::abs(end - queued.forecast.end) > queued.forecast.tolerance_s() &&
                                                     world_.put_forecast_misses++ == 0)
      XBT_WARN("rank %u's PtlPut ended at %.12g s, its process forecast %.12g s (a bug: please report it; counted in "
               "the report's put_forecasts)",
               rank_, end, queued.forecast.end);
  }
  // The process returned PTL_OK (and for an append, the handle it was
  // permitted, at once: an append, as an unlink, takes no simulated time).
  const bool as_answered =
      answer.status == ipc::Status::Ok &&
      (queued.op != ipc::Op::Append || (answer.result.handle == queued.entry && sim_now() == start)) &&
      (queued.op != ipc::Op::Unlink || sim_now() == start);
  if (not as_answered)
    control_.finish(1, "rank " + std::to_string(rank_) + "'s " + name + " was answered by the process itself, but "
                    "not so by the server (status " + std::to_string(static_cast<unsigned>(answer.status)) +
                    "): the program overwrote its channel to the emulator, or the emulator's two checks of the "
                    "call differ (a bug: please report it); the other ranks were stopped");
}

ipc::Reply RankProxy::serve(const ipc::Request& request, bool* answered_early)
{
  RankPortals& rank = caller_;
  const bool portals_call = ipc::is_portals_call(request.op);
  if (portals_call)
    rank.stats.portals_calls++;
  rank.current_call = describe_call(request);
  if (portals_call)
    rank.last_call = portals::Api::call_name(request.op);
  const bool traced = portals_call && trace::active != nullptr;
  // A poll, or a Put the process queued, may start later than the clock,
  // where the replays before it left the rank (RankPortals::may_defer is set
  // for those only: portals/api_polls.cpp, nic/lone_writes.cpp).
  const double call_start = rank.time();
  // A lane's call may overlap the rank's (or another lane's): recorded whole
  // at its end, not as the rank's open call.
  if (traced && rank.lane == nullptr)
    trace::active->begin_call({.kind = trace::Kind::Call,
                               .node = rank.node,
                               .rank = static_cast<int>(rank_),
                               .start = call_start,
                               .what = portals::Api::call_name(request.op)});
  // An operation that is only posted may be answered as soon as its
  // arguments are checked (s4bxi/early-put-answer, portals/api_data.cpp).
  if (answered_early != nullptr &&
      (request.op == ipc::Op::Put || request.op == ipc::Op::Get || request.op == ipc::Op::Atomic ||
      request.op == ipc::Op::FetchAtomic || request.op == ipc::Op::Swap))
    rank.answer_early = [this, &rank, answered_early] {
      *answered_early = true;
      rank.running_ahead = true;
      rank.stats.early_answers++;
      ipc::Reply early{};
      early.flags = ipc::kReplyClockPending;
      reply(early);
    };
  ipc::Reply answer;
  try {
    answer = api_.handle(rank, request);
  } catch (const std::bad_alloc&) {
    // The argument checks bound what a call may make the server hold; a
    // call that still asks for more than it can allocate ends the run, not
    // the server.
    control_.finish(1, "rank " + std::to_string(rank_) + "'s " + portals::Api::call_name(request.op) +
                           " asked the server for more memory than it could allocate; the other ranks were "
                           "stopped");
  }
  // (A poll that found an event at once, at the rank's time: answered
  // there, reply() says when.)
  rank.answer_early = nullptr;
  rank.running_ahead = false;
  if (traced && trace::active != nullptr && rank.lane == nullptr)
    trace::active->end_call(rank_, rank.time());
  else if (traced && trace::active != nullptr)
    trace::active->record({.kind = trace::Kind::Call,
                           .node = rank.node,
                           .rank = static_cast<int>(rank_),
                           .start = call_start,
                           .end = rank.time(),
                           .what = portals::Api::call_name(request.op)});
  rank.current_call = "user code";
  return answer;
}

void RankProxy::start_lane(World& world, portals::Api& api, pmi::Server& pmi, job::JobControl& control,
                           RankPortals& rank, unsigned index, bool asleep)
{
  // Another thread of the process calls from now on: it may have looked at
  // what the process was to copy itself (job/staged_writes.hpp).
  rank.staged.flush();
  ipc::Lane& lane = rank.channel->lanes[index];
  RankPortals& caller = world.lanes.emplace_back();
  caller.rank = rank.rank;
  caller.node = rank.node;
  caller.pid = rank.pid;
  caller.uid = rank.uid;
  caller.os_pid = rank.os_pid;
  caller.channel = rank.channel;
  caller.sleep_in_long_waits = rank.sleep_in_long_waits;
  caller.mutex = rank.mutex;
  caller.changed = rank.changed;
  caller.unparked = s4u::ConditionVariable::create();
  caller.nic_memory_work = rank.nic_memory_work;
  caller.owner = &rank;
  caller.lane = &lane;
  caller.lane_index = index;
  caller.os_tid = lane.owner_tid.load(std::memory_order_relaxed);
  caller.current_call = "user code";
  caller.start_parked = asleep;
  XBT_DEBUG("rank %u: lane %u opens (thread %d)", rank.rank, index, static_cast<int>(caller.os_tid));
  s4u::Actor::create("rank" + std::to_string(rank.rank) + "-lane" + std::to_string(index),
                     s4u::this_actor::get_host(),
                     [&world, &api, &pmi, &control, &caller] { RankProxy(world, api, pmi, control, caller)(); });
}

void RankProxy::open_lanes(World& world, portals::Api& api, pmi::Server& pmi, job::JobControl& control,
                           RankPortals& rank)
{
  for (unsigned index = 0; index < ipc::kMaxLanes; ++index) {
    uint32_t opening = ipc::kLaneOpening;
    if (rank.alive && rank.channel->lanes[index].owner_tid.load(std::memory_order_acquire) > 0 &&
        rank.channel->lanes[index].state.compare_exchange_strong(opening, ipc::kLaneOpen))
      start_lane(world, api, pmi, control, rank, index, false);
  }
}

void RankProxy::open_lane_for_thread(uint32_t index)
{
  ipc::Reply answer{};
  RankPortals& rank = caller_.process();
  // The creator took it (kLaneUnborn) for a thread it has just started.
  const bool valid = index < ipc::kMaxLanes &&
                     rank.channel->lanes[index].state.load(std::memory_order_acquire) == ipc::kLaneOpening &&
                     rank.channel->lanes[index].owner_tid.load(std::memory_order_acquire) != 0;
  if (not valid) {
    answer.status = ipc::Status::ArgInvalid;
    reply(answer);
    return;
  }
  // Still at the creator's simulated time, and before anything else runs in
  // the simulation, the new thread runs until it calls or sleeps in the
  // kernel (a library's thread waiting in epoll): only then does the
  // simulation go on, with its lane open or parked. So the thread's first
  // call is served at its own clock, and no real-time race decides what
  // runs when.
  const bool asleep = wait_for_first_call_or_sleep(rank.channel->lanes[index]);
  rank.channel->lanes[index].state.store(ipc::kLaneOpen, std::memory_order_release);
  // Answered first: the new lane's proxy may run before this one goes on.
  reply(answer);
  start_lane(world_, api_, pmi_, control_, rank, index, asleep);
}

bool RankProxy::wait_for_first_call_or_sleep(ipc::Lane& lane)
{
  const timespec period{0, 500'000};
  const double start = job::wall_clock_now();
  double next_note = options::stall_notice_after_s();
  const uint32_t before = lane.opened_bell;
  double asleep_since = -1;
  while (true) {
    if (lane.request_bell.current() != before)
      return false;
    const pid_t tid = lane.owner_tid.load(std::memory_order_acquire);
    // (A thread that ended without a call, too: nothing will ever come from it.)
    if (tid > 0 && not job::thread_exists(caller_.os_pid, tid))
      return true;
    if (tid > 0 && job::asleep_in_kernel(caller_.os_pid, {.only = tid, .except = {}})) {
      const double now = job::wall_clock_now();
      if (asleep_since < 0)
        asleep_since = now;
      else if (now - asleep_since >= kQuickParkS)
        return true;
    } else {
      asleep_since = -1;
    }
    control_.check_interrupt();
    if (world_.processes->poll_exit(rank_))
      return true;
    if (const double waited = job::wall_clock_now() - start; next_note > 0 && waited >= next_note) {
      std::fprintf(stderr,
                   "s4bxi-run: note: the simulation has waited %.3g s (real time) for a thread that rank %u started "
                   "to make its first call or to block, at simulated time %.9f s\n",
                   waited, rank_, sim_now());
      next_note *= 3;
    }
    ipc::wait_for_ring(lane.request_bell, before, spin_, &period, nullptr);
  }
}

bool RankProxy::sibling_call_waits() const
{
  // Another caller of the process with a call its proxy has not taken.
  const RankPortals& process = caller_.process();
  // (A parked one whose call the outside notices released runs once this
  // proxy steps aside too.)
  auto waits = [this](const RankPortals& sibling) {
    return &sibling != &caller_ && sibling.alive &&
           sibling.request_bell().current() != (sibling.parked ? sibling.parked_bell : sibling.bell_seen);
  };
  if (waits(process))
    return true;
  return std::any_of(world_.lanes.begin(), world_.lanes.end(), [&](const RankPortals& lane) {
    return lane.owner == &process && waits(lane);
  });
}

void RankProxy::close_lane()
{
  if (not caller_.alive)
    return;
  caller_.alive = false;
  caller_.current_call = "exited";
  if (caller_.lane_called)
    caller_.process().calling_lanes--;
  caller_.process().stats.add(caller_.stats);
  caller_.stats = RankStatistics{};
  // Free for another thread (the process takes a free lane by compare-and-swap).
  caller_.lane->owner_tid.store(0, std::memory_order_relaxed);
  caller_.lane->state.store(ipc::kLaneFree, std::memory_order_release);
}

void RankProxy::serve_lane()
{
  ipc::Lane& lane = *caller_.lane;
  // Copied from the process's side: the bell before its first call, and its
  // clock then (its first call is served from there, if the simulation has
  // not gone past it).
  requests_seen_ = lane.opened_bell;
  caller_.bell_seen = requests_seen_;
  const double opened_at = static_cast<double>(lane.opened_at_ns) * 1e-9;
  if (opened_at > sim_now() + 1e-12 && std::isfinite(opened_at))
    s4bxi::sleep_until(opened_at);
  // (Opened from outside the simulation: no call sooner than the ranks'
  // calls were promised to, portals/rank_calls.hpp.)
  if (const double promised = world_.landing.calls_promised_from(); promised > sim_now())
    s4bxi::sleep_until(promised);
  if (caller_.start_parked) // its thread sleeps in the kernel: the simulation goes on without it
    park();
  for (Wake wake = wait_for_request(); wake != Wake::Ended; wake = wait_for_request()) {
    const ipc::Request request = lane.request;
    if (request.op <= ipc::Op::Hello || request.op >= ipc::Op::Count_ || request.local_polls.count != 0) {
      char op[16];
      std::snprintf(op, sizeof op, "0x%x", static_cast<unsigned>(request.op));
      overwritten(std::string("a thread's lane names the operation ") + op +
                  (request.local_polls.count != 0 ? " with polls answered in the process" : "") +
                  ", which libportals never sends there");
    }
    caller_.call_inside_library = (request.flags & ipc::kRequestInsideLibrary) != 0;
    if (not caller_.lane_called && ipc::is_portals_call(request.op)) {
      caller_.lane_called = true;
      caller_.process().calling_lanes++;
    }
    inject_compute(request.compute_ns);
    if (request.op == ipc::Op::LaneClose) {
      reply(ipc::Reply{});
      close_lane();
      return;
    }
    if (request.op == ipc::Op::LaneOpen) {
      open_lane_for_thread(request.args.handle.handle);
      continue;
    }
    if (request.op == ipc::Op::Exit) {
      caller_.current_call = "exit";
      caller_.process().current_call = "exit";
      caller_.process().stats.max_rss_kb = peak_resident_kb(caller_.os_pid);
      reply(ipc::Reply{});
      continue; // the next thing we see should be the process's end
    }
    reply(serve(request, nullptr));
  }
}

void RankProxy::operator()()
{
  if (caller_.lane != nullptr) {
    serve_lane();
    return;
  }
  RankPortals& rank = world_.ranks[rank_];
  ipc::Channel* channel = world_.processes->channel(rank_);
  for (Wake wake = wait_for_request(); wake != Wake::Ended; wake = wait_for_request()) {
    if (wake == Wake::Pmi) {
      // What the process did itself before it wrote the PMI command: the
      // command is served at once, in simulated time (a barrier waits for
      // the other ranks), and nothing of it may be replayed after.
      catch_up_with_the_process();
      // The compute before a PMI command is only known at the next call on
      // the channel, and injected then.
      api_.end_poll_streak(rank); // polls around a PMI exchange are not a program that only polls
      pmi_.serve(rank_);
      rank.current_call = "user code";
      continue;
    }
    ipc::Request request = channel->request;
    if (request.op == ipc::Op::Append)
      request.args.append.reserved = 0; // only a queued append uses the reserved index
    // The preload writes only known operations: anything else is the
    // program's own stray write over its channel (the one part of the
    // segment it maps writable), and what else it damaged there is unknown.
    if (request.op < ipc::Op::Hello || request.op >= ipc::Op::Count_) {
      char op[16];
      std::snprintf(op, sizeof op, "0x%x", static_cast<unsigned>(request.op));
      overwritten(std::string("its request names the operation ") + op + ", which libportals never sends");
    }
    if (request.op == ipc::Op::Hello) {
      // First call of the process, or of a new image after exec(): the time it
      // spent loading is not the program's compute.
      if (request.args.hello.protocol_version != ipc::kProtocolVersion)
        control_.finish(1, "rank " + std::to_string(rank_) +
                               " uses a libportals from another version of the emulator; use the one installed "
                               "with this s4bxi-run");
      if (rank.debugged) // the program the debugger started, not the debugger
        rank.os_pid = request.args.hello.pid;
      rank.staged.attach(rank.os_pid, &channel->staged);
      // Its proxy sleeps to a known time, after which it answers (a landing,
      // the rank's own later time: portals/api_waits.hpp, RankPortals::settle).
      rank.staged.keep_while([&rank] {
        return not rank.wait_ends_on_change && std::isfinite(rank.wait_ends_no_sooner_than);
      });
      ipc::Reply hello{};
      // Payloads the CPU writes into the command (inline or PIO), and that
      // fit the request: a Put the process may queue itself.
      const auto& node = nic::node_parameters(rank.node);
      const auto limit = [](uint64_t pio_limit) {
        return static_cast<uint32_t>(std::min<uint64_t>(pio_limit, ipc::kMaxQueuedPutPayload));
      };
      // And those the NIC reads by DMA, which the process captures nothing of.
      const auto dma_above = [](uint64_t pio_limit) {
        return static_cast<uint32_t>(std::min<uint64_t>(pio_limit, UINT32_MAX));
      };
      hello.result.hello = {.rank = rank.rank,
                            .size = static_cast<uint32_t>(world_.ranks.size()),
                            .nid = rank.nid(),
                            .pid = rank.pid,
                            .uid = rank.uid,
                            .queued_puts = options::queued_puts() ? 1U : 0U,
                            .queued_appends = options::queued_appends() ? 1U : 0U,
                            .first_nid = kFirstNid,
                            .node_count = static_cast<uint32_t>(world_.nodes.size()),
                            .queued_put_limit_matching = limit(node.pio_limit_matching),
                            .queued_put_limit_plain = limit(node.pio_limit_plain),
                            .queued_unlinks = options::queued_unlinks() ? 1U : 0U,
                            .huge_pages = options::huge_pages() ? 1U : 0U,
                            .queued_dma_puts = options::queued_dma_puts() ? 1U : 0U,
                            .queued_dma_above_matching = dma_above(node.pio_limit_matching),
                            .queued_dma_above_plain = dma_above(node.pio_limit_plain)};
      reply(hello);
      continue;
    }
    // What the process answered itself came before this call: the polls
    // before a queued call, the queued call, the polls since (inside the
    // same MPI call, or not, as the call itself, for want of finer word).
    rank.call_inside_library = (request.flags & ipc::kRequestInsideLibrary) != 0;
    // Its main thread waits in the call until the answer (job/staged_writes.hpp);
    // under a debugger, what landed shows in its memory at once.
    if (not rank.debugged)
      rank.staged.open();
    run_queued_calls();
    // Before a poll that may block, the polls the process answered itself
    // may leave their sleep to that block (s4bxi/replays-in-block).
    rank.may_defer = options::poll_period_in_block() && options::replays_in_block() && polls_at_rank_time(request);
    replay_local_polls(request.local_polls, request.local_polls.count);
    rank.may_defer = false;
    steps_replayed_ = 0; // the process starts its steps again after this request
    inject_compute(request.compute_ns);
    // Anything but a poll starts at the clock, which sleeps to the rank's time
    // first (the replays left their sleep to a poll, or took an event at the
    // rank's time: Api::replay_local_poll).
    if (not polls_at_rank_time(request))
      rank.settle();
    if (ran_ahead_s_ > 1e-12) {
      // Its call came earlier than the time the simulation went on to while
      // it computed: the bound was wrong (s4bxi/run-ahead is experimental).
      static bool said = false;
      if (not said)
        XBT_WARN("rank %u called %.9g s before the time the simulation had gone on to while it computed "
                 "(s4bxi/run-ahead): its call runs late",
                 rank_, ran_ahead_s_);
      said = true;
      ran_ahead_s_ = 0;
    }
    if (request.op == ipc::Op::Exit) {
      rank.current_call = "exit";
      rank.stats.max_rss_kb = peak_resident_kb(rank.os_pid);
      reply(ipc::Reply{});
      if (rank.debugged) {
        // Its debugger may stay at its prompt after the program ended: the
        // simulation goes on without waiting for it (the job waits for the
        // debugger only once every rank is done: wait_for_debuggers).
        ended(job::Termination{});
        return;
      }
      continue; // the next thing we see should be the process's end
    }
    if (request.op == ipc::Op::LaneOpen) {
      open_lane_for_thread(request.args.handle.handle);
      continue;
    }
    bool answered = false;
    const ipc::Reply answer = serve(request, &answered);
    if (answered)
      xbt_assert(answer.status == ipc::Status::Ok, "a call answered early failed afterwards");
    else
      reply(answer);
    // The other actors due at this simulated time go first: the other
    // proxies answer their ranks too before this one stands still for its
    // process, so that the processes woken at one simulated time run at
    // once, side by side, instead of one wake-up after the other (a 16-rank
    // allreduce: half the time the server waited). The process's next call
    // comes at this time or later, after them either way.
    // Answered ahead of the clock, it does not stand still: the simulation
    // goes on to the rank's time while the process runs (nothing it could
    // see happens meanwhile, and this sleep keeps the simulation busy until
    // then), and the other ranks due before or then are answered meanwhile,
    // side by side with it.
    if (rank.deferred_until > sim_now() && rank.process().alive)
      rank.settle();
    else
      s4u::this_actor::yield();
  }
}

} // namespace s4bxi
