#include "abort_watch.hpp"

#include "../job/parked_ranks.hpp"

namespace s4bxi::portals {

namespace {

bool threaded(const RankPortals& rank)
{
  return rank.channel != nullptr && rank.channel->threads_created.load(std::memory_order_relaxed) != 0;
}

} // namespace

bool AbortWatch::deliver()
{
  bool any = false;
  for (auto& rank : world_.ranks)
    if (aborted(rank)) {
      rank.notify();
      any = true;
    }
  return any;
}

void AbortWatch::began(RankPortals& rank, uint32_t epoch, bool blocks, bool deadline)
{
  rank.abortable_since = epoch;
  rank.abort_counted = blocks && threaded(rank);
  rank.abort_deadline = rank.abort_counted && deadline;
  if (rank.abort_counted)
    threaded_waiters_++;
  if (rank.abort_deadline)
    deadline_waiters_++;
}

void AbortWatch::ended(RankPortals& rank)
{
  rank.abortable_since.reset();
  if (rank.abort_counted)
    threaded_waiters_--;
  if (rank.abort_deadline)
    deadline_waiters_--;
  rank.abort_counted = false;
  rank.abort_deadline = false;
}

bool AbortWatch::thread_may_abort() const
{
  for (const auto& rank : world_.ranks)
    if (rank.alive && rank.abort_counted && job::runs_outside_its_call(rank))
      return true;
  return false;
}

} // namespace s4bxi::portals
