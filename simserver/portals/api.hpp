// The server side of every Portals call: argument checking with the error
// codes of the Portals 4.1 specification, object management, and the start of
// data movement on the node's NIC. Runs in the rank's proxy actor, so blocking
// calls (EQWait, CTWait, polls with a timeout) block in simulated time.
#pragma once

#include "../nic/message.hpp"
#include "../trace/kinds.hpp"
#include "../world.hpp"

#include "abort_watch.hpp"
#include "memory_region.hpp"
#include "poll_sentinel.hpp"
#include "protocol.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <span>

namespace s4bxi::portals {

class Api {
public:
  explicit Api(World& world) : world_(world), abort_watch_(world), poll_sentinel_(world, abort_watch_) {}

  // Handles one request of `rank` and returns the reply (without `now`).
  ipc::Reply handle(RankPortals& rank, const ipc::Request& request);

  // Name of an operation, for logs and deadlock reports ("PtlEQWait").
  static const char* call_name(ipc::Op op);

  // Charges simulated time that a rank spent blocked (a wait, or polls that
  // only poll) to its statistics and to the trace.
  static void charge_blocked(RankPortals& rank, trace::Kind kind, double start, const char* what);
  static void charge_blocked(RankPortals& rank, trace::Kind kind, double start, double end, const char* what);

  // Replays one poll the process answered itself before this call (its
  // compute injected by the proxy): the poll streak, the simulated time and
  // the event it took, as if it had come by itself. Says what does not
  // match when the step is not one libportals could have written (the queue
  // holds no such event, the poll ended otherwise); nullptr when it matches.
  const char* replay_local_poll(RankPortals& rank, const ipc::LocalPollStep& step, const ipc::LocalPolls& polls);
  // Replays empty polls in a row, with no compute between them that takes
  // simulated time, in one sleep (one scheduling round instead of one per
  // poll) that ends where theirs would have; the same checks and streak.
  const char* replay_empty_polls(RankPortals& rank, std::span<const ipc::LocalPollStep> steps,
                                 const ipc::LocalPolls& polls);
  // What the last replay that did not match saw (the event, when it landed),
  // for the sentence that ends the run.
  [[nodiscard]] const std::string& mismatch_detail() const { return mismatch_detail_; }
  // The rank's poll streak as a reply tells it (ipc::PollStreakState).
  ipc::PollStreakState poll_streak_state(const RankPortals& rank);
  // What the process may append itself until its next call (ipc::AppendPermit):
  // one entry index per NI is set aside for it.
  void write_append_permits(RankPortals& rank, std::span<ipc::AppendPermit> permits);

  // Lets blocked pollers poll when nothing else can happen; reports their deadlock.
  PollSentinel& poll_sentinel() { return poll_sentinel_; }
  // Ends waits when a thread of their process calls PtlAbort.
  AbortWatch& abort_watch() { return abort_watch_; }

  // A poll that found something, or anything else than a poll (a Portals
  // call, a PMI command): the rank's streak of empty polls ends, and so does
  // the count of polls in vain (the poll sentinel's deadlock evidence).
  // `progress` false: only the streak ends (the rank computed between two
  // polls), what it polls is no nearer to changing.
  void end_poll_streak(RankPortals& rank, bool progress = true);

  // Whether the rank may be answered at `until`, its time, while the clock
  // is still earlier (s4bxi/answers-ahead): the rank runs on from there and
  // its next call comes no sooner, and nothing it could see happens before
  // then (api_polls.cpp). Its main thread only, while no other thread of it
  // calls, nothing parked and no wait with a deadline or a PtlAbort to watch.
  [[nodiscard]] bool may_answer_ahead(const RankPortals& rank, double until) const;

  // What every data movement call asks for (Put, Get, the atomics), as the
  // program gave it.
  struct Transfer {
    Operation op = Operation::Put;
    bool swap = false;                     // PtlSwap (op is FetchAtomic)
    ipc::Handle put_md = ipc::kHandleNone; // data sent: Put and atomics
    ipc::Handle get_md = ipc::kHandleNone; // data received: Get, FetchAtomic, Swap
    uint64_t local_put_offset = 0;
    uint64_t local_get_offset = 0;
    uint64_t length = 0;
    ipc::ProcessId target{}; // rank (logical NI) or nid/pid
    uint32_t pt_index = 0;
    uint64_t match_bits = 0;
    uint64_t remote_offset = 0;
    uint64_t user_ptr = 0;
    uint64_t hdr_data = 0;
    ipc::AckRequest ack_req = ipc::AckRequest::None;
    ipc::AtomicOp atomic_op = ipc::AtomicOp::Min;
    ipc::AtomicType atomic_type = ipc::AtomicType::Int8;
    const unsigned char* operand = nullptr; // kMaxAtomicOperand bytes (Swap)
  };

private:
  // A poll the process answered itself: the queues it polled (into `polled`;
  // 0 when none), counted as a call of the program answered in the process,
  // after the work before it (which may end the poll streak).
  size_t begin_local_step(RankPortals& rank, const ipc::LocalPollStep& step, const ipc::LocalPolls& polls,
                          ipc::Handle* polled);
  // Whether one of `queues` has an event landed at `at` (the first such one
  // described in mismatch_detail_).
  bool landed_in_any(RankPortals& rank, std::span<const ipc::Handle> queues, double at);
  // Fills mismatch_detail_ with the first event of `queue` against a poll's end.
  void describe_landing(const EventQueue* queue, double poll_end);
  std::string mismatch_detail_;
  // An append the process answered itself expecting its LINK event
  // (s4bxi/link-forecasts): counts it, and warns when `link`, the event
  // written, is not the one expected.
  void check_link_forecast(const RankPortals& rank, const ipc::ForecastLink& forecast, const PendingEvent* link);
  ipc::Reply handle_call(RankPortals& rank, const ipc::Request& request);
  // The call itself, once handle() has done what every call needs.
  ipc::Reply dispatch(RankPortals& rank, const ipc::Request& request);
  // Network interfaces (api_ni.cpp).
  ipc::Reply ni_init(RankPortals& rank, const ipc::NIInitArgs& args);
  ipc::Reply ni_fini(RankPortals& rank, ipc::Handle handle);
  ipc::Reply ni_status(RankPortals& rank, const ipc::NIStatusArgs& args);
  ipc::Reply get_id(RankPortals& rank, ipc::Handle handle, bool physical);
  ipc::Reply set_map(RankPortals& rank, const ipc::MapArgs& args);
  ipc::Reply get_map(RankPortals& rank, const ipc::MapArgs& args);
  // Portal table entries (api_pt.cpp).
  ipc::Reply pt_alloc(RankPortals& rank, const ipc::PTAllocArgs& args);
  ipc::Reply pt_free(RankPortals& rank, const ipc::PTArgs& args);
  ipc::Reply pt_enable(RankPortals& rank, const ipc::PTArgs& args, bool enable);
  // Memory descriptors (api_md.cpp).
  ipc::Reply md_bind(RankPortals& rank, const ipc::MDBindArgs& args);
  ipc::Reply md_release(RankPortals& rank, ipc::Handle handle);
  // List entries (api_lists.cpp).
  ipc::Reply append(RankPortals& rank, const ipc::AppendArgs& args);
  ipc::Reply unlink(RankPortals& rank, ipc::Handle handle);
  // Event queues (api_eq.cpp).
  ipc::Reply eq_alloc(RankPortals& rank, const ipc::EQAllocArgs& args);
  ipc::Reply eq_free(RankPortals& rank, ipc::Handle handle);
  ipc::Reply eq_get(RankPortals& rank, ipc::Handle handle, bool wait);
  ipc::Reply eq_poll(RankPortals& rank, const ipc::PollArgs& args);
  // Counting events (api_ct.cpp).
  ipc::Reply ct_alloc(RankPortals& rank, ipc::Handle ni);
  ipc::Reply ct_free(RankPortals& rank, ipc::Handle handle);
  ipc::Reply ct_get(RankPortals& rank, ipc::Handle handle);
  ipc::Reply ct_wait(RankPortals& rank, const ipc::CTWaitArgs& args);
  ipc::Reply ct_poll(RankPortals& rank, const ipc::PollArgs& args);
  ipc::Reply ct_update(RankPortals& rank, const ipc::CTUpdateArgs& args, bool increment);

  // Data movement (api_data.cpp).
  static Transfer transfer_of(const ipc::PutArgs& args);
  static Transfer transfer_of(const ipc::GetArgs& args);
  static Transfer transfer_of(const ipc::AtomicArgs& args, Operation op, bool swap);
  // Checks the arguments with the specification's error codes (`error` says
  // which when it returns nullptr) and builds the request message with the
  // initiator's record of the operation. Changes nothing.
  std::unique_ptr<nic::Message> prepare(RankPortals& rank, const Transfer& transfer, ipc::Status& error);
  // Sends a prepared message now: the payload goes inline, by PIO or by DMA
  // as its size says (from `captured`, the bytes a queued Put's process took
  // in the call, if it holds them all; else from the rank's memory); the MDs
  // stay in use until the response.
  ipc::Reply issue(RankPortals& rank, std::unique_ptr<nic::Message> message,
                   std::span<const unsigned char> captured = {});
  // s4bxi/early-put-answer: answers the call now when the rank may run
  // during its command's PCIe write.
  void answer_before_command(RankPortals& rank, const nic::Message& message, uint64_t pio_bytes);
  ipc::Reply put(RankPortals& rank, const ipc::PutArgs& args);
  ipc::Reply get(RankPortals& rank, const ipc::GetArgs& args);
  ipc::Reply atomic(RankPortals& rank, const ipc::AtomicArgs& args, Operation op, bool swap);

  // Triggered operations (api_triggered.cpp).
  ipc::Reply triggered(RankPortals& rank, const Transfer& transfer, const ipc::TriggerArgs& trigger);
  ipc::Reply triggered_put(RankPortals& rank, const ipc::TriggeredPutArgs& args);
  ipc::Reply triggered_get(RankPortals& rank, const ipc::TriggeredGetArgs& args);
  ipc::Reply triggered_atomic(RankPortals& rank, const ipc::TriggeredAtomicArgs& args, Operation op, bool swap);
  ipc::Reply triggered_ct(RankPortals& rank, const ipc::TriggeredCTArgs& args, bool increment);
  ipc::Reply ct_cancel_triggered(RankPortals& rank, ipc::Handle ct);

  // List entries (api_lists.cpp).
  ipc::Reply search(RankPortals& rank, const ipc::SearchArgs& args);
  // Reads an I/O vector of `count` elements (at most max_iovecs), for an MD
  // or a list entry (api_md.cpp).
  static std::optional<MemoryRegion> load_vector(RankPortals& rank, const NetworkInterface& ni, uint64_t address,
                                                 uint64_t count);

  // The sleep calls of the program (api.cpp).
  ipc::Reply sleep(RankPortals& rank, const ipc::SleepArgs& args);

  // Polls that only poll (api_polls.cpp).
  // Charges an empty poll of `handles` (EQs or CTs, as `kind` says); after
  // s4bxi/poll-block-after empty polls in a row, with no other call and no
  // compute in between, blocks until any object polled during the streak
  // changes (see DESIGN.md, "Polling"). A program often polls several
  // objects in turn (OpenMPI: PtlEQGet on one EQ, PtlEQPoll on two): it must
  // wake for whichever changes first. Returns how the poll ended.
  enum class EmptyPoll { Charged, BlockedUntilChange, Released };
  EmptyPoll charge_empty_poll(RankPortals& rank, HandleKind kind, std::span<const ipc::Handle> handles);
  // Whether the rank's time may stay ahead of the clock until `until`
  // without a sleep: nothing that depends on that sleep happens before then.
  [[nodiscard]] bool may_leave_unslept(const RankPortals& rank, double until) const;
  // Whether a poll's period may be slept within its block at all
  // (s4bxi/poll-period-in-block; charge_empty_poll tells when).
  [[nodiscard]] bool may_sleep_period_in_block() const;
  // Whether no instant of the coming simulated time is watched from outside
  // the simulation's own events (the outside holder, a wait's deadline), so
  // that a sleep may be left to a later one (the two above, may_answer_ahead).
  [[nodiscard]] bool no_instant_watched() const;
  // Whether a polled counter changed since its streak began watching it.
  bool counter_changed_in_streak(RankPortals& rank, ipc::Handle handle);

  World& world_;
  // One rank's run of empty polls: every object polled since it began (for a
  // counter, the value it had then) and how many polls found nothing.
  struct PollStreak {
    struct Watched {
      HandleKind kind = HandleKind::EQ;
      ipc::Handle handle = ipc::kHandleInvalid;
      ipc::CTEvent seen{};    // a counter's value when the streak began watching it
      size_t events_seen = 0; // an EQ's events then (one polled earlier may hold some still)
    };
    std::vector<Watched> watched;
    int count = 0; // empty polls since the last object new to the streak
    // Objects polled in earlier streaks (most recent first, a few): a
    // progress loop polls the same objects each time, some of them only
    // every few rounds, so a block also watches those.
    std::vector<std::pair<HandleKind, ipc::Handle>> earlier;
  };

  PollStreak& streak_of(const RankPortals& rank);
  // Counts an empty poll of `handles` in the rank's poll streak, which
  // watches them from now on (preload/local_polls.cpp follows this count).
  void count_empty_poll(RankPortals& rank, HandleKind kind, std::span<const ipc::Handle> handles, double now);
  std::vector<PollStreak> poll_streaks_; // per rank
  AbortWatch abort_watch_;
  PollSentinel poll_sentinel_;
};

} // namespace s4bxi::portals
