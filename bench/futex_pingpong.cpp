// Reference for the IPC benchmark: the raw cost of a round trip between two
// processes through a shared-memory futex pair, with no protocol on top.
// Prints microseconds per round trip for plain FUTEX_WAIT/WAKE, and for the
// same doorbell the emulator uses (spin, then futex). Then what waking a
// sleeping process costs its waker (the FUTEX_WAKE call) and how soon the
// sleeper answers, from another CPU (the server waking a rank) and from the
// sleeper's own CPU (the warm rank relaying the wake: ipc/wake_relay.hpp).
#include "doorbell.hpp"

#include <sched.h>

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

// Two doorbells in memory that a fork shares.
Shared* shared_bells()
{
  void* memory = mmap(nullptr, sizeof(Shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return new (memory) Shared();
}

double run(int iterations, bool spin)
{
  Shared* shared = shared_bells();
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

void pin_to(int cpu)
{
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  sched_setaffinity(0, sizeof set, &set);
}

struct WakeCost {
  double call_us = 0;     // the waker's FUTEX_WAKE
  double answered_us = 0; // from the wake to the sleeper's answer
};

// The sleeper on CPU 0 sleeps in FUTEX_WAIT for each ring; the waker, on CPU
// 1 or on CPU 0 too, rings once it sleeps and yields until it answers.
WakeCost wake_cost(int iterations, bool same_cpu)
{
  Shared* shared = shared_bells();
  pid_t child = fork();
  if (child == 0) {
    pin_to(0);
    for (int i = 0; i < iterations; ++i) {
      wait_plain(shared->ping, static_cast<uint32_t>(i));
      shared->pong.sequence.fetch_add(1, std::memory_order_seq_cst);
    }
    _exit(0);
  }
  cpu_set_t before;
  sched_getaffinity(0, sizeof before, &before);
  pin_to(same_cpu ? 0 : 1);
  WakeCost cost;
  for (int i = 0; i < iterations; ++i) {
    // Asleep in the kernel, not only about to be: a few more microseconds.
    while (shared->ping.sleeping.load(std::memory_order_acquire) == 0)
      sched_yield();
    for (const double asleep = wall_seconds(); wall_seconds() - asleep < 20e-6;)
      sched_yield();
    const double start = wall_seconds();
    if (shared->ping.publish())
      shared->ping.wake();
    const double called = wall_seconds();
    while (shared->pong.sequence.load(std::memory_order_acquire) == static_cast<uint32_t>(i))
      sched_yield();
    cost.call_us += (called - start) * 1e6;
    cost.answered_us += (wall_seconds() - start) * 1e6;
  }
  waitpid(child, nullptr, 0);
  munmap(shared, sizeof(Shared));
  sched_setaffinity(0, sizeof before, &before);
  cost.call_us /= iterations;
  cost.answered_us /= iterations;
  return cost;
}

} // namespace

int main(int argc, char** argv)
{
  int iterations = argc > 1 ? std::atoi(argv[1]) : 200000;
  std::printf("futex-only round trip        %8.3f us\n", run(iterations, false));
  std::printf("spin-then-futex round trip   %8.3f us\n", run(iterations, true));
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_ISSET(0, &allowed) && CPU_ISSET(1, &allowed)) {
    const int wakes = iterations / 20 > 0 ? iterations / 20 : 1;
    for (const bool same_cpu : {false, true}) {
      const WakeCost cost = wake_cost(wakes, same_cpu);
      std::printf("wake from %-18s FUTEX_WAKE %7.3f us, answered after %7.3f us\n",
                  same_cpu ? "the sleeper's CPU:" : "another CPU:", cost.call_us, cost.answered_us);
    }
  }
  return 0;
}
