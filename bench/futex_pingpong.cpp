// Reference for the IPC benchmark: the raw cost of a round trip between two
// processes through a shared-memory futex pair, with no protocol on top.
// Prints microseconds per round trip for plain FUTEX_WAIT/WAKE, and for the
// same doorbell the emulator uses (spin, then futex).
#include "doorbell.hpp"

#include <cstdio>
#include <cstdlib>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace {

double wall_seconds()
{
  timespec t{};
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t); // never the preload's simulated clock
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

struct Shared {
  s4bxi::ipc::Doorbell ping;
  s4bxi::ipc::Doorbell pong;
};

// One side of a ping-pong where waiting is FUTEX_WAIT only (no spin).
void wait_plain(s4bxi::ipc::Doorbell& bell, uint32_t seen)
{
  while (bell.sequence.load(std::memory_order_acquire) == seen) {
    bell.sleeping.store(1);
    if (bell.sequence.load() == seen)
      s4bxi::ipc::futex_wait(&bell.sequence, seen, nullptr);
    bell.sleeping.store(0);
  }
}

double run(int iterations, bool spin)
{
  auto* shared = static_cast<Shared*>(
      mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  new (shared) Shared();
  pid_t child = fork();
  if (child == 0) {
    s4bxi::ipc::SpinBudget budget;
    for (int i = 0; i < iterations; ++i) {
      if (spin)
        s4bxi::ipc::wait_for_ring(shared->ping, static_cast<uint32_t>(i), budget, nullptr);
      else
        wait_plain(shared->ping, static_cast<uint32_t>(i));
      shared->pong.ring();
    }
    _exit(0);
  }
  s4bxi::ipc::SpinBudget budget;
  double start = wall_seconds();
  for (int i = 0; i < iterations; ++i) {
    shared->ping.ring();
    if (spin)
      s4bxi::ipc::wait_for_ring(shared->pong, static_cast<uint32_t>(i), budget, nullptr);
    else
      wait_plain(shared->pong, static_cast<uint32_t>(i));
  }
  double elapsed = wall_seconds() - start;
  waitpid(child, nullptr, 0);
  munmap(shared, sizeof(Shared));
  return elapsed / iterations * 1e6;
}

} // namespace

int main(int argc, char** argv)
{
  int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  std::printf("futex-only round trip        %8.3f us\n", run(iterations, false));
  std::printf("spin-then-futex round trip   %8.3f us\n", run(iterations, true));
  return 0;
}
