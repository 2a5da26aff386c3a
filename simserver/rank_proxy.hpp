// The actor that stands for one rank process in the simulation. It answers the
// process's calls one at a time; between a reply and the next request it
// blocks the whole simulation (serialized execution, DESIGN.md), so the
// process runs alone and nothing changes in simulated time meanwhile.
#pragma once

#include "job/job_control.hpp"
#include "pmi/pmi_server.hpp"
#include "portals/api.hpp"
#include "world.hpp"

namespace s4bxi {

class RankProxy {
public:
  RankProxy(World& world, portals::Api& api, pmi::Server& pmi, job::JobControl& control, unsigned rank)
      : world_(world), api_(api), pmi_(pmi), control_(control), rank_(rank)
  {
  }
  void operator()();

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
  // A call the process answered itself (ipc::QueuedCall), if one waits in
  // the channel: run at its simulated time, after the polls before it and
  // before what the process did next.
  void run_queued_call();
  // A Portals call, a sleep or a sync, with its statistics and trace. With
  // `answered_early`, a PtlPut, PtlGet or atomic may be answered once its
  // arguments are checked (then *answered_early is true, and the reply sent).
  ipc::Reply serve(const ipc::Request& request, bool* answered_early);
  void reply(ipc::Reply reply);
  void ended(const job::Termination& end);
  // The rank's channel holds what neither side writes (`evidence`): ends the run.
  [[noreturn]] void overwritten(const std::string& evidence);

  World& world_;
  portals::Api& api_;
  pmi::Server& pmi_;
  job::JobControl& control_;
  unsigned rank_;
  uint32_t requests_seen_ = 0;
  uint32_t steps_replayed_ = 0; // of the polls the process answered since its last request
  // What its last answer told the process (for the sentence of a replay that does not match).
  double last_answer_at_ = 0;
  double last_horizon_ = 0;
  double asleep_since_ = -1; // real time since which the process sleeps in the kernel
  ipc::SpinBudget spin_;
};

} // namespace s4bxi
