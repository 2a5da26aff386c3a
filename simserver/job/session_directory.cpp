#include "session_directory.hpp"

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace s4bxi::job {

namespace {

constexpr std::string_view kPrefix = "s4bxi-ompi-";
// Inside each directory the run makes: the server's pid, to tell a dead run's
// directory from a live one's, and ours from a stranger's of the same name.
constexpr const char* kMarker = ".s4bxi-run-server";

fs::path temporary_parent()
{
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? fs::path(tmp) : fs::path("/tmp");
}

// The pid in "s4bxi-ompi-PID-XXXXXX", or -1 if `name` is not of that form.
pid_t server_pid_in_name(const std::string& name)
{
  if (name.rfind(kPrefix, 0) != 0)
    return -1;
  const std::string rest = name.substr(kPrefix.size());
  const size_t dash = rest.find('-');
  if (dash == 0 || dash == std::string::npos || rest.size() - dash - 1 != 6)
    return -1;
  pid_t pid = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + dash, pid);
  return error == std::errc() && end == rest.data() + dash && pid > 0 ? pid : -1;
}

bool process_gone(pid_t pid)
{
  return kill(pid, 0) != 0 && errno == ESRCH;
}

} // namespace

void remove_stale_session_directories()
{
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(temporary_parent(), ignored)) {
    const pid_t pid = server_pid_in_name(entry.path().filename().string());
    if (pid < 0)
      continue;
    struct stat info {};
    if (lstat(entry.path().c_str(), &info) != 0 || not S_ISDIR(info.st_mode) || info.st_uid != getuid())
      continue;
    std::ifstream marker(entry.path() / kMarker);
    std::string named;
    if (not(marker >> named) || named != std::to_string(pid) || not process_gone(pid))
      continue;
    fs::remove_all(entry.path(), ignored);
  }
}

SessionDirectory SessionDirectory::for_open_mpi()
{
  SessionDirectory made;
  if (const char* chosen = std::getenv("OMPI_MCA_orte_tmpdir_base"); chosen != nullptr && *chosen != '\0')
    return made;
  const fs::path parent = temporary_parent();
  std::string pattern = (parent / (std::string(kPrefix) + std::to_string(getpid()) + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot make Open MPI's session directory in " + parent.string() + " (" +
                             std::strerror(errno) + "); set TMPDIR to a writable directory");
  made.path_ = pattern;
  std::ofstream(made.path_ / kMarker) << getpid() << '\n';
  setenv("OMPI_MCA_orte_tmpdir_base", made.path_.c_str(), 1);
  return made;
}

void SessionDirectory::remove()
{
  if (path_.empty())
    return;
  std::error_code ignored;
  fs::remove_all(path_, ignored);
  path_.clear();
}

} // namespace s4bxi::job
