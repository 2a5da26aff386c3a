// The run's trace (s4bxi-run --trace DIR, docs/trace-format.md): every NIC
// message, NIC engine busy period, PCIe transfer, rank compute, Portals call,
// wait and poll, written as it happens to DIR/events.csv (one row each) and
// DIR/trace.json (Chrome trace-event format, for Perfetto or chrome://tracing).
//
// Recording only: no hook creates a SimGrid activity or sleeps, so a traced
// run has exactly the simulated times of an untraced one. When tracing is off
// `active` is null and every hook costs one branch.
#pragma once

#include "kinds.hpp"

#include <sys/types.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace s4bxi::trace {

struct Event {
  Kind kind = Kind::Call;
  unsigned node = 0; // node index (the report's "node")
  int rank = -1;     // -1: no rank
  int vn = -1;       // virtual network, -1: none
  uint64_t bytes = 0;
  double start = 0; // simulated seconds
  double end = 0;
  const char* what = nullptr; // static text: the call, the message kind, the event...
  int dst = -1;               // destination node of a message
  int src = -1;               // source node of a received message
  uint64_t wire_bytes = 0;    // messages: bytes on the wire (header and packets)
  int actor = 0;              // which engine, when a VN has several
  int retry = 0;              // messages: how many times E2E sent it again
  const char* note = nullptr; // static text at the end of the detail ("lost", "acknowledged"...)
};

class Recorder {
public:
  // Creates `directory` if needed and starts both files; nullptr and one
  // sentence in `error` if it cannot, or if another job traces into the same
  // directory (a lock held until this run ends). `node_names` name the nodes
  // by index.
  static std::unique_ptr<Recorder> open(const std::string& directory, std::vector<std::string> node_names,
                                        std::string& error);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void record(const Event& event);

  // A rank's Portals call (`call.end` unused): the waits and polls recorded
  // until end_call() are written after the call, so that viewers nest them
  // inside it.
  void begin_call(const Event& call);
  void end_call(unsigned rank, double end);

  // The rank of a process (for the NIC's writes into its memory), -1 if none.
  void set_processes(const std::vector<pid_t>& os_pids);
  [[nodiscard]] int rank_of(pid_t os_pid) const;

  // Writes the calls still open (ending at `now`), the track names, and
  // closes both files; later records are dropped.
  void close(double now);

  [[nodiscard]] uint64_t events_written() const { return events_; }

private:
  Recorder() = default;
  void write(const Event& event);
  void write_csv(const Event& event, const std::string& actor);
  void write_json(const Event& event, uint32_t tid);
  void flush();
  // The event's track in trace.json; its CSV `actor` goes into `actor`.
  uint32_t track_of(const Event& event, std::string& actor);
  uint32_t lane(unsigned node, uint32_t group, double start, double end);

  std::FILE* csv_file_ = nullptr;
  std::FILE* json_file_ = nullptr;
  int lock_fd_ = -1; // flock'ed: the directory is this run's
  std::string csv_;  // buffered rows, written out in large blocks
  std::string json_;
  std::string actor_; // scratch
  bool first_json_event_ = true;
  uint64_t events_ = 0;
  std::vector<std::string> node_names_;
  struct RankCalls {
    bool open = false;
    Event call;
    std::vector<Event> held;
  };
  std::vector<RankCalls> calls_; // by rank
  std::unordered_map<uint64_t, std::vector<double>> lanes_; // (node, group) -> end of each lane's last event
  std::unordered_set<uint64_t> tracks_;                     // (node, tid) seen
  std::unordered_map<pid_t, int> ranks_by_process_;
};

// The recorder of this run, or nullptr when tracing is off.
extern Recorder* active;

// Closes the active recorder at simulated time `now` (the run is ending:
// JobControl::finish).
void finish(double now);

} // namespace s4bxi::trace
