// The actor that stands for one rank process in the simulation. It answers the
// process's calls one at a time; between a reply and the next request it
// blocks the whole simulation (serialized execution, DESIGN.md), so the
// process runs alone and nothing changes in simulated time meanwhile.
//
// A thread of the process that has a lane of its own (ipc::Lane) has a proxy
// of its own too, which serves that lane the same way at the thread's own
// simulated time: one thread's blocking call never holds another's. Only the
// rank's proxy (its main thread's) serves PMI and the start of the process,
// and replays what the process answered itself.
#pragma once

#include "job/job_control.hpp"
#include "job/thread_cpu.hpp"
#include "pmi/pmi_server.hpp"
#include "portals/api.hpp"
#include "world.hpp"

#include <optional>

namespace s4bxi {

class RankProxy {
public:
  // The proxy of a rank, or (`caller` a lane's entry in World::lanes) of one
  // of its threads.
  RankProxy(World& world, portals::Api& api, pmi::Server& pmi, job::JobControl& control, RankPortals& caller)
      : world_(world), api_(api), pmi_(pmi), control_(control), caller_(caller), rank_(caller.rank)
  {
  }
  void operator()();
  // Opens the lanes the rank's threads took (ipc::kLaneOpening): an entry in
  // World::lanes and a proxy each, from now.
  static void open_lanes(World& world, portals::Api& api, pmi::Server& pmi, job::JobControl& control,
                         RankPortals& rank);

private:
  // An entry in World::lanes for the rank's lane `index`, and its proxy.
  // (`asleep`: its thread sleeps in the kernel; the lane starts parked.)
  static void start_lane(World& world, portals::Api& api, pmi::Server& pmi, job::JobControl& control,
                         RankPortals& rank, unsigned index, bool asleep);
  // Op::LaneOpen: the lane the caller took for the thread it started; answers it.
  void open_lane_for_thread(uint32_t index);
  // Waits (in real time, the simulation held) until the thread of `lane`
  // makes its first call (false) or sleeps in the kernel, or its process
  // ends (true).
  bool wait_for_first_call_or_sleep(ipc::Lane& lane);

public:

private:
  enum class Wake { Request, Pmi, Ended };
  // Waits (in real time) for the process's next request on its channel, or
  // for it to write to its PMI socket, or for its end.
  Wake wait_for_request();
  // The process sleeps in the kernel outside any emulated call: the
  // simulation goes on without it until it calls again or ends
  // (job/parked_ranks.hpp).
  void park();
  // The process has slept in the kernel for s4bxi/park-after (checked at
  // each liveness period without a call).
  bool asleep_for_long();
  void inject_compute(uint64_t compute_ns);
  // The polls the process answered itself (preload/local_polls.hpp), those
  // not replayed yet up to step `until`, each after its own compute, as if
  // they had come one by one.
  void replay_local_polls(const ipc::LocalPolls& polls, uint32_t until);
  // Before simulated time goes on without the process's next request (a PMI
  // command, a park): claims the polls it has published since its last
  // reply and replays them, at the times they were made (ipc::PublishedPolls).
  void replay_published_polls();
  // The calls the process answered itself (ipc::QueuedCall) that wait in
  // the channel, in their order: each run at its simulated time, after the
  // polls before it and before what the process did next.
  void run_queued_calls();
  void run_queued_call(const ipc::QueuedCall& queued);
  // Before what is served at once without a request of the process (a PMI
  // command, a park, its threads' lanes): runs the calls it queued, replays
  // the polls it published, then sleeps to the rank's time, where those may
  // have left it ahead of the clock.
  void catch_up_with_the_process();
  // A Portals call, a sleep or a sync, with its statistics and trace. With
  // `answered_early`, a PtlPut, PtlGet or atomic may be answered once its
  // arguments are checked (then *answered_early is true, and the reply sent).
  ipc::Reply serve(const ipc::Request& request, bool* answered_early);
  // The loop of a lane's proxy: its thread's calls, until it ends.
  void serve_lane();
  // The lane's thread ended, or its process: its statistics go to the rank's.
  void close_lane();
  // Another thread of the process called, and its proxy waits to serve it.
  [[nodiscard]] bool sibling_call_waits() const;
  void reply(ipc::Reply reply);
  // Sleeps to the rank's time before its answer, unless it may be answered
  // there while the clock is still earlier (s4bxi/answers-ahead).
  void settle_unless_answered_ahead(const ipc::Reply& reply);
  void ended(const job::Termination& end);
  // The rank's channel holds what neither side writes (`evidence`): ends the run.
  [[noreturn]] void overwritten(const std::string& evidence);

  World& world_;
  portals::Api& api_;
  pmi::Server& pmi_;
  job::JobControl& control_;
  RankPortals& caller_; // the rank, or the lane this proxy serves
  unsigned rank_;
  uint32_t requests_seen_ = 0;
  uint32_t steps_replayed_ = 0; // of the polls the process answered since its last request
  // What its last answer told the process (for the sentence of a replay that does not match).
  double last_answer_at_ = 0;
  double last_horizon_ = 0;
  bool answer_out_ = false; // counted in World::answers_out
  bool wake_relayed_ = false; // its last answer's wake was handed to the warm rank (ipc/wake_relay.hpp)
  uint32_t relayed_to_ = 0;   // that rank
  // Its rank's process called back on its answer, or ended: the answer is
  // no longer out (World::answers_out).
  void answer_taken();
  uint32_t queued_taken_ = 0; // of the calls queued in the channel since its last reply, those it ran (run_queued_calls)
  double asleep_since_ = -1; // real time since which the process sleeps in the kernel
  std::optional<job::ThreadCpuClock> rank_cpu_; // its main thread's, while it computes (s4bxi/run-ahead)
  double ran_ahead_s_ = 0;   // simulated time already let go by while the rank computed
  // While its rank computes: the earliest simulated time of its next call.
  double running_bound();
  // Whether the simulation may go on through its rank's compute (s4bxi/run-ahead)
  // and still run every compute of the node as it would.
  bool node_has_a_core_per_caller();
  unsigned node_ranks_ = 0; // of its rank's node (counted at the first look)
  ipc::SpinBudget spin_;
};

} // namespace s4bxi
