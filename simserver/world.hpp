// Everything the simulation shares: the nodes, their NICs, and the Portals
// state of every rank. Owned by main(), reached by the actors through a
// reference given at creation.
#pragma once

#include "actor_sleep.hpp"
#include "change_signal.hpp"
#include "job/crash_reports.hpp"
#include "job/livelock_watch.hpp"
#include "job/rank_processes.hpp"
#include "job/server_cpu.hpp"
#include "job/staged_writes.hpp"
#include "nic/landing_bounds.hpp"
#include "nic/memory_work.hpp"
#include "platform/cluster.hpp"
#include "portals/objects.hpp"
#include "portals/handles.hpp"
#include "engine_clock.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace s4bxi {

namespace nic {
class Nic;
class Wire;
}

struct RankStatistics {
  double compute_s = 0;
  double compute_ahead_s = 0; // of compute_s: what the simulation went on through while the rank computed (s4bxi/run-ahead)
  double wait_s = 0; // blocked in PtlEQWait, PtlCTWait, a poll with a timeout, a PMI barrier or a sleep
  double poll_s = 0; // charged to empty polls, and polling blocked until the polled object changed
  // The part of wait_s and poll_s charged to calls made inside an MPI call
  // (ipc::kRequestInsideLibrary): the MPI library waiting for the network.
  double library_waits_s = 0;
  uint64_t portals_calls = 0; // the program's, those answered by the process included
  uint64_t answered_in_process = 0; // calls the process answered itself: polls (preload/local_polls.hpp) and queued Puts (preload/queued_puts.hpp)
  uint64_t bytes_sent = 0;
  uint64_t events_written = 0; // full and counting events the NIC wrote into the rank's memory (PCIe)
  long max_rss_kb = -1;        // peak resident memory of the process (VmHWM) when it exited; -1: unknown
  // Real time, not simulated: how long the server (and so the whole
  // simulation) waited for this process's next call, and how many of its
  // answers found it asleep in the kernel, so that answering meant waking it
  // up. Where the wall time of a run goes (tools/scale-bench.sh).
  double server_waited_s = 0;
  uint64_t answers = 0;
  uint64_t wake_ups = 0;
  // Answers given while another rank's process had an answer it had not
  // called back on yet: processes running side by side (RankProxy::operator()).
  uint64_t side_by_side = 0;
  uint64_t early_answers = 0; // calls answered before their simulated end (s4bxi/early-put-answer)

  // Adds what a lane of one of the process's threads counted.
  void add(const RankStatistics& lane)
  {
    compute_s += lane.compute_s;
    compute_ahead_s += lane.compute_ahead_s;
    wait_s += lane.wait_s;
    poll_s += lane.poll_s;
    library_waits_s += lane.library_waits_s;
    portals_calls += lane.portals_calls;
    answered_in_process += lane.answered_in_process;
    bytes_sent += lane.bytes_sent;
    events_written += lane.events_written;
    max_rss_kb = std::max(max_rss_kb, lane.max_rss_kb);
    server_waited_s += lane.server_waited_s;
    answers += lane.answers;
    wake_ups += lane.wake_ups;
    side_by_side += lane.side_by_side;
    early_answers += lane.early_answers;
  }
};

// Portals node and process ids start at 1: 0 is PTL_NID_ANY and PTL_PID_ANY
// in the BXI ABI, so no real process may have it.
inline constexpr uint32_t kFirstNid = 1;
inline constexpr uint32_t kFirstPid = 1;
inline uint32_t portals_nid(unsigned node_index)
{
  return node_index + kFirstNid;
}

// The Portals side of one rank process.
struct RankPortals {
  unsigned rank = 0;
  unsigned node = 0; // index in World::nodes (and World::nics)
  uint32_t pid = 0;  // Portals process id on its node
  uint32_t uid = 0;
  pid_t os_pid = -1;
  int pmi_fd = -1; // the process's end of its PMI socket (its PMI_FD)
  ipc::Channel* channel = nullptr;
  // A lane of one of the process's threads (ipc::Lane), served as a caller
  // of its own: `owner` is the rank, whose Portals objects, condition and
  // process it shares; `lane` its channel; `os_tid` its thread. For the rank
  // itself (its main thread, through the channel): none.
  RankPortals* owner = nullptr;
  ipc::Lane* lane = nullptr;
  unsigned lane_index = 0; // in Channel::lanes
  pid_t os_tid = -1;
  // Whether a waiting process should sleep rather than spin when its call
  // waits for other ranks: only when there are more ranks than cores
  // (waking a sleeper costs tens of microseconds on a VM, spinning costs a CPU).
  bool sleep_in_long_waits = false;
  // Runs under the debugger (--gdb): os_pid is the debugger's until the
  // program says hello, and the rank ends at its exit call.
  bool debugged = false;
  unsigned init_count = 0; // PtlInit calls not matched by PtlFini
  std::array<std::unique_ptr<portals::NetworkInterface>, portals::kNISlots> nis;
  // Notified whenever an EQ or CT of this rank may have changed (shared
  // with its lanes).
  std::shared_ptr<ChangeSignal> changed;
  // For the wait on `unparked`.
  simgrid::s4u::MutexPtr mutex;
  // Where this caller waits while parked (rank_proxy.cpp, park): its own,
  // not `changed`, which a lane shares with its rank. A parked thread of the
  // process (Open MPI's libevent thread, parked for the whole run) was woken
  // by every event written for the rank: 3 actor wake-ups per message of a
  // 2-rank ping-pong.
  simgrid::s4u::ConditionVariablePtr unparked;
  bool alive = true;
  // When (real time) the server first saw a thread of this process in its
  // crash handler (Channel::crash_signal), which waits for the server to read
  // its stack before the process dies: -1 until then (job/parked_ranks.cpp).
  mutable double crash_seen_s = -1;
  std::string current_call; // what the rank is blocked in, for deadlock reports
  bool call_inside_library = false; // the call being served was made inside an MPI call
  std::string last_call;    // its last Portals call, for crash reports
  std::string call_site;    // where the program made the call it is blocked in (deadlock reports)
  // Blocked in a streak of empty polls until a polled object changes, and
  // whether the poll sentinel let it poll once more (portals/poll_sentinel.hpp).
  bool poll_blocked = false;
  bool poll_released = false;
  // While its proxy waits in block_until (portals/api_waits.hpp): the
  // earliest time at which that wait can end by itself (the landing it
  // sleeps to, or its deadline; infinity: none), and whether a change of
  // what it waits for (an event or a count written for the rank) may end it
  // sooner. -infinity otherwise: it serves a call, or its process runs
  // (portals/rank_calls.hpp).
  double wait_ends_no_sooner_than = -std::numeric_limits<double>::infinity();
  bool wait_ends_on_change = false;
  // In PtlEQWait, PtlEQPoll, PtlCTWait or PtlCTPoll: the abort generation the
  // call began under (portals/abort_watch.hpp), and whether the abort watch
  // counts it as a wait that another thread of the process may end.
  std::optional<uint32_t> abortable_since;
  bool abort_counted = false;
  bool abort_deadline = false; // and it is a poll with a finite timeout
  // Parked: asleep in the kernel outside any emulated call, the simulation
  // going on without it (job/parked_ranks.hpp); its doorbell's value then.
  bool parked = false;
  uint32_t parked_bell = 0;
  // Its proxy waits (in real time) for its next request: what the process
  // did itself before is replayed there, not by another proxy.
  bool awaiting_request = false;
  // Its request doorbell's value when its proxy last took a request: a
  // different value now is a call not served yet.
  uint32_t bell_seen = 0;
  // Lanes of its threads that have made a call and not ended: while there
  // are, another thread may change what a polling thread looks at between
  // its polls (portals/api_polls.cpp).
  unsigned calling_lanes = 0;
  bool lane_called = false; // (a lane's) it has made a Portals call
  bool start_parked = false; // (a lane's) its thread slept in the kernel before its first call
  // A lane whose thread has never called (a library's thread asleep in
  // epoll): when parked, only its own call or its process's end in the
  // simulation wake it, so that it adds no step to the simulation at a
  // moment only real time decides (job/parked_ranks.hpp).
  [[nodiscard]] bool dormant() const { return lane != nullptr && stats.answers == 0; }
  RankStatistics stats;
  // What the NIC will still read or write in this process's memory
  // (nic/memory_work.hpp).
  nic::MemoryWork::Count nic_memory_work = std::make_shared<uint32_t>(0);
  // Set by the rank's proxy while it handles a call that may be answered
  // before its simulated end (portals/api_data.cpp); answers it. Then, until
  // the call's end, the process runs ahead of it.
  std::function<void()> answer_early;
  bool running_ahead = false;
  // The rank's own simulated time when it is later than the clock: the polls
  // the process answered itself before a poll that may block, or before a
  // Put it queued, were replayed without their sleep (s4bxi/replays-in-block,
  // portals/api_polls.cpp), and the block, the command written alone
  // (nic/lone_writes.cpp) or settle() sleeps to it. 0: none. `may_defer`: set
  // by the proxy while only such polls and what follows them are served.
  double deferred_until = 0;
  bool may_defer = false;
  // The rank's simulated time: the clock, or later when the replays left a
  // sleep to what follows them (deferred_until).
  [[nodiscard]] double time() const { return std::max(sim_now(), deferred_until); }
  // Sleeps what the replays left to sleep, if anything: before anything but
  // what may start at the rank's time is served, and before any answer.
  void settle()
  {
    const double until = deferred_until;
    deferred_until = 0;
    if (until > sim_now() && process().alive)
      sleep_in_call_until(until);
  }
  // Sleeps its proxy to `until` in the call it serves: the rank's next call
  // comes no sooner (what portals/rank_calls.hpp reads meanwhile).
  void sleep_in_call_until(double until)
  {
    const double ends = wait_ends_no_sooner_than;
    const bool on_change = wait_ends_on_change;
    wait_ends_no_sooner_than = until;
    wait_ends_on_change = false;
    s4bxi::sleep_until(until);
    wait_ends_no_sooner_than = ends;
    wait_ends_on_change = on_change;
  }
  // Set by the rank's proxy while it runs a PtlPut the process queued: its
  // forecast, if the process went on from one (nic/put_forecast.hpp; the
  // operation carries it to its SEND event), and the payload it captured
  // (none when the NIC reads it by DMA).
  const ipc::ForecastPut* put_forecast = nullptr;
  // While it runs an append the process queued expecting its LINK event
  // (s4bxi/link-forecasts): that forecast, which Api::append checks.
  const ipc::ForecastLink* link_forecast = nullptr;
  bool running_queued_put = false;
  std::span<const unsigned char> queued_put_payload;
  // Small writes into the process's memory that it copies itself when the
  // call its main thread waits in returns (s4bxi/staged-writes; the rank's,
  // not a lane's).
  job::StagedWrites staged;

  [[nodiscard]] uint32_t nid() const { return portals_nid(node); }
  // The rank whose Portals objects this caller uses: itself, or a lane's owner.
  RankPortals& process() { return owner != nullptr ? *owner : *this; }
  [[nodiscard]] const RankPortals& process() const { return owner != nullptr ? *owner : *this; }
  portals::NetworkInterface* ni(uint32_t slot)
  {
    auto& objects = process().nis;
    return slot < objects.size() ? objects[slot].get() : nullptr;
  }
  // The doorbells and flags this caller is served through: its lane's, or the channel's.
  ipc::Doorbell& request_bell() const { return lane != nullptr ? lane->request_bell : channel->request_bell; }
  ipc::Doorbell& reply_bell() const { return lane != nullptr ? lane->reply_bell : channel->reply_bell; }
  ipc::Reply& reply_slot() const { return lane != nullptr ? lane->reply : channel->reply; }
  std::atomic<uint32_t>& attention() const { return lane != nullptr ? lane->attention : channel->attention; }
  std::atomic<uint32_t>& parked_flag() const { return lane != nullptr ? lane->parked : channel->parked; }
  // The thread in an exchange with the server (0: none): a lane's thread
  // while it has a call in the server (parked, its current call says what it
  // waits for in the kernel, outside any call).
  [[nodiscard]] pid_t thread_in_call() const
  {
    return lane != nullptr ? (not parked && current_call != "user code" && not current_call.empty() ? os_tid : 0)
                           : channel->exchange_tid.load(std::memory_order_relaxed);
  }
  void notify()
  {
    notifications++;
    if (notifications_held > 0)
      held_notifications.push_back(changed.get());
    else
      changed->notify_all();
  }
  // While a NIC's RX engine handles a message (nic.cpp), what it writes for
  // the ranks wakes their waiting callers only once its handling is over, in
  // the same instant: a caller then sees the handling whole (what else it
  // wrote, what it sent, the message no longer on its way: what
  // s4bxi/answers-ahead looks at), without a scheduling step of its own.
  // (A handling does not block; a release that made it yield did let the
  // caller run in the middle of it.)
  struct NotificationsHeld {
    NotificationsHeld() { notifications_held++; }
    ~NotificationsHeld()
    {
      if (--notifications_held > 0)
        return;
      // In the order they were made (the woken callers run in that order),
      // each once.
      std::vector<ChangeSignal*> held = std::move(held_notifications);
      held_notifications.clear();
      for (auto at = held.begin(); at != held.end(); ++at)
        if (std::find(held.begin(), at, *at) == at)
          (*at)->notify_all();
    }
    NotificationsHeld(const NotificationsHeld&) = delete;
    NotificationsHeld& operator=(const NotificationsHeld&) = delete;
  };
  static inline unsigned notifications_held = 0;
  static inline std::vector<ChangeSignal*> held_notifications;
  // Something that may release this caller from its park (job/parked_ranks.hpp).
  void notify_parked()
  {
    notifications++;
    unparked->notify_all();
  }
  // How many times any rank was notified (portals/poll_sentinel.cpp: a
  // notified rank may run).
  static inline uint64_t notifications = 0;
  // Proxies in a condition wait with a deadline (portals/api_waits.hpp): a
  // notification cancels its timeout with neither a time advance nor an
  // activity's end, which the poll sentinel relies on otherwise
  // (portals/poll_sentinel.cpp).
  static inline unsigned deadline_waits = 0;
  // The call will wait for other ranks or for simulated time: let the process
  // sleep instead of spinning on a CPU that those ranks need.
  void expect_long_wait() const
  {
    if (channel != nullptr && sleep_in_long_waits)
      reply_bell().sleep_hint.store(1, std::memory_order_relaxed);
  }
};

struct World {
  std::vector<platform::Node> nodes;
  std::vector<RankPortals> ranks;
  // The lanes of the ranks' threads, as they open (stable addresses: their
  // proxies hold them); a closed lane's entry stays, no longer alive.
  std::deque<RankPortals> lanes;
  // Opens the lanes a rank's threads took (RankProxy::open_lanes; set by main()).
  std::function<void(RankPortals&)> open_lanes;
  // Every caller the simulation may wait for or release: the ranks, then the
  // lanes of their threads.
  template <class F>
  void for_each_caller(F&& f)
  {
    for (auto& rank : ranks)
      f(rank);
    for (auto& lane : lanes)
      f(lane);
  }
  template <class F>
  void for_each_caller(F&& f) const
  {
    for (const auto& rank : ranks)
      f(rank);
    for (const auto& lane : lanes)
      f(lane);
  }
  std::vector<std::unique_ptr<nic::Nic>> nics; // indexed by nid
  // How far ahead the ranks may answer their polls (nic/landing_bounds.hpp).
  nic::LandingBounds landing;
  // A link may go off during the run (s4bxi/link-down, or a link seen going
  // off): a message is lost at once if its route is off when it is sent, and
  // none crosses the wire through a mailbox (nic/wire.hpp).
  bool links_may_fail = false;
  job::RankProcesses* processes = nullptr;
  job::ServerCpu* server_cpu = nullptr; // the server's own CPU (job/server_cpu.hpp; main.cpp's)
  job::LivelockWatch livelock; // told how every operation ended (portals/initiator.cpp)
  job::CrashReports crashes;   // filled by the rank watcher's thread
  // Set by the rank watcher's thread when something outside the simulation
  // may have released a rank: a PtlAbort, a parked rank's call or end.
  std::atomic<bool> outside_notice{false};
  unsigned parked_ranks = 0; // ranks (and threads' lanes) parked now
  unsigned dormant_lanes = 0; // lanes parked since before their first call (rank_proxy.cpp, park)
  // Parks of ranks and lanes, and the times a parked caller's proxy was woken
  // to look whether it may go on (the report's parks): about one per park,
  // unless something wakes parked callers in vain.
  uint64_t parks = 0;
  uint64_t park_wake_ups = 0;
  // Real time the server held the simulation while every rank was parked,
  // waiting for something outside it (portals/outside_holder.cpp): waiting
  // for the rank processes, as RankStatistics::server_waited_s.
  double held_for_outside_s = 0;
  // SimGrid's scheduling rounds that found a next event (time advanced, or
  // more events at the same date): with the wall time spent simulating, says
  // whether a run is slow because its model has many events or because each
  // costs much (the report's engine_rounds).
  uint64_t engine_rounds = 0;
  // The wire between the NICs (main.cpp's; for the report, and set up by
  // nic::configure_lone_messages).
  nic::Wire* wire = nullptr;
  // Times the NIC read or wrote the memory of a rank that ran ahead of its
  // call's end (an early answer): none, unless other traffic on the PCIe bus
  // slowed a command write beyond the fastest way of a message sent meanwhile
  // (nic/memory_work.cpp).
  uint64_t early_answer_overlaps = 0;
  // Commands written over PCIe as sleeps (s4bxi/lone-commands, nic/lone_writes.cpp),
  // and the other CPU-to-NIC writes that began during one (expected 0).
  uint64_t lone_commands = 0;
  uint64_t lone_command_overlaps = 0;
  // DMA writes to host memory left out of the network model
  // (s4bxi/lone-dma-writes, nic/dma_writes.cpp).
  uint64_t lone_dma_writes = 0;
  // Answers given at the rank's time before the clock got there
  // (s4bxi/answers-ahead, RankProxy::reply), and the simulated time the
  // simulation then went through while those ranks ran.
  uint64_t answers_ahead = 0;
  double answered_ahead_s = 0;
  // Ranks whose main thread has an answer that its proxy has not yet
  // started waiting on the next call after (RankStatistics::side_by_side).
  unsigned answers_out = 0;
  // Wakes of sleeping ranks handed to the warm rank, and those of them the
  // server had to make itself after all (RankProxy::reply, wait_for_request).
  uint64_t wakes_relayed = 0;
  uint64_t relayed_wakes_missed = 0;
  // PtlPuts the processes queued with a forecast of their end and SEND event
  // (nic/put_forecast.hpp), and those that did not go as forecast (expected
  // none: each is warned of).
  uint64_t put_forecasts = 0;
  uint64_t put_forecast_misses = 0;
  // The same for the LINK events of appends (Api::append).
  uint64_t link_forecasts = 0;
  uint64_t link_forecast_misses = 0;

  // Portals (nid, pid) -> rank, for delivering messages.
  std::map<std::pair<unsigned, uint32_t>, unsigned> by_address;

  RankPortals* find(unsigned nid, uint32_t pid)
  {
    auto it = by_address.find({nid, pid});
    return it == by_address.end() ? nullptr : &ranks[it->second];
  }
};

} // namespace s4bxi
