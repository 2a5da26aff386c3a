#include "copy_helper.hpp"

#include "cpu_contention.hpp"
#include "futex.hpp"
#include "server_cpu.hpp"

#include <atomic>
#include <csignal>
#include <cstdint>
#include <pthread.h>
#include <thread>

namespace s4bxi::job {
namespace {

// One job at a time: its number and the index of the next piece nobody took,
// in one word, so that taking a piece (a compare-and-swap) can only take one
// of the job the taker read the pieces of.
constexpr uint64_t job_word(uint32_t job, uint32_t next) { return (uint64_t{job} << 32) | next; }
constexpr uint32_t job_of(uint64_t word) { return static_cast<uint32_t>(word >> 32); }
constexpr uint32_t next_of(uint64_t word) { return static_cast<uint32_t>(word); }

struct Helper {
  std::atomic<uint64_t> state{job_word(0, 0)};
  std::atomic<uint32_t> posted{0}; // the job's number again, as the futex word the helper sleeps on
  std::atomic<bool> asleep{false};
  // The job's pieces: written before its number, read after it.
  std::atomic<const std::function<bool(size_t)>*> piece{nullptr};
  std::atomic<uint32_t> count{0};
  std::atomic<uint32_t> done{0};
  std::atomic<bool> failed{false};

  // Takes one piece of job `job`: false when none is left or the job changed.
  bool take(uint32_t job, uint32_t& index)
  {
    uint64_t word = state.load(std::memory_order_acquire);
    while (job_of(word) == job && next_of(word) < count.load(std::memory_order_relaxed)) {
      if (state.compare_exchange_weak(word, job_word(job, next_of(word) + 1), std::memory_order_acq_rel)) {
        index = next_of(word);
        return true;
      }
    }
    return false;
  }

  void run(uint32_t index)
  {
    if (not (*piece.load(std::memory_order_relaxed))(index))
      failed.store(true, std::memory_order_relaxed);
    done.fetch_add(1, std::memory_order_release);
  }

  [[noreturn]] void serve()
  {
    uint32_t seen = 0;
    for (;;) {
      asleep.store(true, std::memory_order_seq_cst);
      if (posted.load(std::memory_order_seq_cst) == seen)
        ipc::futex_wait(&posted, seen, nullptr);
      asleep.store(false, std::memory_order_relaxed);
      seen = posted.load(std::memory_order_acquire);
      uint32_t index = 0;
      while (take(seen, index))
        run(index);
    }
  }
};

Helper& helper()
{
  static Helper* const started = [] {
    auto* created = new Helper; // lives as long as the server
    // No signal is for it: the server's handlers run on the main thread.
    sigset_t all, before;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &before);
    std::thread helper_thread([created] { created->serve(); });
    // It copies while the simulation's thread copies too: not on the CPU that
    // thread may keep for itself (server_cpu.hpp).
    ServerCpu::add_side_thread(helper_thread.native_handle());
    helper_thread.detach();
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    return created;
  }();
  return *started;
}

} // namespace

bool run_pieces_with_helper(size_t count, const std::function<bool(size_t)>& piece)
{
  if (count == 0)
    return true;
  // While other processes want the CPUs, the helper would come late and the
  // caller wait for the piece it took (a scheduler slice): copy alone then.
  if (count == 1 || count > UINT32_MAX || not ipc::CpuContention::spinning_pays()) {
    bool all = true;
    for (size_t index = 0; index < count; index++)
      all = piece(index) && all;
    return all;
  }
  Helper& h = helper();
  const uint32_t job = job_of(h.state.load(std::memory_order_relaxed)) + 1;
  h.piece.store(&piece, std::memory_order_relaxed);
  h.count.store(static_cast<uint32_t>(count), std::memory_order_relaxed);
  h.done.store(0, std::memory_order_relaxed);
  h.failed.store(false, std::memory_order_relaxed);
  h.state.store(job_word(job, 0), std::memory_order_release);
  h.posted.store(job, std::memory_order_seq_cst);
  if (h.asleep.load(std::memory_order_seq_cst))
    ipc::futex_wake_all(&h.posted); // (the helper is its one sleeper)
  uint32_t index = 0;
  while (h.take(job, index))
    h.run(index);
  // Every piece is taken: wait for the one the helper may still be copying.
  // A wait of a scheduler slice says the CPUs are wanted (the helper was
  // taken off its CPU): the job is marked contended, as a waiter of the IPC
  // marks it (unless nothing but the job wanted the CPUs), and the next
  // copies are made alone for a while.
  const uint64_t waiting_since = ipc::contention_ticks();
  while (h.done.load(std::memory_order_acquire) < count)
    std::this_thread::yield();
  if (ipc::contention_ticks() - waiting_since >= ipc::CpuContention::kLateTicks)
    ipc::CpuContention::kept_off_cpu(waiting_since);
  return not h.failed.load(std::memory_order_relaxed);
}

} // namespace s4bxi::job
