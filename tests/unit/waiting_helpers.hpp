// Helpers of the tests of waiting between threads and processes
// (test_doorbell.cpp, test_wake_relay.cpp).
#pragma once

#include "cpu_contention.hpp"

#include <chrono>

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
