// The channel's wake-up mechanism between two real processes.
#include "doorbell.hpp"

#include "cpu_contention.hpp"
#include "job/stall_notice.hpp"
#include "waiting_helpers.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

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
// `before_each_wait` runs on both sides before every wait. Returns the parent's
// spin budget as the round trips left it.
namespace {
SpinBudget ping_pong_loses_nothing(uint64_t rounds, void (*before_each_wait)())
{
  Pair* pair = shared_pair();
  pid_t child = fork();
  EXPECT_GE(child, 0);
  if (child == 0) {
    SpinBudget budget;
    for (uint64_t i = 0; i < rounds; ++i) {
      before_each_wait();
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
  for (uint64_t i = 0; i < rounds; ++i) {
    before_each_wait();
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
  return budget;
}
} // namespace

TEST(Doorbell, PingPongBetweenProcessesLosesNothing)
{
  ping_pong_loses_nothing(20000, [] {});
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

// A bell that a new waiter uses while the one before is still on its way out
// of its last wait: a thread's lane, which the server frees once it has
// answered the thread's LaneClose, taken by a new thread of the rank before
// the old one, woken, has run again. The one leaving must not take back the
// new one's word that it sleeps, or the ring of the new one's answer wakes
// nobody (seen beside three CPU hogs: e2e.ThreadLanes.EveryFlavourHasIndependentThreads
// waited forever; attaching gdb to the rank let it go on).
TEST(Doorbell, AWaiterLeavingLateDoesNotHideTheNextOne)
{
  Pair* pair = shared_pair();
  Doorbell& bell = pair->ping;
  bell.announce_sleep(); // the former waiter sleeps,
  bell.ring();           // is answered, but has not run yet
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) { // the new waiter
    SpinBudget budget;
    // (Unwoken, it would see the ring only when this ends.)
    const timespec twenty_seconds{20, 0};
    _exit(wait_for_ring(bell, 1, budget, &twenty_seconds) ? 0 : 1);
  }
  // The new waiter sleeps in the kernel.
  ASSERT_TRUE(within_a_second([child] { return s4bxi::job::asleep_in_kernel(child); }))
      << "the new waiter never went to sleep";
  bell.withdraw_sleep(); // the former waiter runs at last
  const auto rung = std::chrono::steady_clock::now();
  bell.ring(); // the new waiter's answer
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_LT(std::chrono::steady_clock::now() - rung, std::chrono::seconds(10))
      << "the new waiter's answer did not wake it: it saw the ring only when its wait timed out";
  munmap(pair, sizeof(Pair));
}

// With more ranks than cores, the latest waiter to stop being served keeps
// spinning (SegmentHeader::warm_rank) instead of sleeping, until another one
// takes its place; both still see their ring.
TEST(Doorbell, LatestUnservedWaiterStaysAwakeUntilAnotherTakesItsPlace)
{
  // Under load, a waiter sleeps at once instead (tested below): not here.
  const WithoutContentionDetection steady;
  std::atomic<uint32_t> served{99}; // the server serves someone else
  std::atomic<uint32_t> warm{0};
  Doorbell first_bell, second_bell;
  const s4bxi::ipc::SpinCondition first_served{&served, 1, &warm};
  const s4bxi::ipc::SpinCondition second_served{&served, 2, &warm};
  std::atomic<int> returned{0};
  auto wait = [&returned](Doorbell& bell, const s4bxi::ipc::SpinCondition& condition) {
    SpinBudget budget;
    wait_for_ring(bell, 0, budget, nullptr, nullptr, &condition);
    returned++;
  };

  std::thread first(wait, std::ref(first_bell), std::cref(first_served));
  // Only a waiter that goes on spinning takes the word (how long it spins
  // then depends on the machine's load: not checked here).
  ASSERT_TRUE(within_a_second([&] { return warm.load() == 1; })) << "the unserved waiter did not stay awake";
  std::thread second(wait, std::ref(second_bell), std::cref(second_served));
  ASSERT_TRUE(within_a_second([&] { return warm.load() == 2; }));
  // The first one gives its place up and sleeps; the ring still wakes it.
  EXPECT_TRUE(within_a_second([&] { return first_bell.sleeping.load() == 1; }));
  first_bell.ring();
  first.join();
  EXPECT_EQ(returned.load(), 1);
  second_bell.ring();
  second.join();
  EXPECT_EQ(returned.load(), 2);
}

// A wait that the server said will be long (Doorbell::sleep_hint: the answer
// waits for other ranks) no longer sleeps at once: once the server serves
// someone else, it stays warm like any other unserved waiter, so that the
// answer reaches it without a futex wake (some 20 us on a VM).
TEST(Doorbell, ALongWaitStaysWarmOnceAnotherRankIsServed)
{
  const WithoutContentionDetection steady;
  std::atomic<uint32_t> served{99};
  std::atomic<uint32_t> warm{0};
  Doorbell bell;
  bell.sleep_hint.store(1);
  const s4bxi::ipc::SpinCondition condition{&served, 1, &warm};
  std::thread waiter([&] {
    SpinBudget budget;
    EXPECT_TRUE(wait_for_ring(bell, 0, budget, nullptr, nullptr, &condition));
  });
  EXPECT_TRUE(within_a_second([&] { return warm.load() == 1; })) << "the long wait slept at once";
  bell.ring();
  waiter.join();
}

// A spinning waiter that notices a ring long after it was made had its CPU
// taken meanwhile: its process is marked contended (its waiters then sleep at
// once). One that notices a ring at once marks nothing.
TEST(CpuContention, ARingNoticedLateMarksContention)
{
  using s4bxi::ipc::contention_ticks;
  using s4bxi::ipc::CpuContention;
  constexpr uint64_t late = CpuContention::kLateTicks;
  CpuContention::set_detection(true);
  const uint64_t now = contention_ticks();
  CpuContention::noticed_while_spinning(now - 10 * late, now); // rung just now
  EXPECT_TRUE(CpuContention::spinning_pays());
  CpuContention::noticed_while_spinning(now - 10 * late, now - 5 * late); // rung long ago, during the spin
  EXPECT_FALSE(CpuContention::spinning_pays());
  CpuContention::set_detection(true); // forgets the contention
}

// A process that can tell whether the job's own processes took its CPU (the
// server) lets the long waits they explain mark nothing; the others, and
// every long wait of a process that cannot tell, still mark the job.
TEST(CpuContention, ALongWaitTheJobExplainsMarksNothing)
{
  using s4bxi::ipc::contention_ticks;
  using s4bxi::ipc::CpuContention;
  constexpr uint64_t late = CpuContention::kLateTicks;
  const uint64_t now = contention_ticks();
  uint64_t asked_since = 0;
  bool explained = true;
  const CpuContention::OwnLoad own_load = [&](uint64_t since, uint64_t) {
    asked_since = since;
    return explained;
  };
  CpuContention::set_detection(true);
  CpuContention::explain_with(&own_load);
  CpuContention::noticed_while_spinning(now - 10 * late, now - 5 * late); // rung long ago, during the spin
  EXPECT_EQ(asked_since, now - 5 * late) << "asked about another stretch than the one off the CPU";
  EXPECT_TRUE(CpuContention::spinning_pays()) << "a wait the job explains marked contention";
  CpuContention::kept_off_cpu(now - 2 * late, now);
  EXPECT_TRUE(CpuContention::spinning_pays());

  explained = false;
  CpuContention::kept_off_cpu(now - 2 * late, now);
  EXPECT_FALSE(CpuContention::spinning_pays()) << "a wait the job does not explain marked nothing";

  CpuContention::explain_with(nullptr);
  CpuContention::set_detection(true);
  CpuContention::kept_off_cpu(now - 2 * late, now);
  EXPECT_FALSE(CpuContention::spinning_pays()) << "without anyone to explain it, a long wait marked nothing";
  CpuContention::set_detection(true);
}

// Contention seen again soon after its while ended means lasting load: the
// next while is twice as long, so that probes (a lost slice each) get rarer.
// Seen long after, it starts over. (Times in the past: no dependence on how
// fast this test runs.)
TEST(CpuContention, LastingContentionIsProbedLessOften)
{
  using s4bxi::ipc::contention_ticks;
  using s4bxi::ipc::CpuContention;
  constexpr uint64_t k = CpuContention::kContendedTicks;
  CpuContention::set_detection(true);
  uint64_t now = contention_ticks();
  CpuContention::mark_contended(now - 3 * k); // contended until now - 2k
  CpuContention::mark_contended(now - 3 * k / 2); // half a while after: lasting
  EXPECT_FALSE(CpuContention::spinning_pays()) << "the second while was not doubled";

  CpuContention::set_detection(true);
  now = contention_ticks();
  CpuContention::mark_contended(now - 10 * k); // until now - 9k
  CpuContention::mark_contended(now - 3 * k / 2); // long after: a while of k, over
  EXPECT_TRUE(CpuContention::spinning_pays()) << "a contention seen long after the last one was doubled";
  CpuContention::set_detection(true);
}

// A ring made before the wait began (the waiter was busy elsewhere, as the
// server is while a rank already makes its next call) is no sign of
// contention, however old: the waiter notices it as soon as it looks.
TEST(CpuContention, ARingMadeBeforeTheWaitIsNotLate)
{
  using s4bxi::ipc::CpuContention;
  CpuContention::set_detection(true);
  Doorbell bell;
  SpinBudget budget;
  const uint32_t seen = bell.current();
  bell.ring();
  usleep(20000); // far beyond kLateTicks at any TSC rate
  EXPECT_TRUE(wait_for_ring(bell, seen, budget, nullptr));
  EXPECT_TRUE(CpuContention::spinning_pays());
  CpuContention::set_detection(true);
}

// While contended, both sides of a ping-pong sleep at once at every wait (the
// futex path alone): nothing lost, nothing out of order.
TEST(Doorbell, PingPongOfSleepingWaitersLosesNothing)
{
  using s4bxi::ipc::CpuContention;
  // A fresh mark before each wait: a mark that is only renewed once it has
  // ended (mark_contended's rule) may end between the renewal and the wait,
  // and a waiter then spins (seen under load: the whole ping-pong outlasts a
  // mark).
  const SpinBudget budget = ping_pong_loses_nothing(3000, [] {
    CpuContention::set_detection(true);
    CpuContention::mark_contended();
  });
  EXPECT_EQ(budget.iterations(), SpinBudget().iterations()) << "a sleeping waiter's budget is not the spin's to learn from";
  CpuContention::set_detection(true);
}
