// The wire between the NICs: it carries each message as one SimGrid
// communication from the sending NIC's host to the receiving NIC's host, and
// hands it to the RX lane of the receiver that serves its source when that
// communication ends.
//
// Arrival order. The RX engine of a lane handles its messages in the order
// they arrive, across its sources; the messages of one source keep the order
// they were sent in (a later one whose communication ends first, a small one
// beside a large one, waits for those before it, as packets that follow one
// route do). A permanent receiver's mailbox, used before, could not give
// that: its next receive bound to the next message *sent* to it, so an idle
// engine waited for a farther message sent first while a nearer one sent
// after it had landed already (in mpi_onesided at 8 ranks, node 0 waited for
// a BXI ACK from node 1 while a Put between two of its own ranks had landed
// 1 us before).
//
// So nobody receives the communications: the wire watches their ends
// (SimGrid calls Link::on_communication_state_change while it updates the
// network model, in maestro, at the end's date and before any actor runs at
// that date), queues the message at its lane, and wakes the lane's engine if
// it waits. An engine that has messages queued takes the next one without a
// simcall.
//
// Two kinds of communications, one model. A host-to-host communication
// costs one simcall, but SimGrid 3.32 keeps them all in one list of detached
// activities and walks it each time one ends: a message costs as many steps
// as there are messages on their way (some 8,000 in the put ring at 4,096
// ranks). So beyond a number on their way (s4bxi/wire-mailboxes-beyond), a
// message goes through a mailbox of its lane instead, one of a pool whose
// permanent receiver is the lane's engine, so that it starts at once, along
// the same route. That communication is listed by its sender only, which
// ends it at its next message (a wait answered at once), and by its mailbox,
// which holds nothing else, until the engine takes the message and receives
// it (answered at once): three simcalls, against a walk of thousands. Both
// kinds land at the same time, seen by the same signal. While a link may go
// off, messages go host to host (a failed one would stay in its mailbox).
//
// A message alone on its route (s4bxi/lone-messages) is no communication at
// all. The network model (CM02 with unit factors, lone_writes.cpp) makes a
// communication that shares no link with another transfer last its route's
// latency, then its bytes at the route's narrowest bandwidth; the sender's
// NIC knows when a new message can go on the wire at the earliest
// (LandingBounds::earliest_new_send), and no message's bytes flow sooner
// after it went on the wire than the least route latency. So a message sent
// while no communication of the wire runs on a shared link of its route, and
// that lands before any new message's bytes can flow, is alone for its whole
// way: a kernel timer at its landing time queues it at its lane as the end of
// its communication would have (within SimGrid's precision), without the
// round at the end of its latency nor any work of the network model. Its
// route must carry nothing but the wire's messages (no PCIe transfer).
// Such a message whose engine waits, will be done by its landing with what
// is on its way to it (lone messages: their landings are known), and that
// no new message can reach before the end of the engine's delay
// (s4bxi/lone-arrivals; new messages are bounded by the ranks' earliest
// calls, portals/rank_calls.hpp) is taken at its landing whatever happens
// meanwhile, and nothing else reaches the engine before it has handled it:
// its timer goes off at the end of that delay instead (within SimGrid's
// precision, as the engine's sleep would), and the engine, which would only
// have slept the delay, handles it at once. One date less in the simulation
// (its landing), and no wake of the engine there. An engine takes a message
// it waited for at the landing's own date, either way.
//
// A communication that fails (a link of its route goes off) hands its
// message to the sender's handler of lost messages; the messages of that
// source behind it go on. When an RX engine ends (SimGrid kills the NIC's
// engines once the last rank has ended), the messages still on their way to
// it are dropped: nothing would handle them, and their communications would
// keep the simulated clock going after the job. So is a message through a
// mailbox whose sender ends while it is on its way (SimGrid cancels it then;
// the NIC's engines end with the job), its route whole.
#pragma once

#include "message.hpp"
#include "../actor_sleep.hpp" // call_at

#include <simgrid/forward.h>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace s4bxi::nic {

// Called, in maestro, with a message whose communication failed.
using LostHandler = std::function<void(Message& lost, uint64_t bytes_on_wire)>;

class RxLane;

// A communication through a mailbox, until its sender has ended it.
struct SentThroughMailbox {
  simgrid::s4u::CommPtr comm;
  bool ended = false; // SimGrid ended it: its sender's wait answers at once
};

// A message on its way, until it is queued at its lane.
struct CarriedMessage {
  // Kept from its start to the reuse of the slot, to be cancelled when its
  // engine ends; SimGrid has ended it by that reuse (a running communication
  // dropped prints a warning).
  simgrid::s4u::CommPtr comm;
  MessagePtr message;
  uint64_t bytes_on_wire = 0;
  unsigned source = 0;
  RxLane* lane = nullptr;
  const LostHandler* lost = nullptr;
  bool arrived = false;
  CarriedMessage* next_from_source = nullptr; // sent after it, to the same lane
  // Through this mailbox of its lane (else host to host), and its sender's
  // record of it until the communication ends.
  simgrid::s4u::Mailbox* mailbox = nullptr;
  SentThroughMailbox* sent = nullptr;
  const simgrid::s4u::Host* from = nullptr; // (through a mailbox)
  // Its route's shared links, whose count of running communications it is
  // part of (none when alone).
  const std::vector<const simgrid::s4u::Link*>* counted_on = nullptr;
  // Alone on its route: the timer of its landing (no communication then).
  simgrid::kernel::timer::Timer* landing = nullptr;
  // Alone: its landing's date (else -1), and whether it is handed over at
  // the end of its engine's delay (its timer goes off then).
  double lands_at = -1;
  bool handed_late = false;
  std::multimap<double, CarriedMessage*>::iterator handed_late_at{}; // (Wire::handed_late_, while handed_late)
};

// What one RX engine receives: the messages that arrived and that it has not
// taken yet, and those still on their way to it, by source.
class RxLane {
public:
  RxLane() : wake_(simgrid::s4u::Semaphore::create(0)) {}
  RxLane(const RxLane&) = delete;
  RxLane& operator=(const RxLane&) = delete;
  RxLane(RxLane&&) = default;

  // The next message, in arrival order; blocks the calling engine until one
  // arrives.
  MessagePtr next();
  // When, in the model, the engine took the message next() returned last:
  // its landing if the engine waited for it (or it was handed over at the
  // end of the engine's delay, s4bxi/lone-arrivals: its delay has run then),
  // else now.
  [[nodiscard]] double taken_at() const { return taken_at_; }
  [[nodiscard]] bool delay_ran() const { return delay_ran_; }
  // What the engine does with a message that takes it no time and that it
  // takes at its landing (a BXI ACK of a response, to an engine that waits
  // with nothing queued): the wire hands the message to `handler` then, in
  // maestro at the end of its communication, instead of waking the engine
  // (s4bxi/acks-at-landing; the same simulated time, one actor switch less).
  // Unset: every message wakes the engine.
  void handle_at_landing(std::function<void(MessagePtr)> handler) { at_landing_ = std::move(handler); }
  // What the engine does, at the end of its delay, with a message that it
  // takes at its landing (it waits, with nothing queued) and whose handling
  // cannot block: the wire hands the message to `handler` then, in maestro,
  // instead of waking the engine at the landing for it to sleep its delay
  // (s4bxi/rx-in-maestro; the same simulated times, two actor switches less).
  // The engine counts as busy meanwhile: what lands then waits for it. The
  // handler returns false, leaving the message, when its handling may block
  // after all (a full command queue): the engine handles it then, at once.
  // Unset: every message wakes the engine.
  void handle_in_maestro(std::function<bool(MessagePtr&)> handler) { in_maestro_ = std::move(handler); }
  // Called in an engine's context each time it takes a message (or in
  // maestro, for one handled at its landing). Nobody
  // waits for a message's communication, so its end fires no
  // s4u::Activity::on_completion; the poll sentinel, which counts those as
  // things that happened, counts this instead (portals/poll_sentinel.cpp).
  static void on_message_taken_cb(std::function<void()> callback);

private:
  friend class Wire;
  // The messages of one source on their way, in the order sent (a list
  // through CarriedMessage::next_from_source).
  struct FromSource {
    CarriedMessage* first = nullptr;
    CarriedMessage* last = nullptr;
  };
  void wake_if_waiting();
  // Whether `message`, arrived through `mailbox` (or none), goes to
  // at_landing_ rather than to the engine (handle_at_landing).
  [[nodiscard]] bool handled_at_landing(const Message& message, const simgrid::s4u::Mailbox* mailbox) const;
  // Whether `carried`, arrived, goes to in_maestro_ (handle_in_maestro).
  [[nodiscard]] bool goes_to_maestro(const CarriedMessage& carried) const;
  // Whether the engine is done, by `when`, with every message on its way to
  // it now (none through a communication).
  [[nodiscard]] bool idle_by(double when) const;
  // An idle mailbox of the pool (made when none is), its engine the
  // permanent receiver.
  simgrid::s4u::Mailbox* take_mailbox();

  struct Arrived {
    MessagePtr message;
    simgrid::s4u::Mailbox* mailbox; // it came through (to be received), or none
    bool delay_ran;                 // CarriedMessage::handed_late
  };
  std::deque<Arrived> arrived_;
  std::unordered_map<unsigned, FromSource> on_their_way_; // by source; none for a source with none on its way
  simgrid::s4u::SemaphorePtr wake_;
  bool waiting_ = false; // the engine blocks on wake_
  bool closed_ = false;  // its engine ended
  double delay_s_ = 0;   // the engine's delay before it handles a message (Wire::serve)
  double taken_at_ = 0;
  bool delay_ran_ = false;
  // The message maestro handles at the end of its delay (handle_in_maestro),
  // when, and the call that does it; and when the engine was last done with
  // one there.
  MessagePtr in_maestro_message_;
  bool maestro_busy_ = false;
  double maestro_until_ = 0;
  CallHandle maestro_call_ = 0;
  double free_at_ = -std::numeric_limits<double>::infinity();
  simgrid::s4u::ActorPtr engine_; // Wire::serve
  std::vector<simgrid::s4u::Mailbox*> idle_mailboxes_;
  unsigned mailboxes_made_ = 0;
  std::function<void(MessagePtr)> at_landing_;
  std::function<bool(MessagePtr&)> in_maestro_;
};

class Wire {
public:
  // One wire at a time per process (it is the one SimGrid's signal reaches).
  // Beyond `mailboxes_beyond` messages on their way, a message goes through a
  // mailbox of its lane; -1: never.
  explicit Wire(long mailboxes_beyond);
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  // Starts carrying `message` (`bytes_on_wire` bytes) from host `from` to
  // host `to`, for `lane`, whose source `source` is. `lost` outlives the
  // message's way. `links_may_fail`: a link may go off meanwhile.
  // `no_transfer_before`: no other message's bytes can flow on any link
  // before that time (lone messages; -infinity: not known).
  void carry(MessagePtr message, uint64_t bytes_on_wire, simgrid::s4u::Host* from, simgrid::s4u::Host* to,
             unsigned source, RxLane& lane, const LostHandler& lost, bool links_may_fail,
             double no_transfer_before = -std::numeric_limits<double>::infinity());

  // Lets messages cross alone (s4bxi/lone-messages), but not on a route with
  // one of `other_traffic`, the links that carry other transfers than the
  // wire's (the nodes' PCIe). (Until then, no route is looked at.)
  // `arrivals`: and be handed to an idle engine at the end of its delay
  // (s4bxi/lone-arrivals).
  void allow_lone_messages(const std::vector<const simgrid::s4u::Link*>& other_traffic, bool arrivals = false);

  // The calling actor is the engine that handles what `lane` receives,
  // `delay_s` after it takes a message (but a BXI ACK at once).
  void serve(RxLane& lane, double delay_s = 0);

  // Messages not queued at their lane yet (for tests).
  [[nodiscard]] std::size_t on_their_way() const { return slots_.size() - free_.size(); }
  // Slots made so far: as many as messages were on their way at once, each
  // reused once its message has arrived (for tests: the memory stays flat).
  [[nodiscard]] std::size_t slots() const { return slots_.size(); }
  // Messages that went through a mailbox so far (for tests).
  [[nodiscard]] std::size_t through_mailboxes() const { return through_mailboxes_; }
  // Messages that crossed alone so far, and those on their way now.
  [[nodiscard]] std::size_t lone_messages() const { return lone_messages_; }
  // Those of them handed over at the end of their engine's delay so far.
  [[nodiscard]] std::size_t lone_arrivals() const { return lone_arrivals_; }
  [[nodiscard]] static std::size_t lone_on_their_way() { return lone_on_their_way_; }
  // Messages handed to their lane's handler at their landing so far
  // (RxLane::handle_at_landing).
  [[nodiscard]] std::size_t handled_at_landing() const { return handled_at_landing_; }
  // Messages that an engine's handler ran in maestro at the end of the
  // engine's delay so far (RxLane::handle_in_maestro), and those of them that
  // went to the engine after all.
  [[nodiscard]] std::size_t handled_in_maestro() const { return handled_in_maestro_; }
  [[nodiscard]] std::size_t sent_back_to_engines() const { return sent_back_to_engines_; }
  // Messages waiting in maestro for the end of their engine's delay: each
  // is a timer that keeps the simulation going (portals/poll_sentinel.cpp).
  [[nodiscard]] static std::size_t in_maestro_pending() { return in_maestro_pending_; }
  // Whether a message sent now (from maestro, which has no mailbox of its
  // own) would go through a mailbox if an actor sent it: many messages on
  // their way, where SimGrid's list of host-to-host communications is long.
  [[nodiscard]] bool mailboxes_in_use() const
  {
    return mailboxes_beyond_ >= 0 && on_the_wire_.size() >= static_cast<std::size_t>(mailboxes_beyond_);
  }

  // Ends the calling actor's oldest communications through mailboxes, up to
  // the first that SimGrid has not ended yet (simcalls, in which other actors
  // run; carry begins with it, a sender that decides on what the others do
  // calls it first).
  void end_sent_through_mailboxes();

  // Whether every link of the route from `from` to `to` is on.
  static bool route_is_on(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);

private:
  // What the network model makes of a route, once per pair of hosts.
  struct Route {
    std::vector<const simgrid::s4u::Link*> shared; // its links that are not FATPIPE
    double latency_s = 0;
    double narrowest_Bps = 0;
    bool alone_exact = false; // lone_writes_exact, and no link with other traffic
  };
  const Route& route_of(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to);
  // A message's communication ended (`finished`), or failed.
  void ended(const void* activity, bool finished);
  // The message of `carried` arrived (`finished`), or its way ended without.
  void way_ended(CarriedMessage* carried, bool finished);
  // An actor ended: if it served a lane, drops what is on its way there.
  void actor_ended(aid_t pid);
  // A message alone ends its way: it reached its lane (`finished`: its
  // timer went off, or it is due), or its engine ended. Its timer goes.
  void end_alone(CarriedMessage* carried, bool finished);
  // Hands over, at a time advance, those handed over late that are due
  // within SimGrid's precision of the new date.
  void hand_over_due();
  // Maestro takes the message that landed for `lane` and handles it at the
  // end of the engine's delay (`delay_ran`: it has run: now).
  void start_in_maestro(RxLane& lane, MessagePtr message, bool delay_ran);
  // The end of that delay: the handler runs, or the engine takes the message.
  void finish_in_maestro(RxLane& lane);
  CarriedMessage* take_slot();
  void free_slot(CarriedMessage* slot);
  // Whether this message goes through a mailbox of its lane.
  bool through_mailbox(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, const RxLane& lane,
                       bool links_may_fail) const;

  // The messages on their way, in slots reused from one to the next.
  std::deque<CarriedMessage> slots_;
  std::vector<CarriedMessage*> free_;
  // Those whose communication runs, by its kernel activity: only while it
  // runs (SimGrid frees an ended one, and its address may carry the next).
  std::unordered_map<const void*, CarriedMessage*> on_the_wire_;
  std::unordered_map<aid_t, RxLane*> engines_; // by actor id
  const long mailboxes_beyond_;
  // The communications through mailboxes each actor sent and has not ended,
  // oldest first (a deque: their addresses stay while it grows and shrinks
  // at its ends).
  std::unordered_map<aid_t, std::deque<SentThroughMailbox>> sent_through_mailboxes_;
  std::size_t through_mailboxes_ = 0;
  std::unordered_map<const simgrid::s4u::Host*, std::unordered_map<const simgrid::s4u::Host*, Route>> routes_;
  std::unordered_map<const simgrid::s4u::Link*, int> running_on_link_; // the wire's communications on each
  bool lone_allowed_ = false;
  bool lone_arrivals_allowed_ = false;
  std::multimap<double, CarriedMessage*> handed_late_; // by the date they are handed over
  std::unordered_set<const simgrid::s4u::Link*> other_traffic_;
  std::size_t lone_messages_ = 0;
  std::size_t lone_arrivals_ = 0;
  std::size_t handled_at_landing_ = 0;
  static inline std::size_t lone_on_their_way_ = 0;
  std::vector<simgrid::s4u::CommPtr> ending_; // of slots taken in the round their communication ended (take_slot)
  std::size_t handled_in_maestro_ = 0;
  std::size_t sent_back_to_engines_ = 0;
  static inline std::size_t in_maestro_pending_ = 0;
};

} // namespace s4bxi::nic
