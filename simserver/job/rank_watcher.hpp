// Notices, in real time, what happens to a rank outside its IPC channel: it
// wrote to its PMI socket, its process ended, it got a fatal signal (then
// this thread reads its stack while it waits in its handler), one of its
// threads called PtlAbort while another waits (portals/abort_watch.hpp), or it
// made a call or ended while parked (blocked in the kernel, rank_proxy.cpp). Either way its proxy may be
// the actor that blocks the simulation, waiting on the rank's request
// doorbell: this thread (the only one besides the simulation, and it touches no
// simulation state) flags the channel's `attention` word and wakes the proxy.
// Without it, a rank's end would be seen only at the proxy's next liveness
// check, and ranks end one after the other.
#pragma once

#include "crash_reports.hpp"
#include "segment.hpp"

#include <functional>
#include <sys/types.h>
#include <thread>
#include <vector>

namespace s4bxi::job {

class RankWatcher {
public:
  // `pmi_sockets[r]` is the server end of rank r's PMI socket, `pids[r]` its process.
  RankWatcher(std::vector<int> pmi_sockets, const std::vector<pid_t>& pids, std::vector<ipc::Channel*> channels,
              int crash_pipe, CrashReports& crashes, std::function<void()> on_notice);
  ~RankWatcher();
  RankWatcher(const RankWatcher&) = delete;
  RankWatcher& operator=(const RankWatcher&) = delete;

  // Watches rank's PMI socket again, once its proxy has read what was there.
  void rearm_pmi(unsigned rank);

private:
  void run();
  void read_crashes();
  // Something outside the simulation may have released a rank: tell the
  // simulation (on_notice_) and wake it wherever it waits.
  // Wakes the proxies of the rank's threads (their lanes, ipc::Lane) with `bits`.
  static void wake_lanes(ipc::Channel& channel, uint32_t bits);
  void notify_simulation();
  int epoll_fd_ = -1;
  int stop_fd_ = -1; // eventfd that ends the thread
  std::vector<int> sockets_;
  std::vector<int> pidfds_; // -1 where the kernel has no pidfd_open
  std::vector<ipc::Channel*> channels_;
  std::vector<pid_t> pids_;
  int crash_pipe_;
  CrashReports& crashes_;
  std::function<void()> on_notice_; // called on this thread
  std::thread thread_;
};

} // namespace s4bxi::job
