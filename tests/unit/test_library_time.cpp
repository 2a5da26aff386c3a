// The thread's compute clock around calls into the MPI library
// (preload/sim_clock.hpp: library_enter/leave, pause_compute): it stands
// still inside, goes on from there outside, and a short stretch of the
// program between two MPI calls is no compute. CPU time only: each test
// burns its own thread's CPU, so a loaded machine changes nothing.
#include "real_functions.hpp"
#include "segment.hpp"
#include "sim_clock.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <ctime>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace s4bxi::preload {
namespace {

constexpr uint64_t kMs = 1'000'000;

void burn_cpu(uint64_t ns)
{
  const uint64_t start = real::thread_cpu_ns();
  volatile uint64_t sink = 0;
  while (real::thread_cpu_ns() - start < ns)
    for (int i = 0; i < 1000; ++i)
      sink = sink + static_cast<uint64_t>(i) * 7;
}

// Runs `body` on a thread of its own (the clock's state is per thread),
// with measured compute (factor 1) and the given threshold.
template <typename Body>
void on_fresh_thread(bool exclude, double threshold_s, ipc::LibraryTotals& totals, Body body)
{
  sim_clock::set_compute_model(1.0, threshold_s);
  sim_clock::set_library_accounting(exclude, &totals);
  std::thread thread(body);
  thread.join();
  sim_clock::set_library_accounting(false, nullptr);
  sim_clock::set_compute_model(0, 0);
}

TEST(LibraryTime, TheClockStandsStillInsideAndGoesOnFromThereOutside)
{
  ipc::LibraryTotals totals{};
  on_fresh_thread(true, 0, totals, [] {
    sim_clock::library_enter();
    const uint64_t at_entry = sim_clock::thread_cpu_if_measured();
    burn_cpu(5 * kMs);
    EXPECT_EQ(sim_clock::thread_cpu_if_measured(), at_entry);
    sim_clock::library_enter(); // nested: one visit
    burn_cpu(kMs);
    sim_clock::library_leave();
    EXPECT_EQ(sim_clock::thread_cpu_if_measured(), at_entry);
    sim_clock::library_leave();
    const uint64_t after = sim_clock::thread_cpu_if_measured();
    EXPECT_LT(after - at_entry, kMs / 2) << "the library's 6 ms of CPU counted";
    burn_cpu(3 * kMs);
    EXPECT_GE(sim_clock::thread_cpu_if_measured() - after, 3 * kMs) << "the program's own CPU time was lost";
  });
  EXPECT_EQ(totals.calls.load(), 1u);
  EXPECT_GE(totals.cpu_ns.load(), 6 * kMs);
}

TEST(LibraryTime, MeasuredLibraryCpuIsComputeAndStillCounted)
{
  ipc::LibraryTotals totals{};
  on_fresh_thread(false, 0, totals, [] {
    sim_clock::library_enter();
    const uint64_t at_entry = sim_clock::thread_cpu_if_measured();
    burn_cpu(4 * kMs);
    EXPECT_GE(sim_clock::thread_cpu_if_measured() - at_entry, 4 * kMs);
    sim_clock::library_leave();
  });
  EXPECT_EQ(totals.calls.load(), 1u);
  EXPECT_GE(totals.cpu_ns.load(), 4 * kMs);
}

TEST(LibraryTime, AShortStretchBetweenTwoCallsIsNoComputeALongOneIs)
{
  ipc::LibraryTotals totals{};
  on_fresh_thread(true, 1e-3, totals, [] {
    sim_clock::library_enter();
    sim_clock::library_leave();
    const uint64_t left = sim_clock::thread_cpu_if_measured();
    // A few instructions, then the next call: under the 1 ms threshold, the
    // stretch is not compute (the clock stands where the call returned,
    // before the reading above).
    sim_clock::library_enter();
    EXPECT_LE(sim_clock::thread_cpu_if_measured(), left);
    sim_clock::library_leave();
    burn_cpu(3 * kMs); // real work: over the threshold, kept (less the
                       // short stretch's part after `left`, dropped above)
    sim_clock::library_enter();
    EXPECT_GE(sim_clock::thread_cpu_if_measured() - left, 3 * kMs - kMs / 10);
    sim_clock::library_leave();
  });
  EXPECT_EQ(totals.calls.load(), 3u);
}

TEST(LibraryTime, TheEmulatorsOwnWorkOutsideCallsIsNoCompute)
{
  ipc::LibraryTotals totals{};
  on_fresh_thread(true, 0, totals, [] {
    const uint64_t before = sim_clock::thread_cpu_if_measured();
    sim_clock::pause_compute();
    burn_cpu(3 * kMs);
    EXPECT_LT(sim_clock::thread_cpu_if_measured() - before, kMs / 2);
    sim_clock::resume_compute();
    EXPECT_LT(sim_clock::thread_cpu_if_measured() - before, kMs / 2);
    burn_cpu(2 * kMs);
    EXPECT_GE(sim_clock::thread_cpu_if_measured() - before, 2 * kMs);
  });
  EXPECT_EQ(totals.calls.load(), 0u); // not an MPI call
}

// What the clock shows is told to the server (ipc::Channel::latest_clock_ns:
// a rank woken from outside the simulation resumes no sooner): the largest
// value returned so far, to any thread, and nothing after the process stops
// publishing (a forked child's readings are not the rank's).
TEST(LibraryTime, TheLatestReadingIsPublished)
{
  ipc::LibraryTotals totals{};
  std::atomic<int64_t> latest{0};
  sim_clock::publish_readings_to(&latest);
  on_fresh_thread(false, 0, totals, [&latest] {
    sim_clock::on_reply(2.0, real::thread_cpu_ns());
    const int64_t first = sim_clock::now_ns();
    EXPECT_GE(first, sim_clock::to_ns(2.0));
    EXPECT_EQ(latest.load(), first);
    burn_cpu(2 * kMs); // compute: the clock goes on
    const int64_t second = sim_clock::now_ns();
    EXPECT_GE(second - first, 2 * static_cast<int64_t>(kMs));
    EXPECT_EQ(latest.load(), second);
  });
  sim_clock::publish_readings_to(nullptr);
  const int64_t published = latest.load();
  on_fresh_thread(false, 0, totals, [] {
    burn_cpu(2 * kMs);
    (void)sim_clock::now_ns();
  });
  EXPECT_EQ(latest.load(), published);
}

// What the preemption timer's handler does (preload/sync_timer.cpp): it
// pauses the compute clock and resumes it, unless the thread is entering or
// leaving the library.
void pause_and_resume(int)
{
  if (not sim_clock::may_pause_compute())
    return;
  sim_clock::pause_compute();
  sim_clock::resume_compute();
}

// A handler that interrupts library_enter must not leave the clock published
// as counting for the whole library call (LibraryTotals::counting_since_cpu_ns,
// which s4bxi/run-ahead's bound trusts). Before, one that landed between the
// entry's "not counting" and its freeze published "counting since now" on
// resuming. A wall-clock timer every 50 us interrupts many of 20,000 entries
// (on the main thread, whose count the clock publishes).
TEST(LibraryTime, AHandlerThatInterruptsTheEntryLeavesTheCountOff)
{
  ASSERT_EQ(getpid(), static_cast<pid_t>(syscall(SYS_gettid))) << "not on the process's main thread";
  ipc::LibraryTotals totals{};
  sim_clock::set_compute_model(1.0, 0);
  sim_clock::set_library_accounting(true, &totals);
  struct sigaction action {};
  action.sa_handler = pause_and_resume;
  sigemptyset(&action.sa_mask);
  ASSERT_EQ(sigaction(SIGRTMIN, &action, nullptr), 0);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGRTMIN;
  event._sigev_un._tid = static_cast<pid_t>(syscall(SYS_gettid));
  timer_t timer{};
  ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &event, &timer), 0);
  const itimerspec every{{0, 50000}, {0, 50000}};
  timer_settime(timer, 0, &every, nullptr);
  long counted_inside = 0, entries = 0;
  for (int i = 0; i < 20'000; ++i) {
    sim_clock::library_enter();
    entries++;
    if (totals.counting_since_cpu_ns.load() != 0)
      counted_inside++;
    sim_clock::library_leave();
  }
  const itimerspec off{};
  timer_settime(timer, 0, &off, nullptr);
  timer_delete(timer);
  signal(SIGRTMIN, SIG_DFL);
  sim_clock::set_library_accounting(false, nullptr);
  sim_clock::set_compute_model(0, 0);
  EXPECT_EQ(counted_inside, 0) << "of " << entries << " entries into the library";
}

} // namespace
} // namespace s4bxi::preload
