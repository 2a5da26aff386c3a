// Ending a run, on every path: normal end, a rank that fails, a deadlock, or
// Ctrl-C. Every path kills what is left of the ranks, writes the report and
// the summary line, and exits with a status that names the cause.
#pragma once

#include "../world.hpp"
#include "session_directory.hpp"
#include "wall_clock.hpp"

#include <csignal>
#include <optional>
#include <string>

namespace s4bxi::job {

inline constexpr int kUsageErrorStatus = 2;
inline constexpr int kDeadlockStatus = 86; // distinct from the usual small exit codes of programs

class JobControl {
public:
  JobControl(World& world, std::string report_path, double wall_start);
  // The programming layer the ranks use, as the report names it.
  void set_layer(std::string layer) { layer_ = std::move(layer); }
  // What the run made for Open MPI's session directories, removed by finish
  // (or at once by remove_session_directory, on a path that does not finish).
  void set_session_directory(SessionDirectory directory) { session_ = std::move(directory); }
  void remove_session_directory() { session_.remove(); }

  // Ends the run at once: kills the ranks, reports, prints `sentence` (if not
  // empty) on stderr prefixed with "s4bxi-run: ", exits with `status`.
  [[noreturn]] void finish(int status, const std::string& sentence);
  // Ends the run because `rank` ended badly (non-zero exit or a signal).
  [[noreturn]] void rank_failed(unsigned rank, const Termination& end);

  // Nullopt if the report can be written at `path`, otherwise one sentence
  // saying why not (a directory, no permission, no such directory): checked
  // before the run, so that it is not lost at the end.
  static std::optional<std::string> unwritable_report(const std::string& path);

  // Set from a signal handler; checked by the waiting proxies and at each
  // simulated time step.
  static volatile std::sig_atomic_t interrupt_signal;
  void check_interrupt();
  static void install_signal_handlers();

private:
  // False, after saying why on stderr, when the report could not be written
  // (a full disk: /dev/full).
  [[nodiscard]] bool write_report(int status, const std::string& stop_reason) const;
  // The report's "crash" field of a rank: its fatal signal, or null.
  [[nodiscard]] std::string crash_json(unsigned rank) const;
  // Its "blocked" field: the call a live rank waits in and where the program
  // made it (read for deadlock reports), or null.
  [[nodiscard]] static std::string blocked_json(const RankPortals& rank);
  World& world_;
  std::string report_path_;
  std::string layer_ = "Portals";
  SessionDirectory session_;
  double wall_start_;
  // The time-stamp counter and the wall clock when the job began, to convert
  // what the ranks counted in ticks (ipc::ProcessRuns).
  uint64_t ticks_start_;
  double ticks_wall_start_;
};


} // namespace s4bxi::job
