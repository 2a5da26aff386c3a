// s4bxi-simserver: the SimGrid simulation that the rank processes of a run
// talk to. Started by s4bxi-run (same command line plus the preload library).
#include "command_line.hpp"
#include "job/blocked_ranks.hpp"
#include "job/job_control.hpp"
#include "job/other_load.hpp"
#include "job/rank_processes.hpp"
#include "job/rank_watcher.hpp"
#include "launch_options.hpp"
#include "model_options.hpp"
#include "nic/nic.hpp"
#include "platform/cluster.hpp"
#include "platform/unused_models.hpp"
#include "platform/placement.hpp"
#include "pmi/pmi_server.hpp"
#include "portals/api.hpp"
#include "portals/rank_calls.hpp"
#include "rank_proxy.hpp"
#include "trace/recorder.hpp"
#include "world.hpp"

#include "other_processes.hpp" // (ipc/)

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>
#include <unistd.h>

namespace s4u = simgrid::s4u;
using namespace s4bxi;

namespace {

[[noreturn]] void usage_error(const std::string& sentence)
{
  std::fprintf(stderr, "s4bxi-run: %s\n", sentence.c_str());
  trace::finish(0); // a trace already started stays a valid (empty) one
  std::exit(job::kUsageErrorStatus);
}

void print_model_options()
{
  std::printf("Model options (set with --cfg=NAME:VALUE; SimGrid's own options also apply):\n");
  for (const auto& option : options::all()) {
    std::printf("  %-28s default %-12s %s", option.name.c_str(), option.default_value.c_str(), option.help.c_str());
    if (option.range)
      std::printf(" (%s)", option.range->text().c_str());
    if (not option.environment_alias.empty())
      std::printf(" [env %s]", option.environment_alias.c_str());
    std::printf("\n");
  }
}

// SimGrid's command line: logging only. Configuration goes through
// apply_configuration(), where a bad option is an error message, not an abort.
std::vector<std::string> simgrid_command_line(const LaunchOptions& launch)
{
  std::vector<std::string> args = {
      "s4bxi-simserver",
      "--log=xbt_cfg.thres:warning",
      // SimGrid's deadlock listing names actors, not ranks and calls: our own
      // sentence replaces it (--log=ker_engine.app:stderr brings it back).
      "--log=ker_engine.app:file:/dev/null",
      "--log=ker_engine.add:0",
      "--log=root.fmt:[%10.6r]%e[%a@%h]%e%m%n",
  };
  for (const auto& arg : launch.simgrid_args)
    if (arg.rfind("--log=", 0) == 0)
      args.push_back(arg);
  return args;
}

// Our defaults for the network model first, then the S4BXI_* variables, then
// the user's --cfg options, so that later ones win.
void apply_configuration(const LaunchOptions& launch)
{
  std::vector<std::string> settings = {
      // Plain max-min sharing without TCP correction factors: BXI is not TCP.
      "--cfg=network/model:CM02",
      "--cfg=network/crosstraffic:0",
      "--cfg=network/TCP-gamma:0",
      // SimGrid ends an activity whose remaining time is below this precision
      // (1 ns by default) at whatever engine round comes first: a NIC delay
      // of 200 ns then ended 0.24 ns early when another event fell in that
      // nanosecond, which reordered simultaneous messages and moved a 27-rank
      // stencil's simulated time by 2.4% with where ranks' polls happened to
      // end. Simulated times here are well below 1000 s, where doubles still
      // resolve 1e-13 s.
      "--cfg=surf/precision:1e-13",
  };
  for (const auto& arg : options::from_environment())
    settings.push_back(arg);
  for (const auto& arg : launch.simgrid_args)
    if (arg.rfind("--cfg=", 0) == 0)
      settings.push_back(arg);
  for (const auto& setting : settings) {
    std::string text = setting.substr(6);
    try {
      s4u::Engine::set_config(text);
    } catch (const std::exception& e) {
      std::string reason = e.what();
      reason = reason.substr(0, reason.find('\n'));
      usage_error("invalid configuration '" + text + "' (" + reason + "); s4bxi-run --help-cfg lists the options");
    }
  }
}

} // namespace

int main(int argc, char** argv)
{
  const double wall_start = job::wall_clock_now();
  options::declare();
  std::string error;
  auto launch = parse_launch_options(std::vector<std::string>(argv + 1, argv + argc), error);
  if (not launch)
    usage_error(error + "; see s4bxi-run --help");
  if (launch->help_cfg) {
    print_model_options();
    return 0;
  }
  if (launch->preload_library.empty())
    usage_error("s4bxi-simserver is started by s4bxi-run; run your program with s4bxi-run");

  if (not launch->report_path.empty())
    if (auto problem = job::JobControl::unwritable_report(launch->report_path))
      usage_error(*problem);

  auto sg_args = simgrid_command_line(*launch);
  std::vector<char*> sg_argv;
  for (auto& arg : sg_args)
    sg_argv.push_back(arg.data());
  int sg_argc = static_cast<int>(sg_argv.size());
  sg_argv.push_back(nullptr);
  s4u::Engine engine(&sg_argc, sg_argv.data());
  if (sg_argc > 1)
    usage_error(std::string("option '") + sg_argv[1] + "' is not understood by SimGrid");
  apply_configuration(*launch);

  World world;
  const std::string platform_spec = launch->platform.empty() ? platform::kDefaultPlatform : launch->platform;
  try {
    world.nodes = platform::load_cluster(platform_spec);
    platform::leave_out_unused_models();
  } catch (const std::exception& e) {
    usage_error(e.what());
  }
  auto node_of = platform::place_ranks(
      world.nodes, {launch->ranks, launch->ranks_per_node, launch->block_placement}, error);
  if (not node_of)
    usage_error(error);

  std::unique_ptr<trace::Recorder> recorder;
  if (not launch->trace_dir.empty()) {
    std::vector<std::string> node_names;
    for (const auto& node : world.nodes)
      node_names.push_back(node.cpu->get_name());
    recorder = trace::Recorder::open(launch->trace_dir, std::move(node_names), error);
    if (not recorder)
      usage_error(error);
    trace::active = recorder.get();
  }

  ipc::ClockConfig clock{};
  clock.cpu_factor = options::compute_model() == options::ComputeModel::None ? 0.0 : options::cpu_factor();
  clock.cpu_threshold_s = options::cpu_threshold_s();
  clock.realtime_epoch_ns = static_cast<int64_t>(options::realtime_epoch_s() * 1e9);
  clock.monotonic_origin_ns = static_cast<int64_t>(options::uptime_s() * 1e9);
  clock.poll_cost_ns = std::llround(options::poll_cost_s() * 1e9);
  clock.poll_block_after = options::poll_block_after();
  clock.library_cpu_is_compute = options::library_cpu_is_compute() ? 1 : 0;
  // Preemption needs measured compute: under compute:none a spinning rank's
  // time does not pass, so interrupting it could not let anything arrive.
  clock.sync_quantum_ns =
      options::compute_model() == options::ComputeModel::None ? 0 : static_cast<int64_t>(options::sync_quantum_s() * 1e9);
  clock.main_thread_runs_ahead = options::compute_model() != options::ComputeModel::None && options::run_ahead() ? 1 : 0;
  std::unique_ptr<job::RankProcesses> owned_processes;
  try {
    owned_processes = std::make_unique<job::RankProcesses>(launch->ranks, clock);
  } catch (const std::exception& e) {
    usage_error(e.what());
  }
  job::RankProcesses& processes = *owned_processes;
  world.processes = &processes;
  // More processes than cores (the ranks, and the server, which spins too): a
  // rank that waits for an answer while the server serves another one sleeps
  // (ipc/segment.hpp).
  const bool oversubscribed = launch->ranks + 1 > std::thread::hardware_concurrency();
  processes.set_only_served_rank_spins(oversubscribed);

  world.ranks.resize(launch->ranks);
  std::vector<uint32_t> next_pid(world.nodes.size(), kFirstPid);
  for (unsigned r = 0; r < launch->ranks; ++r) {
    auto& rank = world.ranks[r];
    rank.rank = r;
    rank.node = world.nodes[(*node_of)[r]].nid;
    rank.pid = next_pid[(*node_of)[r]]++;
    rank.uid = static_cast<uint32_t>(getuid());
    rank.changed = std::make_shared<ChangeSignal>();
    rank.mutex = s4u::Mutex::create();
    rank.unparked = s4u::ConditionVariable::create();
    world.by_address[{rank.nid(), rank.pid}] = r;
  }
  world.nics.resize(world.nodes.size());
  nic::Wire wire(options::wire_mailboxes_beyond());
  world.wire = &wire;
  try { // per-node options and fault injection name hosts and links of the platform
    auto faults = nic::Faults::from_options(world.nodes);
    world.links_may_fail = faults && faults->turns_links_off();
    for (const auto& node : world.nodes)
      world.nics[node.nid] = std::make_unique<nic::Nic>(world, wire, node, faults);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }
  // A link that goes off otherwise (a state profile of the platform file):
  // from then on, a message whose route is off when it is sent is lost at
  // once (Nic::send_on_wire).
  s4u::Link::on_state_change_cb([&world](const s4u::Link& link) {
    if (not link.is_on())
      world.links_may_fail = true;
  });
  for (const auto& node : world.nodes)
    world.nics[node.nid]->start();
  nic::judge_early_answers(world);
  nic::configure_put_forecasts(world);
  nic::configure_landing_bounds(world);
  world.landing.set_earliest_rank_call([&world](double now) { return portals::earliest_rank_call(world, now); });
  nic::configure_lone_messages(world);
  nic::configure_lone_dma_writes(world, platform_spec);

  portals::Api api(world);
  job::JobControl control(world, launch->report_path, wall_start);
  if (not launch->layer.empty())
    control.set_layer(launch->layer);
  api.poll_sentinel().on_deadlock = [&control](const std::string& sentence) {
    control.finish(job::kDeadlockStatus, sentence);
  };
  api.poll_sentinel().holder().on_hold_tick = [&control] { control.check_interrupt(); };
  api.poll_sentinel().start_holder(world.nodes.front().cpu);
  world.livelock.on_livelock = [&control](const std::string& sentence) {
    control.finish(job::kDeadlockStatus, sentence);
  };
  job::JobControl::install_signal_handlers();
  job::remove_stale_session_directories();
  try {
    if (not launch->layer.empty()) // an MPI program (the launcher named its layer)
      control.set_session_directory(job::SessionDirectory::for_open_mpi());
    std::vector<std::string> rank_hosts;
    for (unsigned r = 0; r < launch->ranks; ++r)
      rank_hosts.push_back(world.nodes[(*node_of)[r]].cpu->get_name());
    std::vector<std::string> debugger;
    if (not launch->debugged_ranks.empty()) {
      auto words = split_command_line(launch->debugger.empty() ? "gdb" : launch->debugger);
      if (not words || words->empty())
        usage_error("the debugger command '" + launch->debugger + "' is empty or has an unclosed quote");
      debugger = std::move(*words);
    }
    processes.spawn_all({launch->program, launch->preload_library, std::move(rank_hosts), launch->debugged_ranks,
                         std::move(debugger), launch->debugged_ranks.size() > 1});
  } catch (const std::exception& e) {
    control.remove_session_directory();
    usage_error(e.what());
  }
  std::vector<ipc::Channel*> channels;
  std::vector<pid_t> os_pids;
  for (unsigned r = 0; r < launch->ranks; ++r) {
    channels.push_back(processes.channel(r));
    os_pids.push_back(processes.pid(r));
  }
  std::unique_ptr<job::RankWatcher> watcher;
  try {
    watcher = std::make_unique<job::RankWatcher>(processes.pmi_sockets(), os_pids, std::move(channels),
                                                 processes.crash_pipe(), world.crashes,
                                                 [&world] { world.outside_notice.store(true); });
  } catch (const std::exception& e) {
    control.finish(1, e.what());
  }
  pmi::Server pmi(world, control, processes.pmi_sockets(), *watcher);
  // (After the server's other threads started: they keep every CPU.)
  job::ServerCpu server_cpu(
      options::server_cpu(), [&processes](const cpu_set_t& cpus) { processes.place_main_threads(cpus); },
      job::ServerCpu::job_contended, &processes.scheduling()->server_cpu_held);
  world.server_cpu = &server_cpu;
  // The server's long waits while nothing but the job wants the CPUs are no
  // sign of other load (job/other_load.hpp). On a CPU the server keeps, only
  // the ranks' main threads cannot run: their other threads (Open MPI's) and
  // the server's copy helper may, so a long wait there counts once a process
  // outside the job is seen runnable (a 2-rank MPI sweep was marked at
  // start-up 1 run in 12 without it).
  const ipc::CpuContention::OwnLoad own_load = [&world](uint64_t, uint64_t) {
    std::vector<pid_t> ranks;
    for (const RankPortals& rank : world.ranks)
      if (rank.alive && rank.os_pid > 0)
        ranks.push_back(rank.os_pid);
    if (world.server_cpu != nullptr && world.server_cpu->holds_own_cpu())
      return not ipc::another_process_runs(getpid(), ranks);
    return job::only_the_job_runs(getpid(), ranks);
  };
  ipc::CpuContention::explain_with(&own_load);
  struct ForgetOwnLoad {
    ~ForgetOwnLoad() { ipc::CpuContention::explain_with(nullptr); }
  } forget_own_load;
  if (trace::active != nullptr)
    trace::active->set_processes(os_pids);
  for (unsigned r = 0; r < launch->ranks; ++r) {
    world.ranks[r].os_pid = processes.pid(r);
    world.ranks[r].pmi_fd = processes.rank_pmi_fd(r);
    world.ranks[r].channel = processes.channel(r);
    world.ranks[r].sleep_in_long_waits = oversubscribed;
    world.ranks[r].debugged = std::find(launch->debugged_ranks.begin(), launch->debugged_ranks.end(), r) !=
                              launch->debugged_ranks.end();
    s4u::Actor::create("rank" + std::to_string(r), world.nodes[(*node_of)[r]].cpu, [&world, &api, &pmi, &control, r] {
      RankProxy(world, api, pmi, control, world.ranks[r])();
    });
  }
  world.open_lanes = [&world, &api, &pmi, &control](RankPortals& rank) {
    RankProxy::open_lanes(world, api, pmi, control, rank);
  };
  s4u::Engine::on_time_advance_cb([&world, &control](double) {
    world.engine_rounds++;
    control.check_interrupt();
  });
  s4u::Engine::on_deadlock_cb([&world, &control, &processes] {
    // A rank that died unnoticed explains the blockage better than a deadlock.
    for (unsigned r = 0; r < processes.count(); ++r)
      if (auto end = processes.poll_exit(r); end && (end->signaled || end->code != 0))
        control.rank_failed(r, *end);
    const std::string waiting = job::describe_blocked_ranks(world, [](const RankPortals& rank) {
      return rank.alive ? "in " + rank.current_call : std::string("exited");
    });
    control.finish(job::kDeadlockStatus, "deadlock: no rank can make progress (" + waiting +
                                             "); nothing in flight can complete their waits");
  });

  engine.run();
  processes.wait_for_debuggers([&control] { control.check_interrupt(); });

  // Every rank ended; the first that failed already ended the run.
  control.finish(0, "");
}
