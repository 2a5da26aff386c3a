// Reference for the simulation cost: what SimGrid itself costs on this
// machine now, with no model and no rank process. Prints the wall time of a
// scheduling round that wakes one actor (a sleep that ends), with one actor
// and with many (each round then wakes a different one, as when many ranks
// take turns), and of a simcall answered at once (a semaphore release). Each
// round is timed twice: with SimGrid's own sleep, and with the server's
// (simserver/actor_sleep.hpp: a kernel timer that releases the actor). And a
// round that runs no actor at all, only a timer's callback in maestro (what
// an engine driven by timers and communication ends would pay instead of an
// actor's sleep).
// tools/scale-bench.sh reads them next to the emulator's simulating time per
// round, as tools/bench.sh reads the raw futex ping-pong next to our IPC.
// Usage: simgrid_rounds [rounds (default 200000)] [actor counts... (default 1 1024)] [--cfg=name:value...]
#include "actor_sleep.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace s4u = simgrid::s4u;

namespace {

using Clock = std::chrono::steady_clock;

double microseconds_since(Clock::time_point start, long count)
{
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count() / static_cast<double>(count);
}

} // namespace

int main(int argc, char** argv)
{
  // --cfg=... options go to SimGrid (e.g. its context factory or stack size).
  std::vector<char*> sg_argv{argv[0]};
  std::vector<long> numbers;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]).rfind("--cfg=", 0) == 0)
      sg_argv.push_back(argv[i]);
    else
      numbers.push_back(std::atol(argv[i]));
  }
  int sg_argc = static_cast<int>(sg_argv.size());
  s4u::Engine engine(&sg_argc, sg_argv.data());
  const long rounds = numbers.empty() ? 200000 : numbers[0];
  std::vector<long> actor_counts(numbers.size() > 1 ? numbers.begin() + 1 : numbers.end(), numbers.end());
  if (actor_counts.empty())
    actor_counts = {1, 1024};
  if (rounds <= 0) {
    std::fprintf(stderr, "usage: simgrid_rounds [rounds > 0] [actor counts...]\n");
    return 2;
  }

  auto* zone = s4u::create_full_zone("bench");
  s4u::Host* host = zone->create_host("host", 1e9);
  zone->seal();

  // Each test runs in its own actor, one after the other.
  s4u::Actor::create("driver", host, [&] {
    for (long actors : actor_counts) {
      for (bool servers_sleep : {false, true}) {
        // Actor i wakes at the slots i, i + actors, i + 2 actors... (1 us
        // apart, well above SimGrid's time resolution): every round ends one
        // sleep and runs one actor.
        const long per_actor = rounds / actors > 0 ? rounds / actors : 1;
        const double base = s4u::Engine::get_clock() + 1e-6;
        constexpr double kSlot = 1e-6;
        const auto start = Clock::now();
        std::vector<s4u::ActorPtr> sleepers;
        for (long i = 0; i < actors; ++i)
          sleepers.push_back(
              s4u::Actor::create("sleeper" + std::to_string(i), host, [base, kSlot, i, actors, per_actor, servers_sleep] {
                for (long k = 0; k < per_actor; ++k) {
                  const double until = base + static_cast<double>(k * actors + i) * kSlot;
                  if (servers_sleep)
                    s4bxi::sleep_until(until);
                  else
                    s4u::this_actor::sleep_until(until);
                }
              }));
        for (auto& sleeper : sleepers)
          sleeper->join();
        std::printf("round waking 1 of %5ld actors%s: %8.3f us\n", actors, servers_sleep ? ", server's sleep" : "",
                    microseconds_since(start, per_actor * actors));
      }
    }
    {
      // A chain of timers, each setting the next 1 us later, while this
      // actor sleeps past the last: every round runs one callback, no actor.
      struct Chain {
        long left;
        void next()
        {
          if (--left > 0)
            simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock() + 1e-6, [this] { next(); });
        }
      } chain{rounds + 1};
      const auto start = Clock::now();
      simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock() + 1e-6, [&chain] { chain.next(); });
      s4u::this_actor::sleep_for(static_cast<double>(rounds + 2) * 1e-6);
      std::printf("round running a timer only: %8.3f us\n", microseconds_since(start, rounds + 1));
    }
    auto semaphore = s4u::Semaphore::create(0);
    const auto start = Clock::now();
    for (long i = 0; i < rounds; ++i)
      semaphore->release(); // answered at once: nobody waits
    std::printf("simcall answered at once:   %8.3f us\n", microseconds_since(start, rounds));
  });
  engine.run();
  return 0;
}
