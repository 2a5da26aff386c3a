// How a waiter tells a process outside the job that wants a CPU
// (ipc/other_processes.hpp): every process of the machine read, system calls
// only. What these tests can count on, on a shared machine, is that a busy
// process is seen; not that nothing else runs.
#include "other_processes.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <pthread.h>
#include <span>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using s4bxi::ipc::another_process_runs;
namespace detail = s4bxi::ipc::other_processes_detail;

namespace {

// A child that spins on its main thread, or on a second thread while its
// main thread sleeps; killed at the end of the test (and never outlives it).
class BusyChild {
public:
  explicit BusyChild(bool on_a_second_thread)
  {
    pid_ = fork();
    if (pid_ == 0) {
      alarm(30);
      if (on_a_second_thread) {
        pthread_t spinner;
        pthread_create(
            &spinner, nullptr,
            [](void*) -> void* {
              while (true) {
              }
            },
            nullptr);
        while (true)
          pause();
      }
      while (true) {
      }
    }
  }
  ~BusyChild()
  {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  BusyChild(const BusyChild&) = delete;
  BusyChild& operator=(const BusyChild&) = delete;
  [[nodiscard]] pid_t pid() const { return pid_; }

private:
  pid_t pid_ = -1;
};

// Until the child's threads are all there (its thread count) and one runs.
bool wait_until_busy(pid_t pid, long threads)
{
  char path[64];
  detail::append(detail::append(detail::append(path, "/proc/"), pid), "/stat");
  for (int i = 0; i < 3000; ++i) {
    detail::Stat stat;
    if (detail::read_stat(path, stat) && stat.threads == threads) {
      if (threads == 1 ? stat.state == 'R' : true)
        return true;
    }
    usleep(1000);
  }
  return false;
}

} // namespace

TEST(OtherProcesses, ReadsTheStateTheParentAndTheThreadsOfAProcess)
{
  detail::Stat stat;
  ASSERT_TRUE(detail::read_stat("/proc/self/stat", stat));
  EXPECT_EQ(stat.state, 'R') << "the reader runs";
  EXPECT_EQ(stat.parent, getppid());
  const long before = stat.threads;
  std::atomic<bool> stop{false};
  std::thread sleeper([&stop] {
    while (not stop.load())
      usleep(1000);
  });
  ASSERT_TRUE(detail::read_stat("/proc/self/stat", stat));
  EXPECT_EQ(stat.threads, before + 1);
  stop.store(true);
  sleeper.join();
  EXPECT_FALSE(detail::read_stat("/proc/no-such-process/stat", stat));
}

TEST(OtherProcesses, ABusyProcessOutsideTheJobIsSeenOnItsMainThreadOrAnother)
{
  const pid_t caller[1] = {getpid()}; // (the caller runs: it is of the job)
  for (const bool second_thread : {false, true}) {
    BusyChild busy(second_thread);
    ASSERT_TRUE(wait_until_busy(busy.pid(), second_thread ? 2 : 1));
    // The job: a server that is not the child's parent, and the caller.
    EXPECT_TRUE(another_process_runs(/*server=*/1, caller)) << "spinning on a second thread: " << second_thread;
  }
}

// Who is the job's, on a tree of stat files laid out as /proc is (the real
// one holds whatever else runs on the machine): the server, the ranks named,
// with children_too the server's children; never the kernel's threads; a
// process whose main thread sleeps but another thread runs is seen through its
// task/ directory.
class FakeProc : public ::testing::Test {
protected:
  void SetUp() override
  {
    char pattern[] = "/tmp/s4bxi_fake_proc_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  // A process (or, with `thread`, one of its threads) in state `state`.
  void add(long pid, char state, long parent, long threads, long thread = 0)
  {
    std::filesystem::path dir = root_ / std::to_string(pid);
    if (thread != 0)
      dir = dir / "task" / std::to_string(thread);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "stat") << pid << " (a name (with) spaces) " << state << " " << parent
                                << " 1 1 0 -1 4194304 100 0 0 0 5 6 0 0 20 0 " << threads << " 0 123 4096 99\n";
  }
  [[nodiscard]] bool other_runs(pid_t server, std::span<const pid_t> ranks, bool children_too = false) const
  {
    return another_process_runs(server, ranks, children_too, root_.c_str());
  }
  std::filesystem::path root_;
};

TEST_F(FakeProc, TheServerTheRanksAndWithChildrenTooTheServersChildrenAreTheJob)
{
  add(100, 'R', 1, 3);  // the server
  add(101, 'R', 100, 1); // a rank, its child
  add(102, 'R', 100, 1); // another
  add(5, 'S', 1, 1);     // a daemon asleep
  add(7, 'R', 2, 1);     // a kernel thread
  add(2, 'R', 0, 1);     // kthreadd
  const pid_t ranks[2] = {101, 102};
  EXPECT_FALSE(other_runs(100, ranks));
  EXPECT_FALSE(other_runs(100, {}, /*children_too=*/true));
  EXPECT_TRUE(other_runs(100, {})) << "the children, not named, and not taken as the job's";
  add(200, 'R', 1, 1); // a CPU hog
  EXPECT_TRUE(other_runs(100, ranks));
  EXPECT_TRUE(other_runs(100, {}, true));
}

TEST_F(FakeProc, AProcessWhoseMainThreadSleepsRunsOnAnotherThread)
{
  add(100, 'S', 1, 1); // the server
  add(300, 'S', 1, 2); // main thread asleep, two threads
  add(300, 'S', 1, 2, 300);
  add(300, 'S', 1, 2, 301);
  const pid_t none[1] = {};
  const std::span<const pid_t> no_ranks(none, 0);
  EXPECT_FALSE(other_runs(100, no_ranks));
  add(300, 'R', 1, 2, 301);
  EXPECT_TRUE(other_runs(100, no_ranks));
  std::filesystem::remove_all(root_ / "300" / "task"); // (it ended between the reads)
  EXPECT_FALSE(other_runs(100, no_ranks));
}

// The job looks at the machine once in a while for all its ranks
// (ipc::own_load_explains, SharedScheduling::own_load_explained_until): 1,024
// ranks that each looked made a start-up read /proc 200,000 to 550,000 times.
TEST(OwnLoadExplains, OneLookServesEveryProcessThatSharesItForItsHold)
{
  std::atomic<uint64_t> until{0}, looking{0};
  int looks = 0;
  auto no_other_load = [&] {
    ++looks;
    return false;
  };
  EXPECT_TRUE(s4bxi::ipc::own_load_explains(until, looking, 1000, 100, 500, no_other_load));
  EXPECT_EQ(looks, 1);
  // Another rank, within the hold: explained without a look.
  EXPECT_TRUE(s4bxi::ipc::own_load_explains(until, looking, 1099, 100, 500, no_other_load));
  EXPECT_EQ(looks, 1);
  // Past it: one look more.
  EXPECT_TRUE(s4bxi::ipc::own_load_explains(until, looking, 1100, 100, 500, no_other_load));
  EXPECT_EQ(looks, 2);
  EXPECT_EQ(looking.load(), 0U);
}

TEST(OwnLoadExplains, OtherLoadFoundExplainsNothingAndHoldsNothing)
{
  std::atomic<uint64_t> until{0}, looking{0};
  int looks = 0;
  auto other_load = [&] {
    ++looks;
    return true;
  };
  EXPECT_FALSE(s4bxi::ipc::own_load_explains(until, looking, 1000, 100, 500, other_load));
  EXPECT_FALSE(s4bxi::ipc::own_load_explains(until, looking, 1001, 100, 500, other_load));
  EXPECT_EQ(looks, 2);
  EXPECT_EQ(until.load(), 0U);
}

TEST(OwnLoadExplains, WhileOneLooksTheOthersWaitForNoLookAndAStaleLookIsTakenOver)
{
  std::atomic<uint64_t> until{0}, looking{1000}; // a rank began to look at 1000
  int looks = 0;
  auto no_other_load = [&] {
    ++looks;
    return false;
  };
  EXPECT_TRUE(s4bxi::ipc::own_load_explains(until, looking, 1200, 100, 500, no_other_load));
  EXPECT_TRUE(s4bxi::ipc::own_load_explains(until, looking, 990, 100, 500, no_other_load)); // (a clock behind)
  EXPECT_EQ(looks, 0);
  EXPECT_EQ(looking.load(), 1000U);
  // That rank died in its look: 500 ticks on, another takes over.
  EXPECT_TRUE(s4bxi::ipc::own_load_explains(until, looking, 1500, 100, 500, no_other_load));
  EXPECT_EQ(looks, 1);
  EXPECT_EQ(until.load(), 1600U);
  EXPECT_EQ(looking.load(), 0U);
}
