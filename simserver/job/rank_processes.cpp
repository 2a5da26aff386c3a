#include "rank_processes.hpp"

#include "cpu_contention.hpp"

#include <algorithm>
#include <cerrno>
#include <sched.h>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace s4bxi::job {

namespace {
// The server's own descriptors: standard streams, the segment, SimGrid's,
// the rank watcher's epoll and eventfd, a report and trace files.
constexpr rlim_t kDescriptorsBesideRanks = 32;
} // namespace

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
  // The server holds two descriptors per rank (PMI socket, pidfd): thousands
  // of ranks need more than the usual soft limit of 1,024. The ranks get the
  // original limit back (a program may use select()).
  getrlimit(RLIMIT_NOFILE, &original_open_files_);
  struct rlimit raised = original_open_files_;
  raised.rlim_cur = raised.rlim_max;
  setrlimit(RLIMIT_NOFILE, &raised);
  getrlimit(RLIMIT_NOFILE, &raised);
  const rlim_t needed = 2 * static_cast<rlim_t>(count) + kDescriptorsBesideRanks;
  if (raised.rlim_cur != RLIM_INFINITY && raised.rlim_cur < needed)
    throw std::runtime_error(std::to_string(count) + " ranks need " + std::to_string(needed) +
                             " file descriptors in the server (two per rank), the limit is " +
                             std::to_string(raised.rlim_cur) + "; raise it with ulimit -n");
  // Not close-on-exec: the rank processes inherit it (the preload closes its copy).
  memfd_ = memfd_create("s4bxi-ipc", MFD_ALLOW_SEALING);
  if (memfd_ < 0)
    throw std::runtime_error(std::string("cannot create the shared-memory segment: ") + strerror(errno));
  const ipc::SegmentLayout layout{static_cast<size_t>(sysconf(_SC_PAGESIZE)), count};
  segment_bytes_ = layout.size();
  if (ftruncate(memfd_, static_cast<off_t>(segment_bytes_)) != 0)
    throw std::runtime_error(std::string("cannot size the shared-memory segment: ") + strerror(errno));
  // Its size is fixed for good: a rank that truncated it (through the
  // descriptor it inherits) would make the server's next access to a
  // channel a SIGBUS.
  if (fcntl(memfd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw std::runtime_error(std::string("cannot seal the shared-memory segment: ") + strerror(errno));
  segment_ = mmap(nullptr, segment_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, memfd_, 0);
  if (segment_ == MAP_FAILED)
    throw std::runtime_error(std::string("cannot map the shared-memory segment: ") + strerror(errno));
  ipc::format_segment(segment_, layout, clock);
  auto* base = static_cast<char*>(segment_);
  scheduling_ = reinterpret_cast<ipc::SharedScheduling*>(base + layout.scheduling_offset());
  channel_area_ = base + layout.channels_offset();
  ipc::CpuContention::share(&scheduling_->contended_until);
  for (unsigned rank = 0; rank < count; ++rank)
    channels_.push_back(reinterpret_cast<ipc::Channel*>(base + layout.channel_offset(rank)));
  if (pipe2(crash_pipe_, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("cannot create the crash pipe: ") + strerror(errno));
}

bool RankProcesses::relay_wake(const ipc::Doorbell& bell, unsigned rank_to_wake, uint32_t& relayed_to)
{
  const auto offset = static_cast<uint32_t>(reinterpret_cast<const char*>(&bell.sequence) - channel_area_);
  return ipc::relay_wake(scheduling_->wake_relay, wake_requests_appended_, offset, rank_to_wake, relayed_to);
}

void RankProcesses::set_only_served_rank_spins(bool on)
{
  ipc::header_of(segment_)->only_served_rank_spins = on ? 1 : 0;
}

RankProcesses::~RankProcesses()
{
  kill_all();
  ipc::CpuContention::share(nullptr); // the segment's word goes with it
  if (segment_ != nullptr)
    munmap(segment_, segment_bytes_);
  if (memfd_ >= 0)
    close(memfd_);
  for (int socket : pmi_sockets_)
    close(socket);
  for (int end : crash_pipe_)
    if (end >= 0)
      close(end);
}

namespace {

std::string prepend_preload(const std::string& library)
{
  const char* existing = getenv("LD_PRELOAD");
  if (existing == nullptr || *existing == '\0')
    return library;
  return library + ":" + existing;
}

// The whole environment of a rank: the server's, with `overrides` (NAME=value)
// replacing variables of the same name.
std::vector<std::string> rank_environment(const std::vector<std::string>& overrides)
{
  std::vector<std::string> result;
  auto overridden = [&overrides](const char* variable) {
    const char* equals = std::strchr(variable, '=');
    const size_t name_length = equals != nullptr ? static_cast<size_t>(equals - variable) : std::strlen(variable);
    for (const auto& o : overrides)
      if (o.size() > name_length && o[name_length] == '=' && o.compare(0, name_length, variable, name_length) == 0)
        return true;
    return false;
  };
  for (char** variable = environ; *variable != nullptr; ++variable)
    if (not overridden(*variable))
      result.emplace_back(*variable);
  result.insert(result.end(), overrides.begin(), overrides.end());
  return result;
}

// gdb, told to give the program the emulator's library, to stop at main and
// to run it; then the user's own debugger options; then the program.
std::vector<std::string> debugger_command(const LaunchSpec& spec, const std::string& preload_value)
{
  // The preemption timer's signal (preload/sync_timer.cpp) is the emulator's
  // business: gdb lets it through without stopping.
  const std::string sync_signal = "SIG" + std::to_string(SIGRTMAX - 3);
  std::vector<std::string> words = {spec.debugger.at(0),
                                    "-q",
                                    "-ex",
                                    "set environment LD_PRELOAD=" + preload_value,
                                    "-ex",
                                    "handle " + sync_signal + " nostop noprint pass",
                                    "-ex",
                                    "break main",
                                    "-ex",
                                    "run"};
  words.insert(words.end(), spec.debugger.begin() + 1, spec.debugger.end());
  words.emplace_back("--args");
  words.insert(words.end(), spec.argv.begin(), spec.argv.end());
  return words;
}

// What the child needs between clone and exec, all prepared by the server:
// the child shares the server's memory and must not allocate.
struct ExecPlan {
  char* const* argv;
  char* const* envp;
  ipc::Channel* channel;
  pid_t server;
  int pmi_fd;
  int crash_fd;
  const char* terminal; // a debugger's window (tmux), or nullptr: the launcher's
  struct rlimit open_files; // the limit the server was started with, for the program
  sigset_t signal_mask;     // the server's, for the program
  int exec_error;       // written by the child when exec fails
};

void signal_default(int signal)
{
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigaction(signal, &action, nullptr);
}

// The rank's first instructions, on its own small stack in the server's
// address space (CLONE_VM | CLONE_VFORK, as posix_spawn does it): the server
// is suspended until exec, and no page table is copied. A fork() would copy the
// server's page tables for every rank, a cost that grows with the platform
// and the number of ranks already started (start-up quadratic in the ranks).
int exec_rank(void* argument)
{
  auto* plan = static_cast<ExecPlan*>(argument);
  // Signals are blocked (the server's handlers must not run on this stack);
  // the ones it catches get their default action back before they are unblocked.
  for (int signal = 1; signal < NSIG; ++signal) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN)
      signal_default(signal);
  }
  sigprocmask(SIG_SETMASK, &plan->signal_mask, nullptr);
  setrlimit(RLIMIT_NOFILE, &plan->open_files);
  prctl(PR_SET_PDEATHSIG, SIGKILL); // no orphan rank if the server dies
  if (getppid() != plan->server)
    _exit(127);
  fcntl(plan->pmi_fd, F_SETFD, 0); // the rank's PMI socket survives exec
  fcntl(plan->crash_fd, F_SETFD, 0);
  if (plan->terminal != nullptr) {
    const int tty = open(plan->terminal, O_RDWR | O_NOCTTY);
    if (tty >= 0) {
      dup2(tty, 0);
      dup2(tty, 1);
      dup2(tty, 2);
      if (tty > 2)
        close(tty);
    }
  }
  // The child's pid: the process that will use this channel.
  plan->channel->owner_pid.store(static_cast<int32_t>(syscall(SYS_getpid)), std::memory_order_release);
  execvpe(plan->argv[0], plan->argv, plan->envp);
  plan->exec_error = errno;
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
  debugged_ = spec.debugged_ranks;
  std::vector<char*> argv;
  for (const auto& arg : spec.argv)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  // The stack of each child until its exec (execvpe's search of PATH uses it).
  std::vector<char> child_stack(256 * 1024);
  for (unsigned rank = 0; rank < count_; ++rank) {
    std::vector<std::string> environment = {
        preload,
        std::string(ipc::kEnvShmFd) + "=" + std::to_string(memfd_),
        std::string(ipc::kEnvRank) + "=" + std::to_string(rank),
        std::string(ipc::kEnvSize) + "=" + std::to_string(count_),
        "PMI_RANK=" + std::to_string(rank),
        "PMI_SIZE=" + std::to_string(count_),
        "PMI_SPAWNED=0",
        std::string(ipc::kEnvCrashFd) + "=" + std::to_string(crash_pipe_[1]),
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
      throw std::runtime_error(
          std::string("cannot create a PMI socket: ") + strerror(errno) +
          (errno == EMFILE ? " (the server needs two descriptors per rank; raise the limit with ulimit -n)" : ""));
    pmi_sockets_.push_back(pmi[0]);
    rank_pmi_fds_.push_back(pmi[1]);
    environment.push_back("PMI_FD=" + std::to_string(pmi[1]));
    const bool debugged =
        std::find(spec.debugged_ranks.begin(), spec.debugged_ranks.end(), rank) != spec.debugged_ranks.end();
    std::vector<std::string> debugger_words;
    if (debugged) {
      // The debugger itself runs without the emulator's library; it passes
      // the library to the program it starts (through its shell).
      std::erase_if(environment, [](const std::string& variable) { return variable.rfind("LD_PRELOAD=", 0) == 0; });
      debugger_words = debugger_command(spec, preload.substr(preload.find('=') + 1));
      channel(rank)->debugged = 1;
    }
    std::vector<char*> rank_argv;
    for (auto& word : debugger_words)
      rank_argv.push_back(word.data());
    if (debugged)
      rank_argv.push_back(nullptr);
    const std::vector<std::string> full_environment = rank_environment(environment);
    std::vector<char*> envp;
    for (const auto& variable : full_environment)
      envp.push_back(const_cast<char*>(variable.c_str()));
    envp.push_back(nullptr);
    const char* terminal = nullptr;
    if (debugged && spec.debugger_windows) {
      std::string error;
      auto window = open_tmux_window("rank " + std::to_string(rank), error);
      if (not window) {
        kill_all();
        throw std::runtime_error(error);
      }
      windows_.push_back(*window);
      terminal = windows_.back().terminal.c_str();
    }
    ExecPlan plan{debugged ? rank_argv.data() : argv.data(),
                  envp.data(),
                  channel(rank),
                  server,
                  pmi[1],
                  crash_pipe_[1],
                  terminal,
                  original_open_files_,
                  {},
                  0};
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &plan.signal_mask);
    pid_t pid = clone(exec_rank, child_stack.data() + child_stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD, &plan);
    pthread_sigmask(SIG_SETMASK, &plan.signal_mask, nullptr);
    if (pid < 0) {
      kill_all();
      throw std::runtime_error(std::string("cannot start rank ") + std::to_string(rank) + ": " + strerror(errno));
    }
    // Here the child has called exec, or exited.
    pids_[rank] = pid;
    close(pmi[1]);
    if (plan.exec_error != 0) {
      kill_all();
      const int exec_error = plan.exec_error;
      throw std::runtime_error("cannot execute '" + spec.argv[0] + "': " + strerror(exec_error));
    }
  }
}

namespace {

Termination termination_of(int status)
{
  Termination end;
  end.signaled = WIFSIGNALED(status);
  end.code = end.signaled ? WTERMSIG(status) : WEXITSTATUS(status);
  return end;
}

} // namespace

std::optional<Termination> RankProcesses::poll_exit(unsigned rank)
{
  if (ended_[rank] || pids_[rank] <= 0)
    return ended_[rank];
  int status = 0;
  pid_t got = waitpid(pids_[rank], &status, WNOHANG);
  if (got != pids_[rank])
    return std::nullopt;
  ended_[rank] = termination_of(status);
  return ended_[rank];
}

void RankProcesses::place_main_threads(const cpu_set_t& cpus) const
{
  const int saved_errno = errno;
  for (unsigned rank = 0; rank < count_; ++rank)
    if (pids_[rank] > 0 && not ended_[rank])
      sched_setaffinity(pids_[rank], sizeof cpus, &cpus);
  errno = saved_errno;
}

Termination RankProcesses::wait_exit(unsigned rank)
{
  if (ended_[rank])
    return *ended_[rank];
  int status = 0;
  pid_t got;
  do
    got = waitpid(pids_[rank], &status, 0);
  while (got < 0 && errno == EINTR);
  ended_[rank] = termination_of(status);
  return *ended_[rank];
}

void RankProcesses::wait_for_debuggers(const std::function<void()>& check_interrupt)
{
  bool said = false;
  for (int waited_ms = 0;; waited_ms += 50) {
    bool running = false;
    for (unsigned rank : debugged_)
      running = not poll_exit(rank).has_value() || running;
    if (not running)
      return;
    if (waited_ms >= 1000 && not said) {
      std::fprintf(stderr, "s4bxi-run: every rank has finished; quit the debugger to end the job\n");
      said = true;
    }
    check_interrupt();
    usleep(50'000);
  }
}

void RankProcesses::kill_all()
{
  for (const auto& window : windows_)
    close_tmux_window(window);
  windows_.clear();
  for (unsigned rank = 0; rank < count_; ++rank)
    if (pids_[rank] > 0 && not ended_[rank])
      kill(pids_[rank], SIGKILL);
  for (unsigned rank = 0; rank < count_; ++rank)
    if (pids_[rank] > 0 && not ended_[rank])
      wait_exit(rank);
}

} // namespace s4bxi::job
