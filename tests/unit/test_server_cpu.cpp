// The server's own CPU (simserver/job/server_cpu.hpp): taken while the server
// waits little for the ranks, given back while it waits much or the CPUs are
// wanted, and the ranks placed on the CPUs it leaves them. The waits are
// given, not measured: the outcome does not depend on the machine's load.
#include "cpu_contention.hpp"
#include "job/server_cpu.hpp"

#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <chrono>
#include <vector>

namespace {

cpu_set_t own_cpus()
{
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  EXPECT_EQ(sched_getaffinity(0, sizeof cpus, &cpus), 0);
  return cpus;
}

bool runs_anywhere(const cpu_set_t& all)
{
  const cpu_set_t now = own_cpus();
  return CPU_EQUAL(&now, &all);
}

TEST(ServerCpu, KeptWhileTheJobWaitsOnTheServerGivenBackWhileItWaitsOnTheRanksOrTheCpusAreWanted)
{
  const cpu_set_t all = own_cpus();
  if (CPU_COUNT(&all) < 2)
    GTEST_SKIP() << "one CPU: none to keep";
  std::vector<cpu_set_t> placed;
  bool contended = false;
  std::atomic<uint32_t> held{0}; // what the ranks read (SharedScheduling::server_cpu_held)
  {
    s4bxi::job::ServerCpu cpu(true, [&placed](const cpu_set_t& ranks) { placed.push_back(ranks); },
                              [&contended] { return contended; }, &held);
    double now = 100.0;
    cpu.waited(now, 0.0);
    // A window (20 ms) in which the server waited 30% of the time: it keeps
    // the CPU it runs on, and the ranks get all the others.
    cpu.waited(now += 0.03, 0.009);
    ASSERT_TRUE(cpu.holds_own_cpu());
    EXPECT_EQ(cpu.times_taken(), 1U);
    EXPECT_EQ(held.load(), 1U);
    const cpu_set_t mine = own_cpus();
    ASSERT_EQ(CPU_COUNT(&mine), 1);
    ASSERT_EQ(placed.size(), 1U);
    cpu_set_t together;
    CPU_OR(&together, &mine, &placed.back());
    EXPECT_TRUE(CPU_EQUAL(&together, &all)) << "the ranks get every CPU but the server's";
    EXPECT_EQ(CPU_COUNT(&placed.back()), CPU_COUNT(&all) - 1);
    // 70%: between the two bounds, nothing changes; a window not over yet
    // decides nothing.
    cpu.waited(now += 0.03, 0.021);
    cpu.waited(now += 0.005, 0.005);
    EXPECT_TRUE(cpu.holds_own_cpu());
    EXPECT_EQ(placed.size(), 1U);
    // 90% (the ranks compute, or start): every process anywhere again.
    cpu.waited(now += 0.025, 0.022);
    EXPECT_FALSE(cpu.holds_own_cpu());
    EXPECT_TRUE(runs_anywhere(all));
    EXPECT_EQ(held.load(), 0U);
    ASSERT_EQ(placed.size(), 2U);
    EXPECT_TRUE(CPU_EQUAL(&placed.back(), &all));
    // Other processes want the CPUs: not taken however little it waits, and
    // given back if it was held.
    contended = true;
    cpu.waited(now += 0.03, 0.0);
    EXPECT_FALSE(cpu.holds_own_cpu());
    contended = false;
    cpu.waited(now += 0.03, 0.0);
    EXPECT_TRUE(cpu.holds_own_cpu());
    contended = true;
    cpu.waited(now += 0.03, 0.0);
    EXPECT_FALSE(cpu.holds_own_cpu());
    EXPECT_TRUE(runs_anywhere(all));
    EXPECT_EQ(cpu.times_taken(), 2U);
    contended = false;
    cpu.waited(now += 0.03, 0.0);
    EXPECT_TRUE(cpu.holds_own_cpu());
  }
  // At its end, every CPU again.
  EXPECT_TRUE(runs_anywhere(all));
  EXPECT_TRUE(CPU_EQUAL(&placed.back(), &all));
}

// While the server keeps its CPU, a rank's long yield is the job's own ranks
// queued on the CPUs left to them: its mark of contention does not count.
TEST(ServerCpu, ARanksMarkOfContentionCountsOnlyWhileTheServerKeepsNoCpu)
{
  using s4bxi::ipc::CpuContention;
  std::atomic<uint64_t> mark{0};
  std::atomic<uint32_t> held{1};
  CpuContention::share(&mark);
  CpuContention::set_detection(true);
  CpuContention::ignore_marks_while(&held);
  CpuContention::mark_contended();
  EXPECT_TRUE(CpuContention::spinning_pays());
  held = 0;
  CpuContention::mark_contended();
  EXPECT_FALSE(CpuContention::spinning_pays());
  // (As the process was: its own word, marks always counted, none set.)
  CpuContention::ignore_marks_while(nullptr);
  CpuContention::share(nullptr);
  CpuContention::set_detection(true);
}

// Taking the CPU is decided over a short window (a job that starts talking
// has it within milliseconds, not after the 20 ms that giving it back waits
// for), but one at least ten times as long as the last placement of the
// ranks took, so that placing many ranks stays a small part of the time.
TEST(ServerCpu, TakenAfterAShortWindowGivenBackAfterALongOneAndNoSoonerThanPlacingCostsAllows)
{
  using s4bxi::job::ServerCpu;
  const cpu_set_t all = own_cpus();
  if (CPU_COUNT(&all) < 2)
    GTEST_SKIP() << "one CPU: none to keep";
  static_assert(ServerCpu::kTakeWindowS * 5 <= ServerCpu::kWindowS);
  double placing_s = 0; // how long each placement takes, in real time
  int placements = 0;
  {
    ServerCpu cpu(
        true,
        [&](const cpu_set_t&) {
          placements++;
          const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(placing_s);
          while (std::chrono::steady_clock::now() < until) {
          }
        },
        [] { return false; });
    double now = 100.0;
    cpu.waited(now, 0.0);
    cpu.waited(now += ServerCpu::kTakeWindowS * 1.5, 0.0);
    EXPECT_TRUE(cpu.holds_own_cpu()) << "a short window with no wait takes the CPU";
    // Held, a short window of waiting only decides nothing...
    cpu.waited(now += ServerCpu::kTakeWindowS * 1.5, ServerCpu::kTakeWindowS * 1.5);
    EXPECT_TRUE(cpu.holds_own_cpu());
    // ... a long one gives it back; this placement takes 2 ms of real time.
    placing_s = 0.002;
    cpu.waited(now += ServerCpu::kWindowS, ServerCpu::kWindowS);
    ASSERT_FALSE(cpu.holds_own_cpu());
    EXPECT_EQ(placements, 2);
    // Now the next window lasts ten times that placement (20 ms or more,
    // however slow the machine): 6 ms without a wait takes nothing yet.
    placing_s = 0;
    cpu.waited(now += 0.006, 0.0);
    EXPECT_FALSE(cpu.holds_own_cpu());
    cpu.waited(now += 1.0, 0.0);
    EXPECT_TRUE(cpu.holds_own_cpu()) << "a window far longer than ten placements takes it";
    EXPECT_EQ(cpu.times_taken(), 2U);
  }
  EXPECT_TRUE(runs_anywhere(all));
}

TEST(ServerCpu, OffItPlacesNothing)
{
  const cpu_set_t all = own_cpus();
  bool placed = false;
  s4bxi::job::ServerCpu cpu(false, [&placed](const cpu_set_t&) { placed = true; }, [] { return false; });
  cpu.waited(100.0, 0.0);
  cpu.waited(100.1, 0.0);
  EXPECT_FALSE(cpu.holds_own_cpu());
  EXPECT_FALSE(placed);
  EXPECT_TRUE(runs_anywhere(all));
}

} // namespace
