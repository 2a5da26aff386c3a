#include "rank_processes.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace s4bxi::job {

std::string Termination::describe() const
{
  if (signaled) {
    const char* name = strsignal(code);
    return "was killed by signal " + std::to_string(code) + " (" + (name ? name : "unknown") + ")";
  }
  return "exited with status " + std::to_string(code);
}

RankProcesses::RankProcesses(unsigned count, const ipc::ClockConfig& clock)
    : count_(count), pids_(count, -1), ended_(count)
{
  // Not close-on-exec: the rank processes inherit it (the preload closes its copy).
  memfd_ = memfd_create("s4bxi-ipc", 0);
  if (memfd_ < 0)
    throw std::runtime_error(std::string("cannot create the shared-memory segment: ") + strerror(errno));
  segment_bytes_ = ipc::segment_size(count);
  if (ftruncate(memfd_, static_cast<off_t>(segment_bytes_)) != 0)
    throw std::runtime_error(std::string("cannot size the shared-memory segment: ") + strerror(errno));
  segment_ = mmap(nullptr, segment_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
  if (segment_ == MAP_FAILED)
    throw std::runtime_error(std::string("cannot map the shared-memory segment: ") + strerror(errno));
  ipc::format_segment(segment_, count, clock);
  for (unsigned rank = 0; rank < count; ++rank)
    new (channel(rank)) ipc::Channel();
}

RankProcesses::~RankProcesses()
{
  kill_all();
  if (segment_ != nullptr)
    munmap(segment_, segment_bytes_);
  if (memfd_ >= 0)
    close(memfd_);
  for (int socket : pmi_sockets_)
    close(socket);
}

namespace {

std::string prepend_preload(const std::string& library)
{
  const char* existing = getenv("LD_PRELOAD");
  if (existing == nullptr || *existing == '\0')
    return library;
  return library + ":" + existing;
}

// In the child, between fork and exec: only async-signal-safe work that cannot
// fail silently; an exec failure is reported through `report_fd`.
[[noreturn]] void exec_rank(const LaunchSpec& spec, const std::vector<std::string>& environment,
                            ipc::Channel* channel, pid_t server, int report_fd, int pmi_fd)
{
  prctl(PR_SET_PDEATHSIG, SIGKILL); // no orphan rank if the server dies
  if (getppid() != server)
    _exit(127);
  fcntl(pmi_fd, F_SETFD, 0); // the rank's PMI socket survives exec
  channel->owner_pid.store(getpid(), std::memory_order_release);
  for (const auto& variable : environment)
    putenv(const_cast<char*>(variable.c_str()));
  std::vector<char*> argv;
  for (const auto& arg : spec.argv)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  int error = errno;
  [[maybe_unused]] auto written = write(report_fd, &error, sizeof error);
  _exit(127);
}

} // namespace

void RankProcesses::spawn_all(const LaunchSpec& spec)
{
  const pid_t server = getpid();
  const std::string preload = "LD_PRELOAD=" + prepend_preload(spec.preload_library);
  std::map<std::string, std::string> node_ranks; // host name -> "r1,r2,..." in rank order
  for (unsigned rank = 0; rank < count_ && rank < spec.rank_hosts.size(); ++rank) {
    std::string& list = node_ranks[spec.rank_hosts[rank]];
    list += (list.empty() ? "" : ",") + std::to_string(rank);
  }
  for (unsigned rank = 0; rank < count_; ++rank) {
    std::vector<std::string> environment = {
        preload,
        std::string(ipc::kEnvShmFd) + "=" + std::to_string(memfd_),
        std::string(ipc::kEnvRank) + "=" + std::to_string(rank),
        std::string(ipc::kEnvSize) + "=" + std::to_string(count_),
        "PMI_RANK=" + std::to_string(rank),
        "PMI_SIZE=" + std::to_string(count_),
        "PMI_SPAWNED=0",
    };
    // The simulated node, as the rank sees it: its host name (the preload's
    // gethostname/uname hooks) and the ranks it shares the node with, for
    // PMI_Get_clique_ranks in libs4bxi-pmi. The clique travels in the
    // environment rather than as PMI_process_mapping in the key-value space:
    // it is fixed before the rank starts, the library then answers without a
    // round trip (a get is a blocking exchange with the server), and it needs
    // no parser of MPICH's block-vector notation (one block per round of a
    // round-robin placement).
    if (rank < spec.rank_hosts.size()) {
      environment.push_back("S4BXI_HOSTNAME=" + spec.rank_hosts[rank]);
      environment.push_back("S4BXI_NODE_RANKS=" + node_ranks[spec.rank_hosts[rank]]);
    }
    // PMI-1 over a socket, as Hydra-style process managers do it.
    int pmi[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pmi) != 0)
      throw std::runtime_error(std::string("cannot create a PMI socket: ") + strerror(errno));
    pmi_sockets_.push_back(pmi[0]);
    environment.push_back("PMI_FD=" + std::to_string(pmi[1]));
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0)
      throw std::runtime_error(std::string("cannot create a pipe: ") + strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
      close(report[0]);
      close(report[1]);
      kill_all();
      throw std::runtime_error(std::string("cannot fork rank ") + std::to_string(rank) + ": " + strerror(errno));
    }
    if (pid == 0) {
      close(report[0]);
      exec_rank(spec, environment, channel(rank), server, report[1], pmi[1]);
    }
    pids_[rank] = pid;
    close(pmi[1]);
    close(report[1]);
    int exec_error = 0;
    ssize_t got;
    do
      got = read(report[0], &exec_error, sizeof exec_error);
    while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == static_cast<ssize_t>(sizeof exec_error)) {
      kill_all();
      throw std::runtime_error("cannot execute '" + spec.argv[0] + "': " + strerror(exec_error));
    }
  }
}

namespace {

Termination termination_of(int status, const struct rusage& usage)
{
  Termination end;
  end.signaled = WIFSIGNALED(status);
  end.code = end.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
  end.max_rss_kb = usage.ru_maxrss;
  return end;
}

} // namespace

std::optional<Termination> RankProcesses::poll_exit(unsigned rank)
{
  if (ended_[rank] || pids_[rank] <= 0)
    return ended_[rank];
  int status = 0;
  struct rusage usage {};
  pid_t got = wait4(pids_[rank], &status, WNOHANG, &usage);
  if (got != pids_[rank])
    return std::nullopt;
  ended_[rank] = termination_of(status, usage);
  return ended_[rank];
}

Termination RankProcesses::wait_exit(unsigned rank)
{
  if (ended_[rank])
    return *ended_[rank];
  int status = 0;
  struct rusage usage {};
  pid_t got;
  do
    got = wait4(pids_[rank], &status, 0, &usage);
  while (got < 0 && errno == EINTR);
  ended_[rank] = termination_of(status, usage);
  return *ended_[rank];
}

void RankProcesses::kill_all()
{
  for (unsigned rank = 0; rank < count_; ++rank)
    if (pids_[rank] > 0 && not ended_[rank])
      kill(pids_[rank], SIGKILL);
  for (unsigned rank = 0; rank < count_; ++rank)
    if (pids_[rank] > 0 && not ended_[rank])
      wait_exit(rank);
}

} // namespace s4bxi::job
