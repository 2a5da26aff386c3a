// Notices, in real time, that a rank wrote to its PMI socket. A rank blocked
// on its PMI socket is a blocked rank like any other, but its proxy waits on
// the rank's IPC doorbell: this thread (the only one besides the simulation,
// and it touches no simulation state) flags the channel and wakes the proxy.
#pragma once

#include "segment.hpp"

#include <thread>
#include <vector>

namespace s4bxi::pmi {

class Watcher {
public:
  // `sockets[r]` is the server end of rank r's PMI socket.
  Watcher(std::vector<int> sockets, std::vector<ipc::Channel*> channels);
  ~Watcher();
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  // Watches rank's socket again, once its proxy has read what was there.
  void rearm(unsigned rank);

private:
  void run();
  int epoll_fd_ = -1;
  int stop_fd_ = -1; // eventfd that ends the thread
  std::vector<int> sockets_;
  std::vector<ipc::Channel*> channels_;
  std::thread thread_;
};

} // namespace s4bxi::pmi
