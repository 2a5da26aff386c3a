// The channel's wake-up mechanism between two real processes.
#include "doorbell.hpp"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

using s4bxi::ipc::Doorbell;
using s4bxi::ipc::SpinBudget;
using s4bxi::ipc::wait_for_ring;

namespace {

struct Pair {
  Doorbell ping;
  Doorbell pong;
  uint64_t payload; // written before each ring, read after each wait
};

Pair* shared_pair()
{
  void* memory = mmap(nullptr, sizeof(Pair), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  return new (memory) Pair();
}

} // namespace

TEST(Doorbell, TimesOutWhenNobodyRings)
{
  Doorbell bell;
  SpinBudget budget;
  const timespec timeout{0, 5'000'000};
  EXPECT_FALSE(wait_for_ring(bell, bell.current(), budget, &timeout));
}

TEST(Doorbell, SeesARingThatHappenedBeforeTheWait)
{
  Doorbell bell;
  SpinBudget budget;
  uint32_t seen = bell.current();
  bell.ring();
  EXPECT_TRUE(wait_for_ring(bell, seen, budget, nullptr));
}

// Many round trips between two processes, each carrying a value that the other
// side must see exactly once and in order: a lost or spurious wake-up fails it.
TEST(Doorbell, PingPongBetweenProcessesLosesNothing)
{
  constexpr uint64_t kRounds = 20000;
  Pair* pair = shared_pair();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    SpinBudget budget;
    for (uint64_t i = 0; i < kRounds; ++i) {
      wait_for_ring(pair->ping, static_cast<uint32_t>(i), budget, nullptr);
      if (pair->payload != i)
        _exit(1);
      pair->payload = i + 1000000;
      pair->pong.ring();
    }
    _exit(0);
  }
  SpinBudget budget;
  bool in_order = true;
  for (uint64_t i = 0; i < kRounds; ++i) {
    pair->payload = i;
    pair->ping.ring();
    wait_for_ring(pair->pong, static_cast<uint32_t>(i), budget, nullptr);
    in_order = in_order && pair->payload == i + 1000000;
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(in_order);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  munmap(pair, sizeof(Pair));
}

// A peer that only rings after a long pause finds the waiter asleep in the
// futex: the wake-up path, not just the spin, must work.
TEST(Doorbell, WakesASleepingWaiter)
{
  Pair* pair = shared_pair();
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    usleep(200000);
    pair->ping.ring();
    _exit(0);
  }
  SpinBudget budget;
  EXPECT_TRUE(wait_for_ring(pair->ping, 0, budget, nullptr));
  waitpid(child, nullptr, 0);
  munmap(pair, sizeof(Pair));
}
