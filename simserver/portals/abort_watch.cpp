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
  world_.for_each_caller([&any](RankPortals& caller) {
    if (aborted(caller)) {
      caller.notify();
      any = true;
    }
  });
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

int AbortWatch::waiter_another_thread_may_abort() const
{
  // Any thread of a process with a counted wait: the one that may abort it
  // has no call of its own to show, or has a lane of its own.
  int waiter = -1;
  world_.for_each_caller([&waiter](const RankPortals& caller) {
    const RankPortals& process = caller.process();
    if (waiter < 0 && caller.alive && caller.abort_counted &&
        job::any_thread_running(process.os_pid, {.only = 0, .except = {caller.thread_in_call()}}))
      waiter = static_cast<int>(caller.rank);
  });
  return waiter;
}

} // namespace s4bxi::portals
