#include "rank_proxy.hpp"

#include "job/blocked_ranks.hpp"
#include "job/parked_ranks.hpp"
#include "job/stall_notice.hpp"
#include "model_options.hpp"
#include "nic/nic_parameters.hpp"
#include "portals/event_delivery.hpp"
#include "trace/recorder.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/asserts.h>
#include <xbt/log.h>

#include <algorithm>
#include <array>
#include <cstdio>

XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_proxy, "Rank proxy actors: the server side of each rank's channel");

namespace s4u = simgrid::s4u;

namespace s4bxi {

namespace {

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
  std::string tick(std::vector<RankPortals>& ranks, const RankPortals& rank)
  {
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
                 now - start_, rank.rank, s4u::Engine::get_clock(), rank.rank, what.c_str(),
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
    for (const auto& other : ranks)
      if (other.alive && other.rank != rank.rank && job::any_thread_running(other.os_pid))
        return {};
    const std::string others = job::describe_blocked_ranks(ranks, [&rank, &what](const RankPortals& r) {
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
  ipc::Channel* channel = world_.processes->channel(rank_);
  // A safety net: the rank watcher tells a process's end at once (pidfd), but
  // a kernel without pidfds, or Ctrl-C, are noticed here.
  const timespec liveness_period{0, 20'000'000};
  // From now on, until its answer, the server waits on this rank alone.
  world_.processes->scheduling()->served_rank.store(rank_, std::memory_order_relaxed);
  struct WaitClock {
    RankStatistics& stats;
    const double start = job::wall_clock_now();
    ~WaitClock() { stats.server_waited_s += job::wall_clock_now() - start; }
  } wait_clock{world_.ranks[rank_].stats};
  StallWatch stall;
  while (true) {
    const bool woken =
        ipc::wait_for_ring(channel->request_bell, requests_seen_, spin_, &liveness_period, &channel->attention);
    if (not woken) {
      // A call the process answered itself runs even while the process
      // makes no call (it spins on memory, or blocks in the kernel): at its
      // own simulated time, whenever it is taken.
      run_queued_call();
      if (std::string deadlock = stall.tick(world_.ranks, world_.ranks[rank_]); not deadlock.empty())
        control_.finish(job::kDeadlockStatus, deadlock);
      if (asleep_for_long()) {
        park();
        continue; // it called or ended
      }
    }
    // Only the server's rank watcher sets attention bits, and only these.
    if (const uint32_t bits = channel->attention.load(); (bits & ~ipc::kAttentionAll) != 0) {
      char text[64];
      std::snprintf(text, sizeof text, "attention flags 0x%x", bits);
      overwritten(text);
    }
    // A PtlAbort or a parked rank's call, in any rank: wake who it releases.
    if ((channel->attention.load() & ipc::kAttentionNotice) != 0) {
      channel->attention.fetch_and(~ipc::kAttentionNotice);
      api_.poll_sentinel().deliver_outside_notices();
    }
    if ((channel->attention.load() & ipc::kAttentionPmi) != 0) {
      channel->attention.fetch_and(~ipc::kAttentionPmi);
      return Wake::Pmi; // a request rung meanwhile stays pending for the next wait
    }
    if (channel->request_bell.current() != requests_seen_) {
      requests_seen_ = channel->request_bell.current();
      return Wake::Request;
    }
    if (woken)
      channel->attention.fetch_and(~ipc::kAttentionEnded);
    control_.check_interrupt();
    if (auto end = world_.processes->poll_exit(rank_)) {
      // It may have rung just before dying.
      if (channel->request_bell.current() != requests_seen_)
        continue;
      ended(*end);
      return Wake::Ended;
    }
  }
}

bool RankProxy::asleep_for_long()
{
  const RankPortals& rank = world_.ranks[rank_];
  const double limit = options::park_after_s();
  if (limit <= 0 || rank.debugged || not job::asleep_in_kernel(rank.os_pid)) {
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
  ipc::Channel* channel = world_.processes->channel(rank_);
  RankPortals& rank = world_.ranks[rank_];
  asleep_since_ = -1;
  // Sequentially consistent, as the rank's ring and its look at `parked`:
  // either the rank's next call is seen here, or the rank sends a notice.
  channel->parked.store(1, std::memory_order_seq_cst);
  run_queued_call(); // after `parked`: a call queued later is followed by a Sync
  replay_published_polls(); // after `parked`: a poll answered later is left to the server
  rank.parked_bell = requests_seen_;
  if (not job::rang_or_ended(rank)) {
    const std::string call_before = rank.current_call;
    rank.current_call = job::kernel_wait_of(rank);
    XBT_DEBUG("rank %u parked: %s", rank_, rank.current_call.c_str());
    const double start = s4u::Engine::get_clock();
    {
      std::unique_lock lock(*rank.mutex);
      rank.parked = true;
      world_.parked_ranks++;
      api_.poll_sentinel().arm();
      while (not job::rang_or_ended(rank))
        rank.changed->wait(lock);
      rank.parked = false;
      world_.parked_ranks--;
    }
    rank.current_call = call_before;
    portals::Api::charge_blocked(rank, trace::Kind::Wait, start, "blocked in the kernel");
  }
  channel->parked.store(0, std::memory_order_seq_cst);
  // Other proxies ran meanwhile: from now on, the server waits on this rank.
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
  const double seconds = static_cast<double>(compute_ns) * 1e-9 * options::cpu_factor();
  if (seconds < options::cpu_threshold_s())
    return;
  const double start = s4u::Engine::get_clock();
  s4u::this_actor::execute(seconds * s4u::this_actor::get_host()->get_speed());
  world_.ranks[rank_].stats.compute_s += seconds;
  if (trace::active != nullptr)
    trace::active->record({.kind = trace::Kind::Compute,
                           .node = world_.ranks[rank_].node,
                           .rank = static_cast<int>(rank_),
                           .start = start,
                           .end = s4u::Engine::get_clock()});
}

void RankProxy::reply(ipc::Reply reply)
{
  ipc::Channel* channel = world_.processes->channel(rank_);
  reply.now = s4u::Engine::get_clock();
  if (options::local_polls()) {
    // No event not written yet lands before a PCIe write from now (what the
    // mirror gives), nor before one from the NIC's earliest write.
    const double now = reply.now;
    const double landing_now = portals::mirror_queues(world_.ranks[rank_], channel->mirror);
    reply.horizon = landing_now + (world_.landing.earliest_write(world_.ranks[rank_].node, now) - now);
    reply.event_write_s = landing_now - now;
    reply.poll_streak = api_.poll_streak_state(world_.ranks[rank_]);
  }
  if (options::queued_appends())
    api_.write_append_permits(world_.ranks[rank_], channel->append_permits);
  RankStatistics& stats = world_.ranks[rank_].stats;
  stats.answers++;
  if (channel->reply_bell.sleeping.load(std::memory_order_relaxed) != 0)
    stats.wake_ups++; // the ring below wakes it up (a futex wake, and a scheduling delay)
  last_answer_at_ = reply.now;
  last_horizon_ = reply.horizon;
  channel->reply = reply;
  channel->reply_bell.sleep_hint.store(0, std::memory_order_relaxed);
  world_.processes->scheduling()->served_rank.store(rank_, std::memory_order_relaxed);
  channel->reply_bell.ring();
}

void RankProxy::ended(const job::Termination& end)
{
  RankPortals& rank = world_.ranks[rank_];
  rank.alive = false;
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

void RankProxy::run_queued_call()
{
  ipc::Channel* channel = world_.processes->channel(rank_);
  const uint32_t state = channel->queued_state.load(std::memory_order_seq_cst);
  if (state == ipc::kQueuedCallNone)
    return;
  if (state != ipc::kQueuedCallWaiting) {
    char text[64];
    std::snprintf(text, sizeof text, "its queued call is in state 0x%x", state);
    overwritten(text);
  }
  // Copied before it is given back: from then on the process may queue the next.
  const ipc::QueuedCall queued = channel->queued_call;
  channel->queued_state.store(ipc::kQueuedCallNone, std::memory_order_seq_cst);
  ipc::Request request{};
  request.op = queued.op;
  const char* name = "PtlPut";
  if (queued.op == ipc::Op::Put) {
    // The process captured the payload in the call: the server never reads
    // it from memory the process has gone on using.
    if (queued.args.put.inline_length != queued.args.put.length || queued.args.put.length > ipc::kMaxInlinePayload)
      overwritten("its queued PtlPut carries " + std::to_string(queued.args.put.inline_length) + " of its " +
                  std::to_string(queued.args.put.length) + " bytes");
    request.args.put = queued.args.put;
  } else if (queued.op == ipc::Op::Append) {
    name = queued.args.append.is_matching != 0 ? "PtlMEAppend" : "PtlLEAppend";
    request.args.append = queued.args.append;
    request.args.append.reserved = 1;
  } else {
    char text[64];
    std::snprintf(text, sizeof text, "its queued call names the operation 0x%x", static_cast<unsigned>(queued.op));
    overwritten(text);
  }
  replay_local_polls(queued.local_polls, queued.steps_before);
  inject_compute(queued.compute_counted != 0 ? queued.compute_ns : 0);
  world_.ranks[rank_].stats.answered_in_process++;
  const double start = s4u::Engine::get_clock();
  const ipc::Reply answer = serve(request, nullptr);
  // The process returned PTL_OK (and for an append, the handle it was
  // permitted, at once: an append takes no simulated time).
  const bool as_answered = answer.status == ipc::Status::Ok &&
                           (queued.op != ipc::Op::Append ||
                            (answer.result.handle == queued.entry && s4u::Engine::get_clock() == start));
  if (not as_answered)
    control_.finish(1, "rank " + std::to_string(rank_) + "'s " + name + " was answered by the process itself, but "
                    "not so by the server (status " + std::to_string(static_cast<unsigned>(answer.status)) +
                    "): the program overwrote its channel to the emulator, or the emulator's two checks of the "
                    "call differ (a bug: please report it); the other ranks were stopped");
}

ipc::Reply RankProxy::serve(const ipc::Request& request, bool* answered_early)
{
  RankPortals& rank = world_.ranks[rank_];
  const bool portals_call =
      request.op != ipc::Op::Sleep && request.op != ipc::Op::Noop && request.op != ipc::Op::Sync;
  if (portals_call)
    rank.stats.portals_calls++;
  rank.current_call = describe_call(request);
  if (portals_call)
    rank.last_call = portals::Api::call_name(request.op);
  const bool traced = portals_call && trace::active != nullptr;
  if (traced)
    trace::active->begin_call({.kind = trace::Kind::Call,
                               .node = rank.node,
                               .rank = static_cast<int>(rank_),
                               .start = s4u::Engine::get_clock(),
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
  rank.answer_early = nullptr;
  rank.running_ahead = false;
  if (traced && trace::active != nullptr)
    trace::active->end_call(rank_, s4u::Engine::get_clock());
  rank.current_call = "user code";
  return answer;
}

void RankProxy::operator()()
{
  RankPortals& rank = world_.ranks[rank_];
  ipc::Channel* channel = world_.processes->channel(rank_);
  for (Wake wake = wait_for_request(); wake != Wake::Ended; wake = wait_for_request()) {
    if (wake == Wake::Pmi) {
      // What the process did itself before it wrote the PMI command: the
      // command is served at once, in simulated time (a barrier waits for
      // the other ranks), and nothing of it may be replayed after.
      run_queued_call();
      replay_published_polls();
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
      ipc::Reply hello{};
      // Payloads the CPU writes into the command (inline or PIO), and that
      // fit the request: a Put the process may queue itself.
      const auto& node = nic::node_parameters(rank.node);
      const auto limit = [](uint64_t pio_limit) {
        return static_cast<uint32_t>(std::min<uint64_t>(pio_limit, ipc::kMaxInlinePayload));
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
                            .queued_put_limit_plain = limit(node.pio_limit_plain)};
      reply(hello);
      continue;
    }
    // What the process answered itself came before this call: the polls
    // before a queued call, the queued call, the polls since.
    run_queued_call();
    replay_local_polls(request.local_polls, request.local_polls.count);
    steps_replayed_ = 0; // the process starts its steps again after this request
    inject_compute(request.compute_ns);
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
    bool answered = false;
    const ipc::Reply answer = serve(request, &answered);
    if (answered)
      xbt_assert(answer.status == ipc::Status::Ok, "a call answered early failed afterwards");
    else
      reply(answer);
  }
}

} // namespace s4bxi
