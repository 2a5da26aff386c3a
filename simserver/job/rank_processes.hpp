// The rank processes of a run and the shared-memory segment they talk through.
// The server forks every rank itself, so it is their parent: it reaps them,
// signals them, and may read and write their memory.
#pragma once

#include "segment.hpp"
#include "tmux_windows.hpp"

#include <functional>
#include <optional>
#include <sched.h>
#include <string>
#include <sys/resource.h>
#include <sys/types.h>
#include <vector>

namespace s4bxi::job {

struct LaunchSpec {
  std::vector<std::string> argv; // program and its arguments
  std::string preload_library;   // absolute path of our libportals.so.4
  // Per rank: the name of its node's CPU host in the platform, which the rank
  // sees as its host name; ranks with the same name share a node (PMI clique).
  // Empty: no host names, every rank alone on its node.
  std::vector<std::string> rank_hosts;
  // --gdb: these ranks start under the debugger (its command line, split in
  // words), stopped at main.
  std::vector<unsigned> debugged_ranks;
  std::vector<std::string> debugger;
  // Several debugged ranks: each gets a tmux window for its terminal.
  bool debugger_windows = false;
};

// How a process ended, as waitpid reported it.
struct Termination {
  bool signaled = false;
  int code = 0; // exit status, or signal number when `signaled`
  [[nodiscard]] int shell_status() const { return signaled ? 128 + code : code; }
  [[nodiscard]] std::string describe() const;
};

class RankProcesses {
public:
  RankProcesses(unsigned count, const ipc::ClockConfig& clock);
  ~RankProcesses();
  RankProcesses(const RankProcesses&) = delete;
  RankProcesses& operator=(const RankProcesses&) = delete;

  // Starts every rank. Throws std::runtime_error (one sentence) if a process
  // cannot be started; the ones already started are killed.
  void spawn_all(const LaunchSpec& spec);

  [[nodiscard]] unsigned count() const { return count_; }
  [[nodiscard]] pid_t pid(unsigned rank) const { return pids_[rank]; }
  // From the layout the server made, never from what the segment says now.
  [[nodiscard]] ipc::Channel* channel(unsigned rank) const { return channels_[rank]; }
  [[nodiscard]] ipc::SharedScheduling* scheduling() const { return scheduling_; }
  // Has the warm rank wake the sleeper of `bell` (a channel's reply bell),
  // and says which rank that is (`relayed_to`): false when no rank relays
  // now (ipc/wake_relay.hpp), and the caller wakes it.
  bool relay_wake(const ipc::Doorbell& bell, unsigned rank_to_wake, uint32_t& relayed_to);
  // A relay that missed a wake gets no more (until a warm rank takes the role).
  void drop_relay(uint32_t relay) { ipc::drop_relay(scheduling_->wake_relay, relay); }
  // Set before the ranks start (read-only for them afterwards).
  void set_only_served_rank_spins(bool on);
  // Server ends of the ranks' PMI sockets (the rank's end is its PMI_FD).
  [[nodiscard]] const std::vector<int>& pmi_sockets() const { return pmi_sockets_; }
  // The descriptor number of rank's end in the rank process (its PMI_FD).
  [[nodiscard]] int rank_pmi_fd(unsigned rank) const { return rank_pmi_fds_[rank]; }
  // Read end of the crash pipe: a rank that gets a fatal signal writes its
  // rank number there (preload/crash_handler.cpp).
  [[nodiscard]] int crash_pipe() const { return crash_pipe_[0]; }

  // Non-blocking: the termination of `rank` if it ended (reaping it).
  std::optional<Termination> poll_exit(unsigned rank);
  // Blocks until `rank` ends.
  Termination wait_exit(unsigned rank);
  [[nodiscard]] const std::optional<Termination>& termination(unsigned rank) const { return ended_[rank]; }

  // Sets the CPUs of each rank's main thread that is still ours: not reaped
  // yet (a reaped rank's pid may be another process's by now). Its other
  // threads, and those it starts later, keep theirs (job/server_cpu.hpp).
  void place_main_threads(const cpu_set_t& cpus) const;

  // SIGKILLs every live rank and reaps it. Safe to call more than once.
  void kill_all();

  // At the end of a job whose ranks all finished: waits for the debuggers of
  // --gdb ranks to be quit (the user may still look at the program's end),
  // calling `check_interrupt` now and then (Ctrl-C).
  void wait_for_debuggers(const std::function<void()>& check_interrupt);

private:
  unsigned count_;
  int memfd_ = -1;
  void* segment_ = nullptr;
  size_t segment_bytes_ = 0;
  std::vector<ipc::Channel*> channels_;
  ipc::SharedScheduling* scheduling_ = nullptr;
  const char* channel_area_ = nullptr; // where channel 0 starts
  uint32_t wake_requests_appended_ = 0; // the server's own count of WakeRelay::appended
  std::vector<pid_t> pids_;
  std::vector<int> pmi_sockets_;
  std::vector<int> rank_pmi_fds_;
  int crash_pipe_[2] = {-1, -1};
  std::vector<unsigned> debugged_;
  std::vector<TmuxWindow> windows_; // the debugged ranks' terminals, closed with the ranks
  std::vector<std::optional<Termination>> ended_;
  struct rlimit original_open_files_ {};
};

} // namespace s4bxi::job
