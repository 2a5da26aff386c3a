// How the server tells other load on the machine from the job's own
// (simserver/job/other_load.hpp).
#include "job/other_load.hpp"
#include "job/stall_notice.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using s4bxi::job::only_the_job_runs;
using s4bxi::job::runnable_in_loadavg;

TEST(OtherLoad, ReadsTheRunnableTasksOfLoadavg)
{
  EXPECT_EQ(runnable_in_loadavg("0.52 0.58 0.59 3/201 4321\n"), 3U);
  EXPECT_EQ(runnable_in_loadavg("12.00 9.50 4.25 117/2048 99"), 117U);
  EXPECT_FALSE(runnable_in_loadavg("0.52 0.58 0.59"));
  EXPECT_FALSE(runnable_in_loadavg("0.52 0.58 0.59 x/201 4321"));
  EXPECT_FALSE(runnable_in_loadavg("0.52 0.58 0.59 3 4321")) << "no slash after the count";
  EXPECT_FALSE(runnable_in_loadavg(""));
}

// Every thread that spins is counted, the caller's own included (it runs).
TEST(OtherLoad, CountsTheRunningThreadsOfAProcess)
{
  std::atomic<bool> stop{false};
  std::thread spinner([&stop] {
    while (not stop.load(std::memory_order_relaxed)) {
    }
  });
  EXPECT_GE(s4bxi::job::threads_running(getpid()), 2U);
  stop.store(true);
  spinner.join();
}

// A process that spins and is none of the job's is other load, whatever
// else runs on the machine: it is runnable in the machine's count and in
// none of the job's. (The converse, "only the job runs", holds only on an
// idle machine, which a test cannot count on.)
TEST(OtherLoad, ABusyProcessOutsideTheJobIsOtherLoad)
{
  const pid_t busy = fork();
  ASSERT_GE(busy, 0);
  if (busy == 0) {
    alarm(30); // never outlives the test
    while (true) {
    }
  }
  // Until it spins (its state is R from the fork on, but be sure).
  for (int i = 0; i < 1000 && not s4bxi::job::main_thread_running(busy); ++i)
    usleep(1000);
  const pid_t no_ranks[1] = {};
  EXPECT_FALSE(only_the_job_runs(getpid(), std::span<const pid_t>(no_ranks, 0)));
  kill(busy, SIGKILL);
  waitpid(busy, nullptr, 0);
}
