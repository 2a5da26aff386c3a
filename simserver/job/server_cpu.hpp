// A CPU of its own for the server while the job waits on the server
// (s4bxi/server-cpu).
//
// With more processes than cores, the ranks and the server share the CPUs:
// a rank woken by an answer may take the server's CPU, and the simulation
// then stands still until the scheduler gives it back, its caches filled with
// the rank's data. While the server is what the job waits for (it waits for
// the ranks less than kOwnBelow of the time), it keeps the CPU it runs on and
// the ranks' main threads run on the others; while the ranks are (they
// compute, or start: the server waits more than kShareAbove of the time), or
// other processes want the CPUs (ipc::CpuContention: a CPU of its own then
// left the server half of it, and the ranks half of theirs), every process
// may run anywhere again, as it could when it started. A 32-rank alltoall on
// 2 cores: 5.65 ms per alltoall instead of 6.94 (docs/internals.md has the
// rest). Where the processes run decides only how fast the simulation goes,
// never what it computes.
#pragma once

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdint>
#include <functional>

namespace s4bxi::job {

class ServerCpu {
public:
  // Waiting less than this share of a window: the server is what the job
  // waits for; more than kShareAbove: the ranks are.
  static constexpr double kOwnBelow = 0.6;
  static constexpr double kShareAbove = 0.8;
  // Real seconds over which the share is measured while the server keeps its
  // CPU (and so before it gives it back).
  static constexpr double kWindowS = 0.02;
  // And before it takes it: a tenth of that, so that a job that starts
  // talking has the CPU within 2 ms rather than 20 to 40 (a 2-rank 8 B
  // ping-pong ran its first 900 messages at 21 us instead of 14 each), but
  // at least kPlacementShare times what placing the ranks cost the last time
  // (a system call per rank), so that a job that alternates short exchanges
  // and long computations spends a tenth of its time at most placing ranks.
  static constexpr double kTakeWindowS = 0.002;
  static constexpr double kPlacementShare = 10.0;

  // Puts the ranks' main threads on these CPUs (RankProcesses::place_main_threads).
  using PlaceRanks = std::function<void(const cpu_set_t&)>;
  // Whether other processes want the CPUs now.
  using Contended = std::function<bool()>;
  static bool job_contended();  // ipc::CpuContention's mark
  // Takes the CPUs the server may run on now (those it gives back); a
  // process limited to one CPU has none to spare, and nothing changes.
  // `held`, when given, says to the ranks whether the server keeps its CPU
  // (ipc::SharedScheduling::server_cpu_held: their long yields are then the
  // job's own ranks, not other load; counted as such, they had the server
  // give its CPU back and take it again every 20 to 100 ms, and a 256-rank
  // Portals put ring lost 8% instead of gaining).
  ServerCpu(bool enabled, PlaceRanks place_ranks, Contended contended = job_contended,
            std::atomic<uint32_t>* held = nullptr);
  ~ServerCpu();
  ServerCpu(const ServerCpu&) = delete;
  ServerCpu& operator=(const ServerCpu&) = delete;

  // The server (its simulation thread, the caller) waited `waited_s` real
  // seconds for a rank until `now` (job::wall_clock_now).
  void waited(double now, double waited_s);
  // Every process back on every CPU (the run ends).
  void share();

  [[nodiscard]] bool holds_own_cpu() const { return own_; }
  // For the report: how often the server took a CPU of its own, and for how
  // long in all (real seconds).
  [[nodiscard]] uint64_t times_taken() const { return taken_; }
  [[nodiscard]] double held_s() const;

  // A thread of the server that works beside the simulation's thread and at
  // the same time (the copy helper, copy_helper.cpp), to be placed with the
  // ranks while the server keeps its CPU: on that CPU, it waited for the
  // simulation's thread to yield (a 4 MiB MPI ping-pong 1.6 times slower).
  // From the simulation's thread.
  static void add_side_thread(pthread_t thread);

private:
  void take(double now);
  void give_back(double now);
  // Puts the ranks' main threads and the side threads on `cpus`, and times it.
  void place_others(const cpu_set_t& cpus);
  // How long the current window lasts.
  [[nodiscard]] double window_s() const;

  PlaceRanks place_ranks_;
  Contended contended_;
  std::atomic<uint32_t>* held_;
  bool usable_ = false;
  bool own_ = false;
  cpu_set_t theirs_{}; // the ranks' CPUs while the server keeps its own
  double window_start_ = -1;
  double window_waited_s_ = 0;
  uint64_t taken_ = 0;
  double held_s_ = 0;
  double own_since_ = 0;
  double placement_s_ = 0; // real seconds the last placement of the ranks took
};

} // namespace s4bxi::job
