// The directory under which Open MPI puts the session directories of an MPI
// run's ranks (OMPI_MCA_orte_tmpdir_base): made by the server itself
// (mkdtemp) before the ranks start, and removed when the run ends, however it
// ends (ranks stopped by a failure never clean theirs). Only what the run made
// is ever removed: never a path read from the environment. A directory left
// by a server killed with SIGKILL is removed by a later run, once its marker
// names a server process that no longer exists.
#pragma once

#include <filesystem>

namespace s4bxi::job {

class SessionDirectory {
public:
  // Makes the directory in $TMPDIR (or /tmp) and points the ranks' Open MPI
  // at it, unless the user chose one (OMPI_MCA_orte_tmpdir_base already set:
  // theirs, left alone). Throws std::runtime_error when it cannot be made.
  static SessionDirectory for_open_mpi();
  SessionDirectory() = default;

  // Removes the directory and everything the ranks put in it (nothing when
  // the run made none). Safe to call more than once.
  void remove();

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_; // empty: the run made none
};

// Removes, in $TMPDIR (or /tmp), the session directories of this user's runs
// whose server process is gone. Only directories named s4bxi-ompi-PID-XXXXXX,
// owned by this user, holding the marker file that names PID, are candidates.
// Every run calls it at start-up.
void remove_stale_session_directories();

} // namespace s4bxi::job
