#include "abort_watch.hpp"

#include "../job/stall_notice.hpp"

#include <ctime>

namespace s4bxi::portals {

namespace {

bool threaded(const RankPortals& rank)
{
  return rank.channel != nullptr && rank.channel->threads_created.load(std::memory_order_relaxed) != 0;
}

} // namespace

bool AbortWatch::deliver()
{
  pending_.store(false, std::memory_order_relaxed);
  bool any = false;
  for (auto& rank : world_.ranks)
    if (aborted(rank)) {
      rank.notify();
      any = true;
    }
  return any;
}

void AbortWatch::began(RankPortals& rank, uint32_t epoch)
{
  rank.abortable_since = epoch;
  rank.abort_counted = threaded(rank);
  if (rank.abort_counted)
    threaded_waiters_++;
}

void AbortWatch::ended(RankPortals& rank)
{
  rank.abortable_since.reset();
  if (rank.abort_counted)
    threaded_waiters_--;
  rank.abort_counted = false;
}

bool AbortWatch::hold_while_threads_run()
{
  const timespec slice{0, 1'000'000};
  while (true) {
    if (pending_.load(std::memory_order_acquire) && deliver())
      return true;
    bool running = false;
    for (const auto& rank : world_.ranks)
      if (rank.alive && rank.abort_counted &&
          job::any_thread_running(rank.os_pid, rank.channel->exchange_tid.load(std::memory_order_relaxed)))
        running = true;
    if (not running)
      return deliver(); // a notice may have come just before the last thread stopped
    if (on_hold_tick)
      on_hold_tick();
    nanosleep(&slice, nullptr);
  }
}

} // namespace s4bxi::portals
