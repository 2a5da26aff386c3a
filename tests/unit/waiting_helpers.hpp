// Helpers of the tests of waiting between threads and processes
// (test_doorbell.cpp, test_wake_relay.cpp).
#pragma once

#include "cpu_contention.hpp"

#include <chrono>
#include <fstream>
#include <string>

#include <sys/syscall.h>
#include <unistd.h>

// Waiters spin as on an idle machine while one lives: a test that checks who
// spins must not see its waiters sleep because the machine is loaded.
struct WithoutContentionDetection {
  WithoutContentionDetection() { s4bxi::ipc::CpuContention::set_detection(false); }
  ~WithoutContentionDetection() { s4bxi::ipc::CpuContention::set_detection(true); }
  WithoutContentionDetection(const WithoutContentionDetection&) = delete;
  WithoutContentionDetection& operator=(const WithoutContentionDetection&) = delete;
};

// Polls `done` for up to a second, by the clock: a million usleep(1) took a
// minute, since each sleeps some 60 us, so a failing check outlived its test's timeout.
template <class Done> bool within_a_second(Done done)
{
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (std::chrono::steady_clock::now() < deadline) {
    if (done())
      return true;
    usleep(1);
  }
  return done();
}

// Whether the thread `tid` of this process is blocked in the futex system
// call now (not only about to call it: a waiter announces its sleep first).
inline bool asleep_in_futex(pid_t tid)
{
  std::ifstream syscall_file("/proc/self/task/" + std::to_string(tid) + "/syscall");
  long number = -1;
  return static_cast<bool>(syscall_file >> number) && number == SYS_futex;
}
