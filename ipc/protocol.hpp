// The request/reply messages exchanged over a rank's channel.
//
// Everything here is ABI-neutral: the preload library translates the program's
// portals4.h structures (whatever binary flavour it was built against) into these
// fixed-layout structs, and the server never sees a program-side struct. Memory
// addresses travel as 64-bit integers: they are addresses in the rank's own
// address space, which the server reads and writes with process_vm_readv/writev.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace s4bxi::ipc {

inline constexpr uint32_t kProtocolVersion = 26;

// Opaque object handles issued by the server. The preload maps the ABI's
// "none" and "invalid" constants onto these two values.
using Handle = uint32_t;
inline constexpr Handle kHandleNone = 0xFFFFFFFEU;
inline constexpr Handle kHandleInvalid = 0xFFFFFFFFU;

enum class Op : uint32_t {
  Hello = 1, // first message of a process: binds it to its rank
  Exit,      // the process is about to exit (from a destructor)
  Noop,      // a forwarded no-op, for IPC benchmarks
  Sleep,
  Init,
  Fini,
  NIInit,
  NIFini,
  NIStatus,
  GetId,
  GetPhysId,
  GetUid,
  SetMap,
  GetMap,
  PTAlloc,
  PTFree,
  PTEnable,
  PTDisable,
  MDBind,
  MDRelease,
  Append, // PtlMEAppend and PtlLEAppend
  Unlink, // PtlMEUnlink and PtlLEUnlink
  EQAlloc,
  EQFree,
  EQGet,
  EQWait,
  EQPoll,
  CTAlloc,
  CTFree,
  CTGet,
  CTWait,
  CTPoll,
  CTSet,
  CTInc,
  Put,
  Get,
  NIHandle, // the NI of any object handle
  Atomic,
  FetchAtomic,
  Swap,
  AtomicSync,
  TriggeredPut,
  TriggeredGet,
  TriggeredAtomic,
  TriggeredFetchAtomic,
  TriggeredSwap,
  TriggeredCTInc,
  TriggeredCTSet,
  CTCancelTriggered,
  Search, // PtlMESearch and PtlLESearch
  StartBundle,
  EndBundle,
  Sync, // the rank ran a quantum of CPU time without calling anything (preload/sync_timer.cpp)
  LaneOpen,  // a thread starts another (pthread_create): args.handle.handle is the lane it took for it
  LaneClose, // the thread that owns this lane ends (ipc::Lane): its proxy ends and the lane is free again
  Count_
};

// A call of the Portals API (not the emulator's own: start, exit, sleeps,
// clock syncs, threads).
constexpr bool is_portals_call(Op op)
{
  return op != Op::Hello && op != Op::Exit && op != Op::Noop && op != Op::Sleep && op != Op::Sync &&
         op != Op::LaneOpen && op != Op::LaneClose;
}

// A process identifier as the program gave it; `logical` tells which member counts.
struct ProcessId {
  uint32_t rank_or_nid;
  uint32_t pid;
};

struct NILimits {
  int32_t max_entries;
  int32_t max_unexpected_headers;
  int32_t max_mds;
  int32_t max_cts;
  int32_t max_eqs;
  int32_t max_pt_index;
  int32_t max_iovecs;
  int32_t max_list_size;
  int32_t max_triggered_ops;
  uint32_t features;
  uint64_t max_msg_size;
  uint64_t max_atomic_size;
  uint64_t max_fetch_atomic_size;
  uint64_t max_waw_ordered_size;
  uint64_t max_war_ordered_size;
  uint64_t max_volatile_size;
};

struct MemoryDescriptor {
  uint64_t start;
  uint64_t length;
  uint32_t options; // PTL_MD_* bits, numeric values of the program's ABI (see OptionBits)
  Handle eq;
  Handle ct;
};

// ME or LE (an LE is an ME that matches everything).
struct ListEntry {
  uint64_t start;
  uint64_t length;
  uint64_t match_bits;
  uint64_t ignore_bits;
  uint64_t min_free;
  ProcessId match_id;
  uint32_t uid;
  uint32_t options;
  Handle ct;
};

// Event kinds and failure kinds in the protocol's own numbering (the preload
// converts to the ABI's numbering).
enum class EventKind : uint8_t {
  Get,
  GetOverflow,
  Put,
  PutOverflow,
  Atomic,
  AtomicOverflow,
  FetchAtomic,
  FetchAtomicOverflow,
  Reply,
  Send,
  Ack,
  PtDisabled,
  Link,
  AutoUnlink,
  AutoFree,
  Search,
};

enum class FailKind : uint8_t { Ok, Undeliverable, PtDisabled, Dropped, PermViolation, OpViolation, Segv, NoMatch };

struct Event {
  uint64_t start;
  uint64_t user_ptr;
  uint64_t hdr_data;
  uint64_t match_bits;
  uint64_t rlength;
  uint64_t mlength;
  uint64_t remote_offset;
  ProcessId initiator;
  uint32_t uid;
  uint32_t pt_index;
  EventKind type;
  FailKind ni_fail_type;
  uint8_t atomic_operation; // AtomicOp, for atomic events
  uint8_t atomic_type;      // AtomicType, for atomic events
  uint8_t overflow_list; // 1 when the data went through an overflow-list entry
};

// Whether two events say the same, field by field (the padding left out): an
// event the process expected against the one the NIC wrote.
inline bool same_fields(const Event& a, const Event& b)
{
  return a.start == b.start && a.user_ptr == b.user_ptr && a.hdr_data == b.hdr_data && a.match_bits == b.match_bits &&
         a.rlength == b.rlength && a.mlength == b.mlength && a.remote_offset == b.remote_offset &&
         a.initiator.rank_or_nid == b.initiator.rank_or_nid && a.initiator.pid == b.initiator.pid && a.uid == b.uid &&
         a.pt_index == b.pt_index && a.type == b.type && a.ni_fail_type == b.ni_fail_type &&
         a.atomic_operation == b.atomic_operation && a.atomic_type == b.atomic_type &&
         a.overflow_list == b.overflow_list;
}

struct CTEvent {
  uint64_t success;
  uint64_t failure;
};

// Options are passed with the ABI's numeric values translated to these bits.
namespace option {
// PtlNIInit
inline constexpr uint32_t kNIMatching = 1U << 0;
inline constexpr uint32_t kNILogical = 1U << 1;
// PtlPTAlloc
inline constexpr uint32_t kPTOnlyUseOnce = 1U << 0;
inline constexpr uint32_t kPTOnlyTruncate = 1U << 1;
inline constexpr uint32_t kPTFlowControl = 1U << 2;
inline constexpr uint32_t kPTAllocDisabled = 1U << 3; // allocated disabled (PtlPTEnable opens it)
// MD
inline constexpr uint32_t kMDEventSuccessDisable = 1U << 0;
inline constexpr uint32_t kMDEventCtSend = 1U << 1;
inline constexpr uint32_t kMDEventCtReply = 1U << 2;
inline constexpr uint32_t kMDEventCtAck = 1U << 3;
inline constexpr uint32_t kMDEventCtBytes = 1U << 4;
inline constexpr uint32_t kMDUnordered = 1U << 5;
inline constexpr uint32_t kMDEventSendDisable = 1U << 6;
inline constexpr uint32_t kMDVolatile = 1U << 7;
// Delivery need not be guaranteed; only a Put without acknowledgment is defined.
inline constexpr uint32_t kMDUnreliable = 1U << 8;
// Shared by MDs and entries: `start` is the address of an array of `length`
// I/O vector elements, each a 64-bit base address then a 64-bit length (the
// ptl_iovec_t layout of every LP64 ABI we serve).
inline constexpr uint32_t kIovec = 1U << 31;
inline constexpr std::size_t kIovecEntryBytes = 16;
// ME / LE
inline constexpr uint32_t kEntryOpPut = 1U << 0;
inline constexpr uint32_t kEntryOpGet = 1U << 1;
inline constexpr uint32_t kEntryUseOnce = 1U << 2;
inline constexpr uint32_t kEntryAckDisable = 1U << 3;
inline constexpr uint32_t kEntryEventCommDisable = 1U << 4;
inline constexpr uint32_t kEntryEventFlowctrlDisable = 1U << 5;
inline constexpr uint32_t kEntryEventSuccessDisable = 1U << 6;
inline constexpr uint32_t kEntryEventOverDisable = 1U << 7;
inline constexpr uint32_t kEntryEventUnlinkDisable = 1U << 8;
inline constexpr uint32_t kEntryEventLinkDisable = 1U << 9;
inline constexpr uint32_t kEntryEventCtComm = 1U << 10;
inline constexpr uint32_t kEntryEventCtOverflow = 1U << 11;
inline constexpr uint32_t kEntryEventCtBytes = 1U << 12;
inline constexpr uint32_t kEntryAuthUseJid = 1U << 13;
inline constexpr uint32_t kEntryManageLocal = 1U << 14;
inline constexpr uint32_t kEntryNoTruncate = 1U << 15;
inline constexpr uint32_t kEntryMayAlign = 1U << 16;
inline constexpr uint32_t kEntryUnexpectedHdrDisable = 1U << 17;
inline constexpr uint32_t kEntryIsAccessible = 1U << 18;
// With kEntryManageLocal, appending moves the local offset past the requested
// length of every matching unexpected header.
inline constexpr uint32_t kEntryLocalIncUhRlength = 1U << 19;
} // namespace option

enum class ListKind : uint32_t { Priority, Overflow };
enum class AckRequest : uint32_t { None, Ack, CtAck, OcAck };
enum class SearchOp : uint32_t { Only, Delete };

// Atomic operations and datatypes in the protocol's own numbering.
enum class AtomicOp : uint8_t {
  Min,
  Max,
  Sum,
  Prod,
  Lor,
  Land,
  Bor,
  Band,
  Lxor,
  Bxor,
  Swap,
  Cswap,
  CswapNe,
  CswapLe,
  CswapLt,
  CswapGe,
  CswapGt,
  Mswap,
};
inline constexpr uint8_t kAtomicOpCount = static_cast<uint8_t>(AtomicOp::Mswap) + 1;

enum class AtomicType : uint8_t {
  Int8,
  Uint8,
  Int16,
  Uint16,
  Int32,
  Uint32,
  Int64,
  Uint64,
  Float,
  Double,
  FloatComplex,
  DoubleComplex,
  LongDouble,
  LongDoubleComplex,
};
inline constexpr uint8_t kAtomicTypeCount = static_cast<uint8_t>(AtomicType::LongDoubleComplex) + 1;

// Largest datatype item (a long double complex): the PtlSwap operand.
inline constexpr std::size_t kMaxAtomicOperand = 32;

// ---- per-operation arguments ------------------------------------------------

struct HelloArgs {
  int32_t pid;
  uint32_t protocol_version;
};
struct ExitArgs {
  int32_t status;
};
struct SleepArgs {
  double seconds;
  // The simulated time (seconds) the calling thread must at least see when it
  // wakes: its own clock at the call plus `seconds`. In a process with
  // several threads, that clock may be ahead of the server's (another
  // thread's compute not yet injected); a sleep still lasts what it asked, as
  // its thread measures it.
  double not_before;
};
struct NIInitArgs {
  uint32_t iface;
  uint32_t options; // option::kNI*
  uint32_t requested_pid;
  uint32_t has_desired;
  NILimits desired;
};
struct HandleArgs { // every call whose only argument is a handle
  Handle handle;
};
struct NIStatusArgs {
  Handle ni;
  uint32_t register_index;
};
struct MapArgs {
  Handle ni;
  uint32_t pad;
  uint64_t count;
  uint64_t address; // array of ProcessId-shaped ABI entries, read or written in place
  uint32_t entry_size;
};
struct PTAllocArgs {
  Handle ni;
  uint32_t options;
  Handle eq;
  uint32_t requested_index; // kAnyPtIndex for any
};
inline constexpr uint32_t kAnyPtIndex = 0xFFFFFFFFU;
struct PTArgs {
  Handle ni;
  uint32_t pt_index;
};
struct MDBindArgs {
  Handle ni;
  uint32_t pad;
  MemoryDescriptor md;
};
struct AppendArgs {
  Handle ni;
  uint32_t pt_index;
  ListKind list;
  uint32_t is_matching; // 1 for PtlMEAppend
  uint64_t user_ptr;
  ListEntry entry;
  // Set by the server only, for an append the process queued: the entry
  // takes the index reserved for it (AppendPermit::entry).
  uint32_t reserved;
  uint32_t padding_;
};
struct EQAllocArgs {
  Handle ni;
  uint32_t pad;
  uint64_t count;
};
// PtlEQPoll / PtlCTPoll. Programs poll one or a few objects: up to this many
// handles (and a PtlCTPoll's tests) travel in the request, read by the
// process, so that the server need not read the rank's memory (a system call
// on its critical path) at each poll; longer arrays, or arrays the process
// could not read, stay in the program's memory and the server reads them.
inline constexpr unsigned kMaxInlinePollHandles = 8;
struct PollArgs {
  uint64_t handles_address;
  uint64_t tests_address; // PtlCTPoll only: array of ptl_size_t
  uint32_t size;
  uint32_t handle_size; // bytes per handle in the ABI
  int64_t timeout_ms;   // < 0: forever
  // 1: the arrays are below (`size` <= kMaxInlinePollHandles), not at the
  // addresses. Each handle is the low 32 bits of the ABI's element, as the
  // server takes it from an array it reads.
  uint32_t is_inline;
  uint32_t pad;
  uint64_t inline_tests[kMaxInlinePollHandles]; // PtlCTPoll only
  Handle inline_handles[kMaxInlinePollHandles];
};
struct CTWaitArgs {
  Handle ct;
  uint32_t pad;
  uint64_t test;
};
struct CTUpdateArgs {
  Handle ct;
  uint32_t pad;
  CTEvent value;
};

// The largest payload a PtlPut the process queues itself carries
// (QueuedCall::put_payload): BXI's largest PIO payload, 416 B without match
// bits (408 with).
inline constexpr std::size_t kMaxQueuedPutPayload = 416;
struct PutArgs {
  Handle md;
  AckRequest ack_req;
  uint64_t local_offset;
  uint64_t length;
  ProcessId target;
  uint32_t pt_index;
  // A Put the process queued: its payload, `length` bytes, is in the queued
  // call (QueuedCall::put_payload), and this says so (== length); else 0.
  uint32_t captured_length;
  uint64_t match_bits;
  uint64_t remote_offset;
  uint64_t user_ptr;
  uint64_t hdr_data;
};
struct GetArgs {
  Handle md;
  uint32_t pad;
  uint64_t local_offset;
  uint64_t length;
  ProcessId target;
  uint32_t pt_index;
  uint32_t pad2;
  uint64_t match_bits;
  uint64_t remote_offset;
  uint64_t user_ptr;
};

// PtlAtomic (get_md kHandleNone), PtlFetchAtomic and PtlSwap. The payload
// comes from put_md; the target's data before the operation returns into
// get_md.
struct AtomicArgs {
  Handle put_md;
  Handle get_md;
  uint64_t local_put_offset;
  uint64_t local_get_offset;
  uint64_t length;
  ProcessId target;
  uint32_t pt_index;
  AckRequest ack_req; // PtlAtomic only
  uint64_t match_bits;
  uint64_t remote_offset;
  uint64_t user_ptr;
  uint64_t hdr_data;
  AtomicOp operation;
  AtomicType datatype;
  uint8_t pad[6];
  unsigned char operand[kMaxAtomicOperand]; // PtlSwap's operand: one datatype item
};

// The counter and threshold of a triggered operation.
struct TriggerArgs {
  Handle ct;
  uint32_t pad;
  uint64_t threshold;
};
struct TriggeredPutArgs {
  PutArgs put; // captured_length is 0: the payload is read when the operation fires
  TriggerArgs trigger;
};
struct TriggeredGetArgs {
  GetArgs get;
  TriggerArgs trigger;
};
struct TriggeredAtomicArgs {
  AtomicArgs atomic;
  TriggerArgs trigger;
};
struct TriggeredCTArgs {
  CTUpdateArgs update;
  TriggerArgs trigger;
};

// PtlMESearch and PtlLESearch (the entry is never linked).
struct SearchArgs {
  Handle ni;
  uint32_t pt_index;
  SearchOp op;
  uint32_t is_matching; // 1 for PtlMESearch
  // The entry's counter counts the search (matches in success, the search's
  // end in failure), as in the current generation of Sandia's ABI; in the
  // others a search only counts what a search-delete consumes.
  uint32_t counting;
  uint32_t pad;
  uint64_t user_ptr;
  ListEntry entry;
};

// Polls the process answered itself since the previous reply (a PtlEQGet,
// PtlEQPoll or PtlEQWait that the reply's queue mirror settles,
// preload/local_polls.hpp), which the server replays before it handles the
// request that carries them: the same simulated times, the same poll streak
// and the same events taken from the same queues, as if each had come by
// itself. Their steps are in Channel::local_steps.
inline constexpr unsigned kMaxLocalPollQueues = 6;
// At most this many in a row: a program that polls at zero cost still calls
// the server now and then.
inline constexpr unsigned kMaxLocalPolls = 64;
struct LocalPolls {
  uint32_t count = 0; // steps
  uint32_t queue_count = 0;
  Handle queues[kMaxLocalPollQueues]{}; // the queues the steps name (by index)
};
// The polls a process answered itself since its last reply, published in its
// channel as it answers them (Channel::published_polls): the queues they name
// first, then the count, by a compare-and-swap from the count before. The
// server claims them (kPublishedPollsClaimed in `count`) before simulated time
// goes on without the process's next request (a PMI command served at once,
// a rank parked while it sleeps in the kernel) and replays them then, at the
// times they were made; a poll published after the claim fails its swap, and
// the process leaves it to the server. The process starts again from zero at
// each reply.
inline constexpr uint32_t kPublishedPollsClaimed = 1U << 31;
struct PublishedPolls {
  std::atomic<uint32_t> count{0};
  uint32_t queue_count = 0;
  Handle queues[kMaxLocalPollQueues]{};
};

struct LocalPollStep {
  enum Kind : uint8_t {
    Empty = 1,          // found nothing, for the poll cost
    FoundAtOnce = 2,    // took the first event of queues[taken], landed before the call
    FoundAfterCost = 3, // an empty poll period, at whose end that event had landed
    // A poll the server blocks (s4bxi/poll-block-after): the poll period,
    // then whole poll periods until a watched queue's first event landed;
    // the event of queues[taken] was there then, or none of the polled ones.
    FoundAfterBlock = 4,
    EmptyAfterBlock = 5,
  };
  uint8_t kind = 0;
  uint8_t polled = 0; // bit i: queues[i] was polled
  uint8_t taken = 0;  // FoundAtOnce, FoundAfterCost: index in queues
  uint8_t compute_counted = 0; // the compute before it reached the threshold: simulated time
  uint8_t pad[4]{};
  // Thread CPU time of the compute before it (since the reply or the step before).
  uint64_t compute_ns = 0;
};
// Thread CPU time between two polls above which the program does more than
// poll: its poll streak ends (simserver/portals/api.cpp).
inline constexpr uint64_t kWorkBetweenPollsNs = 20'000;

// The rank's poll streak after a call (simserver/portals/api.hpp): how many
// empty polls it counts, the objects it watches (all of them when
// `watched_count` <= kMaxLocalPollQueues), and those of earlier streaks,
// most recent first, which a blocked poll watches too (all of them when
// `earlier_count` <= kMaxEarlierPolled). A poll that makes the count reach
// s4bxi/poll-block-after blocks in the server until a watched object
// changes: the process answers it only when the queue mirror shows when.
inline constexpr unsigned kMaxEarlierPolled = 16;
struct PollStreakState {
  uint32_t count = 0;
  uint32_t watched_count = 0;
  Handle watched[kMaxLocalPollQueues]{};
  uint32_t earlier_count = 0;
  Handle earlier[kMaxEarlierPolled]{};
};

// The rank's event queues as the server holds them at a reply, written to
// Channel::mirror: every queue (when `queue_count` <= kMaxMirroredQueues),
// how many events it holds and the first of them, with the simulated time
// each lands (or landed) in host memory.
inline constexpr unsigned kMaxMirroredQueues = 6;
inline constexpr unsigned kMaxMirroredEvents = 8;
struct MirroredQueue {
  Handle handle;
  uint32_t events;   // in the queue
  uint32_t first;    // index of its first event in QueueMirror::events
  uint32_t mirrored; // how many of its events are there
  uint32_t dropped;  // an event was lost: the next one read says so (left to the server)
  uint32_t capacity; // events it can hold: one written beyond them is lost (PTL_EQ_DROPPED)
};
struct MirroredEvent {
  double visible_at; // simulated seconds
  Event event;
};
struct QueueMirror {
  uint32_t queue_count = 0; // of the rank; those beyond kMaxMirroredQueues are not listed
  uint32_t event_count = 0;
  MirroredQueue queues[kMaxMirroredQueues]{};
  MirroredEvent events[kMaxMirroredEvents]{};
};

// Request::flags.
// The calling thread is inside a call into the MPI library
// (libs4bxi-mpi-time.so): what the call waits for is the MPI call's.
inline constexpr uint32_t kRequestInsideLibrary = 1;

struct Request {
  Op op = Op::Noop;
  // For waits and polls: Channel::abort_generation when the call began.
  uint32_t abort_epoch = 0;
  uint32_t flags = 0; // kRequest*
  // Thread CPU time the process consumed since the previous reply (or since
  // its last local poll): the compute that the server injects before it
  // handles the call.
  uint64_t compute_ns = 0;
  LocalPolls local_polls;
  union {
    HelloArgs hello;
    ExitArgs exit;
    SleepArgs sleep;
    NIInitArgs ni_init;
    HandleArgs handle;
    NIStatusArgs ni_status;
    MapArgs map;
    PTAllocArgs pt_alloc;
    PTArgs pt;
    MDBindArgs md_bind;
    AppendArgs append;
    EQAllocArgs eq_alloc;
    PollArgs poll;
    CTWaitArgs ct_wait;
    CTUpdateArgs ct_update;
    PutArgs put;
    GetArgs get;
    AtomicArgs atomic;
    TriggeredPutArgs triggered_put;
    TriggeredGetArgs triggered_get;
    TriggeredAtomicArgs triggered_atomic;
    TriggeredCTArgs triggered_ct;
    SearchArgs search;
  } args{};
};

// ---- replies ------------------------------------------------------------------

// Return codes in the protocol's numbering; the preload converts to the ABI's.
enum class Status : int32_t {
  Ok,
  ArgInvalid,
  CtNoneReached,
  EqDropped,
  EqEmpty,
  Fail,
  InUse,
  Interrupted,
  ListTooLong,
  NoInit,
  NoSpace,
  PidInUse,
  PtFull,
  PtEqNeeded,
  PtInUse,
  Ignored,
  Aborted, // a wait or poll ended by PtlAbort
};

struct HelloResult {
  uint32_t rank;
  uint32_t size;
  uint32_t nid;
  uint32_t pid; // Portals pid given to this process by default
  uint32_t uid;
  // What the process needs to check a PtlPut itself (QueuedCall): whether
  // it may (s4bxi/queued-puts), the physical NIDs of the platform (first_nid
  // to first_nid + node_count - 1), and the largest payload it may capture
  // in the call, with and without match bits.
  uint32_t queued_puts;
  uint32_t queued_appends; // s4bxi/queued-appends (the permits come with each reply)
  uint32_t first_nid;
  uint32_t node_count;
  uint32_t queued_put_limit_matching;
  uint32_t queued_put_limit_plain;
  uint32_t queued_unlinks; // s4bxi/queued-unlinks (preload/queued_unlinks.hpp)
  uint32_t huge_pages;     // s4bxi/huge-pages (preload/huge_pages.hpp)
  // A payload larger than queued_dma_above_* (the node's PIO limit, with and
  // without match bits) the NIC reads by DMA once it has the command: with
  // queued_dma_puts (s4bxi/queued-dma-puts), the process may queue such a Put
  // without capturing anything.
  uint32_t queued_dma_puts;
  uint32_t queued_dma_above_matching;
  uint32_t queued_dma_above_plain;
};

// How a PtlPut that the process queues itself (QueuedCall) goes on, told
// with each reply when the server can tell before the Put is made
// (nic/put_forecast.cpp): the rank is alone on its node, its NIC sends
// nothing, and nothing can reach the NIC's command queue, its TX engine or
// the PCIe bus from the CPU before `until` (seconds). A Put started early
// enough for its PIO write, command write and TX processing to end before
// `until` ends after the PIO write of what of its payload the command does
// not carry inline (beyond `inline_matching` or `inline_plain` bytes: a PCIe
// write alone on its route, `pio_latency_s` plus its bytes at `pio_Bps`; none
// when PCIe commands are not modelled) and the command write (`command_s`).
// Its SEND event, when the NIC writes it as the message leaves (a payload of
// at most `send_at_tx_max` bytes, which it keeps in its E2E context, or any
// message sent without E2E), lands `send_landing_s` after that end; one that
// comes with the message's acknowledgment lands no earlier than
// `late_send_s` after it. No other event it causes lands here before
// `own_events_s` after it. The process then knows its clock after the Put
// and its SEND event, or that it comes later, and goes on answering polls
// itself (preload/queued_puts.hpp).
struct PutForecast {
  double until = 0.0; // 0: none
  double command_s = 0.0;
  double pio_latency_s = 0.0;
  double pio_Bps = 0.0;
  double send_landing_s = 0.0;
  double late_send_s = 0.0;
  double own_events_s = 0.0;
  uint32_t max_length_matching = 0; // the largest payload forecast, with and without match bits
  uint32_t max_length_plain = 0;
  uint32_t inline_matching = 0; // payload bytes the command carries, with and without match bits
  uint32_t inline_plain = 0;
  uint32_t send_at_tx_max = 0;
  // 1: a larger payload, which the NIC reads by DMA once it has the command
  // (s4bxi/queued-dma-puts), is forecast too: the Put ends with its command's
  // write, and its SEND comes with the acknowledgment (a SEND as the message
  // leaves would come after the DMA read, which is not forecast). Its DMA read
  // then holds the CPU-to-NIC side: no other Put is forecast until the reply.
  uint32_t dma_payloads = 0;
};

// How far a time the process forecast may be from the server's: how far its
// clock may be from the server's (`rounding`, seconds), and its clock
// counting whole nanoseconds.
inline double forecast_tolerance_s(double rounding)
{
  return (rounding > 0.0 ? rounding : 0.0) + 1e-9;
}

// A Put queued with a forecast: what the process took for its end and, when
// it expected one, for its SEND event; the server checks both
// (RankProxy::run_queued_call, Nic::deliver_send_event).
struct ForecastPut {
  uint32_t used = 0;       // 1: the process went on from the forecast
  uint32_t send_event = 0; // 1: it added `event` to the MD's queue, landing at `send_landing`
  double end = 0.0;        // simulated seconds
  // With send_event, when the SEND comes as the message leaves; else 0, or
  // with send_later, the earliest a SEND that comes with the message's
  // acknowledgment may land: the process answered polls up to there.
  double send_landing = 0.0;
  uint32_t send_later = 0; // 1: a SEND event comes, not before `send_landing`
  uint32_t pad = 0;
  double rounding = 0.0;   // how far the process's clock may be from the server's (seconds)

  [[nodiscard]] double tolerance_s() const { return forecast_tolerance_s(rounding); }
  Event event{};
};

// An append queued with the forecast of its LINK event (s4bxi/link-forecasts,
// preload/queued_appends.hpp): the process added `event` to the end of the
// portal table entry's queue, landing at `landing`; the server checks it
// (Api::append).
struct ForecastLink {
  uint32_t used = 0; // 1: the process went on from the forecast
  uint32_t pad = 0;
  double landing = 0.0;  // simulated seconds
  double rounding = 0.0; // as ForecastPut::rounding
  [[nodiscard]] double tolerance_s() const { return forecast_tolerance_s(rounding); }
  Event event{};
};

// How many calls a process may leave queued between two exchanges.
inline constexpr unsigned kMaxQueuedCalls = 8;

// A call that the process answered itself (preload/queued_puts.hpp,
// preload/queued_appends.hpp, preload/queued_unlinks.hpp and
// rank_client.cpp): a PtlPut whose arguments it checked as the server does
// and whose payload it captured (a BXI CPU writes a small payload into the
// command during the call anyway), a PtlMEAppend/PtlLEAppend that an
// AppendPermit allowed, or an unlink of an entry that surely exists. Up to
// kMaxQueuedCalls of them wait in the channel (Channel::queued_calls) for
// the process's next exchange, or for the server to take them (at a liveness
// period, when it parks the rank, at a PMI command); the server then runs
// each at its simulated time, in their order: after the first
// `steps_before` polls the process answered since its last request
// (`local_polls`: their queues then) and the compute after them, before
// anything the process did next.
struct QueuedCall {
  Op op; // Op::Put, Op::Append or Op::Unlink
  ForecastPut forecast; // Op::Put
  ForecastLink link_forecast; // Op::Append
  uint32_t steps_before;
  LocalPolls local_polls;
  uint64_t compute_ns;      // thread CPU time between those polls and the call
  uint32_t compute_counted; // 1: that compute reached the threshold (simulated time)
  Handle entry;             // Op::Append: the handle the process returned (AppendPermit::entries)
  union {
    PutArgs put;
    AppendArgs append;
    HandleArgs unlink; // Op::Unlink: the entry
  } args;
  // Op::Put: the payload, as the CPU writes it into the command during the
  // call (inline or PIO); args.put.captured_length of its bytes (none for a
  // payload the NIC reads by DMA: HelloResult::queued_dma_above_*).
  unsigned char put_payload[kMaxQueuedPutPayload];
};

// A queued call crosses from the process's core to the server's: both sides
// copy only what carries something, the fields before the payload (384 bytes)
// and the part of the payload a Put captured, instead of 800 bytes (13 cache
// lines, which the other side owned last) for every call.
inline constexpr std::size_t kQueuedCallFieldBytes = offsetof(QueuedCall, put_payload);
inline std::size_t queued_call_bytes(const QueuedCall& call)
{
  const uint32_t captured = call.op == Op::Put ? call.args.put.captured_length : 0;
  return kQueuedCallFieldBytes + (captured < kMaxQueuedPutPayload ? captured : kMaxQueuedPutPayload);
}

// What the process needs to answer a PtlMEAppend/PtlLEAppend itself on one
// of its NIs, written with each reply (Channel::append_permits): the handle
// the next entry appended there gets (reserved by the server until used),
// and the portal table entries that are allocated and whose two lists have
// room for one more entry. An append that uses anything else (a counter, an
// I/O vector, another PT index) goes to the server. And the entries with no
// unexpected header: an append there with its LINK event disabled makes the
// NIC write no event (portals/api_lists.cpp, Api::append), as long as no
// message has arrived since, which none does before the reply's horizon.
// With s4bxi/link-forecasts, the queue of each portal table entry that has
// one (the first kAppendPermitQueues of them): an append there that makes the
// NIC write its LINK event alone, at once, lets the process expect that event
// a PCIe write later.
//
// Up to kAppendPermitEntries appends per NI between two replies, taking the
// handles set aside in their order (a receive loop posts several receives
// between two calls that reach the server); the portal table entries with
// room are those whose two lists have room for as many more.
inline constexpr unsigned kMaxAppendPermits = 4;
inline constexpr unsigned kAppendPermitPts = 256;
inline constexpr unsigned kAppendPermitQueues = 8;
inline constexpr unsigned kAppendPermitEntries = 8;
struct AppendPermit {
  Handle ni = kHandleInvalid; // kHandleInvalid: no permit
  uint32_t matching = 0;
  uint32_t entry_count = 0; // of entries
  uint32_t padding_ = 0;
  Handle entries[kAppendPermitEntries]{};
  uint64_t pts_with_room[kAppendPermitPts / 64]{}; // bit i: PT index i
  uint64_t pts_without_unexpected[kAppendPermitPts / 64]{};
  struct PtQueue {
    uint32_t pt_index;
    Handle eq;
  };
  uint32_t pt_queue_count = 0; // of pt_queues
  uint32_t padding2_ = 0;
  PtQueue pt_queues[kAppendPermitQueues]{};
};

// Reply::flags: the call was answered before its simulated end (a PtlPut
// answered before the PCIe write of its command, s4bxi/early-put-answer):
// `now` is when it began, and the process syncs its clock with a Sync before
// it reads it (its next call brings the final time anyway).
inline constexpr uint32_t kReplyClockPending = 1;

struct Reply {
  Status status = Status::Ok;
  uint32_t flags = 0;
  // Simulated time (seconds) when the call returns: the rank's clock restarts from here.
  double now = 0.0;
  // Simulated time (seconds) before which no event the NIC has not written
  // yet can land in the rank's memory (it lands a PCIe write after it is
  // written): until then, the rank's queues hold what Channel::mirror shows,
  // and the process answers polls of them itself (preload/local_polls.hpp).
  // 0: no local answers.
  double horizon = 0.0;
  // How long after the process's own call at time t an event that call makes
  // the NIC write can land (a PCIe write): a call the process queues itself
  // (an append) brings the horizon back to t plus this.
  double event_write_s = 0.0;
  // Of a PtlPut queued before the next exchange (none: until = 0).
  PutForecast put_forecast;
  PollStreakState poll_streak;
  union {
    HelloResult hello;
    Handle handle;
    ProcessId id;
    NILimits limits;
    uint64_t value; // PtlNIStatus register, PtlGetMap count, PtlGetUid, PT index
    Event event;    // PtlEQGet/Wait/Poll (with `which` for Poll)
    CTEvent ct;
  } result{};
  // PtlEQPoll/PtlCTPoll: index in the polled array. PtlNIInit: the NI handle
  // (the granted limits fill `result`).
  uint32_t which = 0;
  // Writes into the process's memory that it copies itself before the call
  // returns (Channel::staged, the first this many; main thread only).
  uint32_t staged_writes = 0;
};

static_assert(std::is_trivially_copyable_v<Request> && std::is_trivially_copyable_v<Reply> &&
                  std::is_trivially_copyable_v<QueuedCall>,
              "messages are copied byte-wise through shared memory");
// Every call copies a request into the channel and the server copies it out:
// three cache lines, of which the inline poll arrays are the largest
// arguments (more handles would grow every request).
static_assert(sizeof(Request) <= 192, "ipc::Request grew beyond three cache lines (kMaxInlinePollHandles?)");

} // namespace s4bxi::ipc
