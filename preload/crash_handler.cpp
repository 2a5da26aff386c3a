#include "crash_handler.hpp"

#include "futex.hpp"

#include <csignal>
#include <ctime>
#include <sys/syscall.h>
#include <unistd.h>

namespace s4bxi::preload::crash {

namespace {

ipc::Channel* channel = nullptr;
uint32_t rank_number = 0;
int pipe_fd = -1;
uintptr_t segment_start = 0;
uintptr_t segment_end = 0;

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};

// Async-signal-safe only: atomics, write(2), futex, sigaction, raise.
void on_fatal_signal(int signal, siginfo_t* info, void*)
{
  uint32_t none = 0;
  if (channel->crash_signal.compare_exchange_strong(none, static_cast<uint32_t>(signal))) {
    channel->crash_tid = static_cast<int32_t>(syscall(SYS_gettid));
    const bool memory_fault = signal == SIGSEGV || signal == SIGBUS;
    channel->crash_address = memory_fault ? reinterpret_cast<uint64_t>(info->si_addr) : 0;
    const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
    channel->crash_in_segment = memory_fault && address >= segment_start && address < segment_end ? 1 : 0;
    channel->crash_read.store(0, std::memory_order_release);
    [[maybe_unused]] auto written = write(pipe_fd, &rank_number, sizeof rank_number);
    // While this thread waits here, the server reads its stack. Bounded (100
    // slices of 50 ms): a server that cannot answer must not keep a crashed
    // process alive.
    const timespec slice{0, 50'000'000};
    for (int waited = 0; waited < 100 && channel->crash_read.load(std::memory_order_acquire) == 0; ++waited)
      ipc::futex_wait(&channel->crash_read, 0, &slice);
  }
  // The default action now: for a fault, returning re-executes the faulting
  // instruction, which then kills the process with this very signal.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  sigaction(signal, &fallback, nullptr);
  if (info->si_code <= 0 || signal == SIGABRT) // sent (kill, raise, abort), not a fault
    raise(signal);
}

} // namespace

void install(ipc::Channel* crash_channel, uint32_t rank, int crash_fd, const void* segment, std::size_t segment_length)
{
  if (crash_channel == nullptr || crash_fd < 0)
    return;
  channel = crash_channel;
  segment_start = reinterpret_cast<uintptr_t>(segment);
  segment_end = segment_start + segment_length;
  rank_number = rank;
  pipe_fd = crash_fd;
  for (int signal : kFatalSignals) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL)
      continue;
    struct sigaction action {};
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    // No other signal while the server reads the stack: the sync timer's,
    // every quantum, would run its handler (and a Sync call) on top of this
    // one, and the stack read would stop at that handler's trampoline (the
    // report then named on_fatal_signal, about one crash in seven). The fatal
    // signals stay deliverable, for the default action that follows.
    sigfillset(&action.sa_mask);
    for (int fatal : kFatalSignals)
      sigdelset(&action.sa_mask, fatal);
    sigaction(signal, &action, nullptr);
  }
}

void forget()
{
  if (channel == nullptr)
    return;
  for (int signal : kFatalSignals) {
    struct sigaction current {};
    if (sigaction(signal, nullptr, &current) == 0 && (current.sa_flags & SA_SIGINFO) != 0 &&
        current.sa_sigaction == on_fatal_signal) {
      struct sigaction fallback {};
      fallback.sa_handler = SIG_DFL;
      sigaction(signal, &fallback, nullptr);
    }
  }
  channel = nullptr;
}

} // namespace s4bxi::preload::crash
