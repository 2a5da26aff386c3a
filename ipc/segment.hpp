// Layout of the run's shared-memory segment: a header, then one channel per rank.
//
// The segment is an anonymous memfd created by the server and inherited by the
// rank processes as a file descriptor (S4BXI_SHM_FD). Having no name in
// /dev/shm means nothing can leak, even when the server is SIGKILLed. Nothing in
// the segment is a pointer: each side maps it at its own address.
#pragma once

#include "doorbell.hpp"
#include "protocol.hpp"
#include "wake_relay.hpp"
#include "writable_ranges.hpp"

#include <cstddef>
#include <cstdint>
#include <new>

namespace s4bxi::ipc {

inline constexpr uint64_t kSegmentMagic = 0x53344258'49495043ULL; // "S4BXIIPC"

// Environment variables set for each rank process by the server.
inline constexpr const char* kEnvShmFd = "S4BXI_SHM_FD";
inline constexpr const char* kEnvRank = "S4BXI_RANK";
inline constexpr const char* kEnvSize = "S4BXI_SIZE";
inline constexpr const char* kEnvCrashFd = "S4BXI_CRASH_FD";

// How the preload answers time queries locally, without a round trip.
struct ClockConfig {
  double cpu_factor;            // simulated seconds per second of thread CPU time (0: compute ignored)
  double cpu_threshold_s;       // compute bursts below this (after the factor) are not simulated time
  int64_t realtime_epoch_ns;    // CLOCK_REALTIME at simulated time 0
  int64_t monotonic_origin_ns;  // CLOCK_MONOTONIC at simulated time 0 (the simulated nodes' uptime)
  int64_t sync_quantum_ns;      // thread CPU time without a call after which the rank syncs (0: never)
  int64_t poll_cost_ns;         // simulated time of an empty poll (s4bxi/poll-cost)
  int64_t poll_block_after;     // empty polls in a streak after which a poll blocks (0: never)
  // 1: the CPU time a thread spends inside the MPI library is compute too
  // (s4bxi/library-compute:measured); 0: it is not (preload/sim_clock.hpp).
  int64_t library_cpu_is_compute;
  // 1: the server lets the simulation go on while a rank's main thread
  // computes (s4bxi/run-ahead), up to the earliest time of its next call:
  // the main thread does not sync on its preemption CPU timer then (the
  // simulation reaches its time anyway, and a sync would wait for the other
  // computing ranks' bounds), unless another thread of it has a lane of its
  // own or it runs under a debugger, where the server does not run ahead.
  int64_t main_thread_runs_ahead;
};

// Page 0 of the segment: written by the server before any rank starts, then
// never again; each rank maps it read-only, and the server never reads it
// back (it keeps its own copy of the layout: a rank cannot move the server's
// idea of where the channels are).
struct SegmentHeader {
  uint64_t magic;
  uint32_t version;
  uint32_t rank_count;
  uint64_t page_size;        // the unit of the layout, and of the ranks' protections
  uint64_t scheduling_offset; // where the SharedScheduling page starts
  uint64_t channels_offset;
  uint64_t channel_stride;   // a whole number of pages
  ClockConfig clock;
  // With more ranks than cores, every rank waiting for an answer but the
  // one being served sleeps (SharedScheduling).
  uint32_t only_served_rank_spins;
};

// A page that every rank writes: who spins while waiting for an answer.
struct SharedScheduling {
  // The rank whose proxy runs now: the only one whose answer can come before
  // the server waits on another process. With more ranks than cores
  // (`only_served_rank_spins`), every other rank waiting for an answer
  // sleeps instead of spinning on a CPU that the running rank and the server need.
  alignas(64) std::atomic<uint32_t> served_rank;
  // With more ranks than cores, the rank that last stopped being served keeps
  // spinning, yielding at every turn, until another one takes its place
  // (ipc::SpinCondition::warm): so a CPU where ranks run never goes idle, and
  // waking the next rank there costs a context switch instead of an idle
  // CPU's wake-up (tens of microseconds on a VM).
  alignas(64) std::atomic<uint32_t> warm_rank;
  // Until when (ipc::contention_ticks) the job's waiters sleep at once:
  // other processes want the machine's CPUs (ipc::CpuContention).
  alignas(64) std::atomic<uint64_t> contended_until;
  // The warm rank wakes, from its CPU, the sleepers the server hands it.
  WakeRelay wake_relay;
  // Non-zero while the server keeps a CPU of its own and the ranks' main
  // threads run on the others (simserver/job/server_cpu.hpp): a rank's long
  // yield is then the job's own ranks queued on the CPUs left to them, not
  // other load, and the ranks mark no contention (the server still does).
  alignas(64) std::atomic<uint32_t> server_cpu_held;
  // Until when (ipc::contention_ticks) the ranks' long waits count as the
  // job's own doing: the latest look at the machine (ipc::another_process_runs,
  // one /proc/PID/stat per process) found no process outside the job wanting
  // a CPU. Shared, so that the job looks once in a while rather than each
  // rank: 1,024 ranks starting up, each reading the stat files of 1,100
  // processes, made 200,000 to 550,000 opens of /proc files in one start-up
  // (preload/rank_client.cpp, explain_long_waits_by_the_job).
  alignas(64) std::atomic<uint64_t> own_load_explained_until;
  // When the rank that looks now began (0: none looks): ipc::own_load_explains.
  std::atomic<uint64_t> own_load_looked_at_since;
};
// Where tests/e2e/programs/scribble_segment.c (mode relay_lost) finds them.
static_assert(offsetof(SharedScheduling, wake_relay) + offsetof(WakeRelay, helper) == 192);
static_assert(offsetof(SharedScheduling, wake_relay) + offsetof(WakeRelay, appended) == 256);
static_assert(offsetof(SharedScheduling, wake_relay) + offsetof(WakeRelay, taken) == 320);
static_assert(offsetof(SharedScheduling, wake_relay) + offsetof(WakeRelay, requests) == 324);
static_assert(offsetof(SharedScheduling, warm_rank) == 64);

inline constexpr uint32_t kAttentionPmi = 1;
inline constexpr uint32_t kAttentionEnded = 2;
// Something outside the simulation may have released a rank (some rank, not
// necessarily this one): a PtlAbort, or a parked rank that called or ended.
inline constexpr uint32_t kAttentionNotice = 4;
// A thread of the rank opened a lane (Lane::state kLaneOpening): the proxy
// of the main lane opens it, after what the process answered itself.
inline constexpr uint32_t kAttentionLane = 8;
// Another thread of the rank called (on its lane, or on the channel): the
// proxy that waits here lets the other's proxy serve it (both wait on the
// same process, and only one proxy waits at a time).
inline constexpr uint32_t kAttentionSibling = 16;
inline constexpr uint32_t kAttentionAll =
    kAttentionPmi | kAttentionEnded | kAttentionNotice | kAttentionLane | kAttentionSibling;

// What a rank writes to the run's crash pipe (4 bytes, atomic in a pipe): its
// rank number when it crashes; its rank number with one of these bits when it
// called PtlAbort, or made a call while parked (Channel::parked).
inline constexpr uint32_t kNoticeAbortTag = 1U << 31;
inline constexpr uint32_t kNoticeCallTag = 1U << 30;
// A thread of the rank opened a lane while no proxy may wait on the rank's
// doorbell (its main thread is in a call, or parked).
inline constexpr uint32_t kNoticeLaneTag = 1U << 29;
inline constexpr uint32_t kNoticeRankMask = kNoticeLaneTag - 1;

// A thread's own way to the server. The thread that attached (the main
// thread) calls through the channel itself; a thread the program starts gets
// a lane from its creator (Op::LaneOpen, at the creator's simulated time),
// and any other thread takes a free one at its first call. Its calls,
// sleeps, clock syncs and exit go there, served by a proxy of its own at the
// thread's own simulated time: one thread's blocking call never holds
// another's (preload/rank_client.cpp, simserver/rank_proxy.hpp).
inline constexpr uint32_t kLaneFree = 0;    // no thread owns it
inline constexpr uint32_t kLaneOpening = 1; // a thread took it; no proxy serves it yet
inline constexpr uint32_t kLaneOpen = 2;    // its proxy serves it
inline constexpr uint32_t kLaneClosing = 3; // its thread ended (Op::LaneClose); the server frees it
struct alignas(64) Lane {
  Doorbell request_bell;
  Doorbell reply_bell;
  // Set by the process (kLaneFree -> kLaneOpening, by compare-and-swap, and
  // kLaneClosing) and by the server (kLaneOpen, and kLaneFree once its proxy ended).
  std::atomic<uint32_t> state;
  std::atomic<int32_t> owner_tid; // kLaneUnborn: taken for a thread not started yet
  // The thread's simulated time when it took the lane (nanoseconds): its
  // first call is served from there, or from when the server sees it.
  int64_t opened_at_ns;
  // request_bell's value before the thread's first call: the proxy counts from there.
  uint32_t opened_bell;
  // As Channel::attention and Channel::parked, for this lane.
  std::atomic<uint32_t> attention;
  std::atomic<uint32_t> parked;
  alignas(64) Request request;
  alignas(64) Reply reply;
};
inline constexpr uint32_t kMaxLanes = 15;
inline constexpr int32_t kLaneUnborn = -1;

// Written by the rank process as its threads leave the MPI library
// (preload/mpi_hooks, sim_clock::library_leave); read by the server for the
// report only (a rank's word, like its other statistics there).
struct LibraryTotals {
  std::atomic<uint64_t> calls;        // outermost calls into the library
  std::atomic<uint64_t> simulated_ns; // simulated time spent inside them
  std::atomic<uint64_t> cpu_ns;       // real CPU time they took (not simulated time)
  // The main thread's raw CPU clock from which its compute surely counts
  // (its last answer, or its last return from MPI); 0: it does not count now.
  std::atomic<uint64_t> counting_since_cpu_ns;
};

// Written by the process, read by the server for the report: how long the
// process ran between each answer on its channel and its next request (the
// time-stamp counter, ipc::contention_ticks; the server converts), and how
// many such runs. The server's wait for a rank's call splits into this run
// (the program's and the libraries' own code, and any time the process was
// off its CPU) and the two hand-overs. Not trusted: only reported.
struct ProcessRuns {
  std::atomic<uint64_t> ticks;
  std::atomic<uint64_t> count;
};

// Writes of the server into the rank's memory that the rank's main thread
// copies itself when its call returns (simserver/job/staged_writes.hpp,
// preload/staged_writes.hpp): while it waits in the call, nothing of the
// process looks at that memory, and a system call of the server
// (process_vm_writev, 1.5 to 3 us) becomes a copy of the process's.
inline constexpr uint32_t kMaxStagedWrites = 16;
inline constexpr uint32_t kStagedBytes = 16 * 1024;
struct StagedWrite {
  uint64_t address;
  uint32_t length;
  uint32_t offset; // in StagedWrites::bytes
};
struct StagedWrites {
  // Written by the process with each call of its main thread: memory no
  // write can fault in while the call waits.
  WritableRanges ranges;
  // Written by the server before its reply (Reply::staged_writes counts
  // them), copied by the process in this order.
  StagedWrite writes[kMaxStagedWrites];
  alignas(64) unsigned char bytes[kStagedBytes];
};

struct alignas(64) Channel {
  Doorbell request_bell; // rung by the rank, waited on by the server
  Doorbell reply_bell;   // rung by the server, waited on by the rank
  // Written by the forked child before exec: a process whose pid differs
  // (e.g. a child the rank forks) must not use this channel.
  std::atomic<int32_t> owner_pid;
  // The rank runs under a debugger (s4bxi-run --gdb): owner_pid is the
  // debugger's, and the process it starts (its child) becomes the rank.
  uint32_t debugged;
  // Set by the server's rank watcher (kAttention* bits): the rank wrote to
  // its PMI socket (it is blocked there, and its proxy must serve it), or its
  // process ended. Wakes the proxy like a request, without being one.
  std::atomic<uint32_t> attention;
  // Simulated time at which the server last released the rank other than by
  // a reply (a PMI answer), and a counter the rank's clock watches for it.
  std::atomic<uint32_t> release_generation;
  double release_now;
  // A fatal signal in the rank (preload/crash_handler.cpp): the handler
  // fills these, tells the server through the run's crash pipe (S4BXI_CRASH_FD)
  // and waits (bounded) until the server has read its stack and set
  // `crash_read`, before the signal takes its default action.
  std::atomic<uint32_t> crash_signal; // 0: no crash
  int32_t crash_tid;
  uint64_t crash_address; // faulting address (SIGSEGV, SIGBUS), else 0
  // The fault was a write (or read) into the run's shared segment outside
  // the rank's own channel, which the rank does not map writable.
  uint32_t crash_in_segment;
  std::atomic<uint32_t> crash_read;
  // Incremented by PtlAbort while a thread of the rank waits: a wait or poll
  // that began under an older value (Request::abort_epoch) ends with
  // Status::Aborted.
  std::atomic<uint32_t> abort_generation;
  // The thread in an exchange (0: none): the others may still call PtlAbort.
  std::atomic<int32_t> exchange_tid;
  // The process started threads of its own (pthread_create): one may end
  // another's wait with PtlAbort.
  std::atomic<uint32_t> threads_created;
  // Set by the server while the rank is blocked in the kernel outside any
  // emulated call and the simulation goes on without it: its next call must
  // also be told through the crash pipe (kNoticeCallTag), since no proxy
  // waits on its doorbell then.
  std::atomic<uint32_t> parked;
  // Written by the process: the latest simulated time (ns) any of its
  // threads read from its clock (preload/sim_clock.cpp). A rank woken from
  // outside the simulation (a pipe another rank wrote) resumes no sooner
  // than what the ranks read before it woke: the write may come right after
  // such a reading, at a time the simulation has not reached yet
  // (simserver/job/parked_ranks.hpp). A rank's word, only ever a lower
  // bound of another rank's resumption.
  alignas(64) std::atomic<int64_t> latest_clock_ns;
  alignas(64) LibraryTotals library;
  ProcessRuns runs;
  alignas(64) Request request;
  alignas(64) Reply reply;
  // Written by the server with each reply: the rank's event queues, from
  // which the process answers some polls itself (preload/local_polls.hpp).
  alignas(64) QueueMirror mirror;
  // Written by the process: the polls it answered itself since the last
  // request (Request::local_polls counts them).
  alignas(64) LocalPollStep local_steps[kMaxLocalPolls];
  // The same polls as the process publishes them, step by step, for the
  // server to replay before it lets simulated time go on without the
  // process's next request (ipc::PublishedPolls).
  alignas(64) PublishedPolls published_polls;
  // Written by the server with each reply: what the process may append
  // itself (ipc::AppendPermit, preload/queued_appends.hpp).
  alignas(64) AppendPermit append_permits[kMaxAppendPermits];
  // Calls the process answered itself (ipc::QueuedCall), waiting for the
  // server in the order they were made. `queued_state` counts them: the
  // process fills the next entry, then counts it by a compare-and-swap from
  // the count before; the server copies and runs those counted when it
  // looks (the process goes on queuing after them meanwhile), and only its
  // next reply, which the process waits for, sets the count back to zero.
  // Sequentially consistent, as `parked`: either the server sees a call when
  // it parks the rank, or the process sees `parked`.
  alignas(64) std::atomic<uint32_t> queued_state;
  QueuedCall queued_calls[kMaxQueuedCalls];
  // The other threads' own ways to the server.
  Lane lanes[kMaxLanes];
  alignas(64) StagedWrites staged;
};

// The segment's layout: a header page, a scheduling page, then one channel
// per rank, each on pages of its own, so that a rank can map its own channel
// writable and every other channel not at all (preload/rank_client.cpp): a
// stray write of the program then faults in the program, instead of
// changing what another rank or the server reads.
struct SegmentLayout {
  std::size_t page_size;
  uint32_t rank_count;

  [[nodiscard]] std::size_t round_up(std::size_t bytes) const { return (bytes + page_size - 1) / page_size * page_size; }
  [[nodiscard]] std::size_t scheduling_offset() const { return round_up(sizeof(SegmentHeader)); }
  [[nodiscard]] std::size_t channels_offset() const { return scheduling_offset() + round_up(sizeof(SharedScheduling)); }
  [[nodiscard]] std::size_t channel_stride() const { return round_up(sizeof(Channel)); }
  [[nodiscard]] std::size_t channel_offset(uint32_t rank) const { return channels_offset() + channel_stride() * rank; }
  [[nodiscard]] std::size_t size() const { return channel_offset(rank_count); }
};

inline SegmentHeader* header_of(void* base)
{
  return static_cast<SegmentHeader*>(base);
}

// Fills a fresh (zeroed) segment's header and constructs its channels.
inline void format_segment(void* base, const SegmentLayout& layout, const ClockConfig& clock)
{
  auto* header = header_of(base);
  header->magic = kSegmentMagic;
  header->version = kProtocolVersion;
  header->rank_count = layout.rank_count;
  header->page_size = layout.page_size;
  header->scheduling_offset = layout.scheduling_offset();
  header->channels_offset = layout.channels_offset();
  header->channel_stride = layout.channel_stride();
  header->clock = clock;
  new (static_cast<char*>(base) + layout.scheduling_offset()) SharedScheduling();
  for (uint32_t rank = 0; rank < layout.rank_count; ++rank)
    new (static_cast<char*>(base) + layout.channel_offset(rank)) Channel();
}

} // namespace s4bxi::ipc
