// Real time as the server measures it (waits for the ranks, the job's wall
// time, the server's own CPU windows): seconds of the steady clock.
#pragma once

#include <chrono>

namespace s4bxi::job {

inline double wall_clock_now()
{
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

} // namespace s4bxi::job
