// The PMI-1 service of the run: one key-value space for the job, a barrier
// that completes in simulated time when the last rank reaches it, and the
// other PMI-1 commands. Served by each rank's proxy actor when the rank
// watcher says the rank wrote to its PMI socket.
#pragma once

#include "../job/job_control.hpp"
#include "../job/rank_watcher.hpp"
#include "../world.hpp"
#include "pmi_wire.hpp"

#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace s4bxi::pmi {

class Server {
public:
  Server(World& world, job::JobControl& control, std::vector<int> sockets, job::RankWatcher& watcher);

  // Reads what `rank` wrote and answers every complete command. May block in
  // simulated time (barrier). Called from the rank's proxy actor.
  void serve(unsigned rank);

  [[nodiscard]] const std::string& kvs_name() const { return kvs_name_; }

private:
  void answer(unsigned rank, const std::string& line);
  void handle(unsigned rank, const Command& command);
  void barrier(unsigned rank);

  World& world_;
  job::JobControl& control_;
  std::vector<int> sockets_;
  std::vector<std::string> pending_input_; // per rank: bytes after the last newline
  std::vector<bool> closed_;
  std::string kvs_name_;
  std::map<std::string, std::string> kvs_;
  unsigned barrier_arrived_ = 0;
  uint64_t barrier_generation_ = 0;
  simgrid::s4u::MutexPtr mutex_;
  simgrid::s4u::ConditionVariablePtr barrier_done_;
  job::RankWatcher& watcher_;
};

} // namespace s4bxi::pmi
