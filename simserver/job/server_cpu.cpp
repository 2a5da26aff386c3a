#include "server_cpu.hpp"

#include "cpu_contention.hpp"
#include "wall_clock.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace s4bxi::job {
namespace {

// The CPUs the server could run on when it started (a process has one
// ServerCpu), the one in charge, and the side threads it places.
cpu_set_t g_all_cpus;
const ServerCpu* g_in_charge = nullptr;
std::vector<pthread_t> g_side_threads;

void place_side_threads(const cpu_set_t& cpus)
{
  for (pthread_t thread : g_side_threads)
    pthread_setaffinity_np(thread, sizeof cpus, &cpus);
}

} // namespace

void ServerCpu::add_side_thread(pthread_t thread)
{
  g_side_threads.push_back(thread);
  if (g_in_charge != nullptr && g_in_charge->own_)
    pthread_setaffinity_np(thread, sizeof g_in_charge->theirs_, &g_in_charge->theirs_);
}

bool ServerCpu::job_contended()
{
  return not ipc::CpuContention::spinning_pays();
}

ServerCpu::ServerCpu(bool enabled, PlaceRanks place_ranks, Contended contended, std::atomic<uint32_t>* held)
    : place_ranks_(std::move(place_ranks)), contended_(std::move(contended)), held_(held)
{
  if (not enabled || g_in_charge != nullptr || sched_getaffinity(0, sizeof g_all_cpus, &g_all_cpus) != 0)
    return;
  g_in_charge = this;
  usable_ = CPU_COUNT(&g_all_cpus) >= 2;
}

ServerCpu::~ServerCpu()
{
  share();
  if (g_in_charge == this)
    g_in_charge = nullptr;
}

void ServerCpu::waited(double now, double waited_s)
{
  if (not usable_)
    return;
  if (window_start_ < 0)
    window_start_ = now - waited_s;
  window_waited_s_ += waited_s;
  const double window = now - window_start_;
  if (window < window_s())
    return;
  const double waiting = window_waited_s_ / window;
  window_start_ = now;
  window_waited_s_ = 0;
  if (contended_()) {
    if (own_)
      give_back(now);
  } else if (not own_ && waiting < kOwnBelow) {
    take(now);
  } else if (own_ && waiting > kShareAbove) {
    give_back(now);
  }
}

void ServerCpu::share()
{
  if (own_)
    give_back(wall_clock_now());
}

double ServerCpu::held_s() const
{
  return held_s_ + (own_ ? wall_clock_now() - own_since_ : 0.0);
}

double ServerCpu::window_s() const
{
  return own_ ? kWindowS : std::max(kTakeWindowS, kPlacementShare * placement_s_);
}

void ServerCpu::place_others(const cpu_set_t& cpus)
{
  const double start = wall_clock_now();
  place_ranks_(cpus);
  place_side_threads(cpus);
  placement_s_ = wall_clock_now() - start;
}

void ServerCpu::take(double now)
{
  const int cpu = sched_getcpu();
  if (cpu < 0 || not CPU_ISSET(cpu, &g_all_cpus))
    return;
  cpu_set_t mine;
  CPU_ZERO(&mine);
  CPU_SET(cpu, &mine);
  theirs_ = g_all_cpus;
  CPU_CLR(cpu, &theirs_);
  if (sched_setaffinity(0, sizeof mine, &mine) != 0)
    return;
  place_others(theirs_);
  if (held_ != nullptr)
    held_->store(1, std::memory_order_relaxed);
  own_ = true;
  own_since_ = now;
  taken_++;
}

void ServerCpu::give_back(double now)
{
  sched_setaffinity(0, sizeof g_all_cpus, &g_all_cpus);
  place_others(g_all_cpus);
  if (held_ != nullptr)
    held_->store(0, std::memory_order_relaxed);
  own_ = false;
  held_s_ += now - own_since_;
}

} // namespace s4bxi::job
