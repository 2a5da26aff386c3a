#include "server_cpu.hpp"

#include "cpu_contention.hpp"

#include <chrono>
#include <utility>

namespace s4bxi::job {
namespace {

double steady_now()
{
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

cpu_set_t g_all_cpus;
bool g_all_cpus_known = false;

} // namespace

const cpu_set_t* ServerCpu::all_cpus()
{
  return g_all_cpus_known ? &g_all_cpus : nullptr;
}

bool ServerCpu::job_contended()
{
  return not ipc::CpuContention::spinning_pays();
}

ServerCpu::ServerCpu(bool enabled, PlaceRanks place_ranks, Contended contended)
    : place_ranks_(std::move(place_ranks)), contended_(std::move(contended))
{
  if (not enabled || sched_getaffinity(0, sizeof g_all_cpus, &g_all_cpus) != 0)
    return;
  g_all_cpus_known = true;
  usable_ = CPU_COUNT(&g_all_cpus) >= 2;
}

ServerCpu::~ServerCpu()
{
  share();
}

void ServerCpu::waited(double now, double waited_s)
{
  if (not usable_)
    return;
  if (window_start_ < 0)
    window_start_ = now - waited_s;
  window_waited_s_ += waited_s;
  const double window = now - window_start_;
  if (window < kWindowS)
    return;
  const double share = window_waited_s_ / window;
  window_start_ = now;
  window_waited_s_ = 0;
  if (contended_()) {
    if (own_)
      give_back(now);
  } else if (not own_ && share < kOwnBelow) {
    take(now);
  } else if (own_ && share > kShareAbove) {
    give_back(now);
  }
}

void ServerCpu::share()
{
  if (own_)
    give_back(steady_now());
}

double ServerCpu::held_s() const
{
  return held_s_ + (own_ ? steady_now() - own_since_ : 0.0);
}

void ServerCpu::take(double now)
{
  const int cpu = sched_getcpu();
  if (cpu < 0 || not CPU_ISSET(cpu, &g_all_cpus))
    return;
  cpu_set_t mine, theirs = g_all_cpus;
  CPU_ZERO(&mine);
  CPU_SET(cpu, &mine);
  CPU_CLR(cpu, &theirs);
  if (sched_setaffinity(0, sizeof mine, &mine) != 0)
    return;
  place_ranks_(theirs);
  own_ = true;
  own_since_ = now;
  taken_++;
}

void ServerCpu::give_back(double now)
{
  sched_setaffinity(0, sizeof g_all_cpus, &g_all_cpus);
  place_ranks_(g_all_cpus);
  own_ = false;
  held_s_ += now - own_since_;
}

} // namespace s4bxi::job
