#include "wire.hpp"

#include "nic.hpp" // lone_writes_exact
#include "../actor_sleep.hpp" // time_precision
#include "../engine_clock.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/kernel/resource/Action.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/asserts.h>

#include <algorithm>
#include <string>
#include <utility>

namespace s4u = simgrid::s4u;
using simgrid::kernel::resource::Action;

namespace s4bxi::nic {

namespace {

Wire* current_wire = nullptr;

std::vector<std::function<void()>>& message_taken_callbacks()
{
  static std::vector<std::function<void()>> callbacks;
  return callbacks;
}

// The installed headers of SimGrid 3.32 only declare NetworkAction; it derives
// from Action alone (src/kernel/resource/NetworkModel.hpp), which therefore
// begins it.
const Action& as_action(const simgrid::kernel::resource::NetworkAction& action)
{
  return reinterpret_cast<const Action&>(action);
}

} // namespace

MessagePtr RxLane::next()
{
  const bool waited = arrived_.empty();
  while (arrived_.empty()) {
    waiting_ = true;
    wake_->acquire();
  }
  Arrived taken = std::move(arrived_.front());
  arrived_.pop_front();
  // Taken as it landed when the engine waited for it: at the landing's own
  // date (a lone message's, exact, where the clock its timer sets may differ
  // in the last bit, and one handed over late is taken then too); else now.
  delay_ran_ = taken.delay_ran;
  // (One that landed while maestro handled the message before it, the
  // engine busy then, is taken once that is done: handle_in_maestro.)
  taken_at_ = delay_ran_ ? taken.message->landed_at
              : waited   ? std::max(taken.message->landed_at, free_at_)
                         : sim_now();
  if (taken.mailbox != nullptr) {
    // Out of its mailbox, which holds nothing else: answered at once, and
    // the mailbox is free for another message.
    s4u::Comm::recv(s4u::Actor::self()->get_impl(), taken.mailbox, nullptr, nullptr, {}, {}, nullptr, -1, -1);
    idle_mailboxes_.push_back(taken.mailbox);
  }
  for (const auto& callback : message_taken_callbacks())
    callback();
  return std::move(taken.message);
}

s4u::Mailbox* RxLane::take_mailbox()
{
  if (idle_mailboxes_.empty()) {
    s4u::Mailbox* made = s4u::Mailbox::by_name("wire to " + engine_->get_name() + " (actor " +
                                               std::to_string(engine_->get_pid()) + ") #" +
                                               std::to_string(mailboxes_made_++));
    made->set_receiver(engine_);
    return made;
  }
  s4u::Mailbox* idle = idle_mailboxes_.back();
  idle_mailboxes_.pop_back();
  return idle;
}

void RxLane::on_message_taken_cb(std::function<void()> callback)
{
  message_taken_callbacks().push_back(std::move(callback));
}

bool RxLane::idle_by(double when) const
{
  // Each handled in turn after its landing (a BXI ACK at once, one handed
  // over late at its timer): the engine is done no later than the last
  // timer plus a delay for each. A communication's end is not known.
  // (A message maestro handles keeps it busy until the end of its delay.)
  double last = maestro_busy_ ? maestro_until_ : -std::numeric_limits<double>::infinity();
  std::size_t count = 0;
  for (const auto& [source, from_source] : on_their_way_)
    for (const CarriedMessage* at = from_source.first; at != nullptr; at = at->next_from_source) {
      if (at->landing == nullptr)
        return false;
      last = std::max(last, at->landing->get_date());
      count++;
    }
  return last + static_cast<double>(count) * delay_s_ < when;
}

bool RxLane::handled_at_landing(const Message& message, const s4u::Mailbox* mailbox) const
{
  // The engine waits and nothing is queued before it: it would take the
  // message at once, at its landing. Nor does it sleep for a BXI ACK, and
  // one of a response only makes it forget the response (no write to its
  // host, no message sent). One through a mailbox must be received by the
  // engine itself.
  return at_landing_ && waiting_ && not maestro_busy_ && arrived_.empty() && mailbox == nullptr &&
         message.kind == Message::Kind::BxiAck && message.acknowledges_response;
}

bool RxLane::goes_to_maestro(const CarriedMessage& carried) const
{
  // The engine waits with nothing before it: it would take the message at
  // its landing, then sleep its delay (none for a BXI ACK, which it takes at
  // once). One through a mailbox must be received by the engine itself.
  return in_maestro_ && waiting_ && not maestro_busy_ && arrived_.empty() && carried.mailbox == nullptr &&
         carried.message->kind != Message::Kind::BxiAck && delay_s_ > 0;
}

void RxLane::wake_if_waiting()
{
  if (waiting_ && not maestro_busy_ && not arrived_.empty()) {
    waiting_ = false;
    wake_->release();
  }
}

Wire::Wire(long mailboxes_beyond) : mailboxes_beyond_(mailboxes_beyond)
{
  xbt_assert(current_wire == nullptr, "one wire at a time");
  current_wire = this;
  // The signals have no way to disconnect: connected once per process, they
  // reach the wire of the moment.
  static const bool connected = [] {
    s4u::Link::on_communication_state_change_cb(
        [](simgrid::kernel::resource::NetworkAction& network_action, Action::State /*previous*/) {
          if (current_wire == nullptr)
            return;
          const Action& action = as_action(network_action);
          const Action::State state = action.get_state();
          if (state == Action::State::FINISHED || state == Action::State::FAILED || state == Action::State::IGNORED)
            current_wire->ended(action.get_activity(), state == Action::State::FINISHED);
        });
    s4u::Actor::on_termination_cb([](const s4u::Actor& actor) {
      if (current_wire != nullptr)
        current_wire->actor_ended(actor.get_pid());
    });
    s4u::Engine::on_time_advance_cb([](double) {
      if (current_wire != nullptr)
        current_wire->hand_over_due();
    });
    return true;
  }();
  (void)connected;
}

Wire::~Wire()
{
  current_wire = nullptr;
}

void Wire::serve(RxLane& lane, double delay_s)
{
  lane.delay_s_ = delay_s;
  engines_[s4u::this_actor::get_pid()] = &lane;
  lane.engine_ = s4u::Actor::self();
}

void Wire::allow_lone_messages(const std::vector<const s4u::Link*>& other_traffic, bool arrivals)
{
  lone_allowed_ = true;
  lone_arrivals_allowed_ = arrivals;
  other_traffic_.insert(other_traffic.begin(), other_traffic.end());
  routes_.clear();
}

const Wire::Route& Wire::route_of(const s4u::Host* from, const s4u::Host* to)
{
  auto& from_here = routes_[from];
  if (auto found = from_here.find(to); found != from_here.end())
    return found->second;
  std::vector<s4u::Link*> links;
  Route route;
  from->route_to(to, links, &route.latency_s);
  route.narrowest_Bps = std::numeric_limits<double>::infinity();
  for (const auto* link : links) {
    route.narrowest_Bps = std::min(route.narrowest_Bps, link->get_bandwidth());
    if (link->get_sharing_policy() != s4u::Link::SharingPolicy::FATPIPE)
      route.shared.push_back(link);
  }
  route.alone_exact = not links.empty() && lone_writes_exact(links, route.latency_s, route.narrowest_Bps) &&
                      std::none_of(links.begin(), links.end(),
                                   [this](const s4u::Link* link) { return other_traffic_.count(link) != 0; });
  return from_here.emplace(to, std::move(route)).first->second;
}

void Wire::carry(MessagePtr message, uint64_t bytes_on_wire, s4u::Host* from, s4u::Host* to, unsigned source,
                 RxLane& lane, const LostHandler& lost, bool links_may_fail, double no_transfer_before)
{
  end_sent_through_mailboxes();
  CarriedMessage* carried = take_slot();
  // (Every communication of the wire counts on its links while lone
  // messages are allowed.)
  const Route* route = lone_allowed_ ? &route_of(from, to) : nullptr;
  // (As SimGrid adds them: the end of the latency is a date of its own.)
  const double landing =
      route != nullptr
          ? (sim_now() + route->latency_s) + static_cast<double>(bytes_on_wire) / route->narrowest_Bps
          : 0;
  const bool alone = route != nullptr && route->alone_exact && not links_may_fail && landing < no_transfer_before &&
                     std::all_of(route->shared.begin(), route->shared.end(), [this](const s4u::Link* link) {
                       auto found = running_on_link_.find(link);
                       return found == running_on_link_.end() || found->second == 0;
                     });
  if (alone) {
    // Handed over at the end of the engine's delay (s4bxi/lone-arrivals):
    // the engine waits with nothing queued, is done by the landing with
    // what is on its way to it (lone messages: known landings), and no new
    // message lands anywhere before the end of the delay.
    const bool handed_late = lone_arrivals_allowed_ && lane.delay_s_ > 0 &&
                             message->kind != Message::Kind::BxiAck && lane.waiting_ && lane.arrived_.empty() &&
                             landing + lane.delay_s_ < no_transfer_before && lane.idle_by(landing);
    *carried = {nullptr, std::move(message), bytes_on_wire, source, &lane, &lost, false};
    carried->lands_at = landing;
    carried->handed_late = handed_late;
    if (handed_late)
      lone_arrivals_++;
    const double queued_at = handed_late ? landing + lane.delay_s_ : landing;
    carried->landing = simgrid::kernel::timer::Timer::set(queued_at, [this, carried] {
      carried->landing = nullptr; // (SimGrid frees a timer that ran)
      end_alone(carried, true);
    });
    if (handed_late)
      carried->handed_late_at = handed_late_.emplace(queued_at, carried);
    lone_messages_++;
    lone_on_their_way_++;
  } else {
    s4u::CommPtr comm;
    s4u::Mailbox* mailbox = nullptr;
    if (through_mailbox(from, to, lane, links_may_fail)) {
      mailbox = lane.take_mailbox();
      // (The engine's receive does not copy: the message goes with the slot.)
      comm = mailbox->put_init(message.get(), bytes_on_wire);
      through_mailboxes_++;
    } else {
      comm = s4u::Comm::sendto_init(from, to);
      comm->set_payload_size(bytes_on_wire);
    }
    *carried = {comm, std::move(message), bytes_on_wire, source, &lane, &lost, false, nullptr, mailbox};
    if (mailbox != nullptr) {
      auto& mine = sent_through_mailboxes_[s4u::this_actor::get_pid()];
      mine.push_back({comm});
      carried->sent = &mine.back();
      carried->from = from;
    }
    // Counted on its links before the simcall that starts it: other actors
    // run in it, and may send.
    if (route != nullptr) {
      for (const auto* link : route->shared)
        running_on_link_[link]++;
      carried->counted_on = &route->shared;
    }
    comm->start();
    // (Its kernel activity exists from its start on.)
    const bool inserted = on_the_wire_.try_emplace(comm->get_impl(), carried).second;
    xbt_assert(inserted, "a communication carries one message");
  }
  auto& from_source = lane.on_their_way_[source];
  (from_source.last != nullptr ? from_source.last->next_from_source : from_source.first) = carried;
  from_source.last = carried;
}

void Wire::end_alone(CarriedMessage* carried, bool finished)
{
  if (carried->landing != nullptr) {
    carried->landing->remove();
    carried->landing = nullptr;
  }
  if (carried->handed_late)
    handed_late_.erase(carried->handed_late_at);
  lone_on_their_way_--;
  way_ended(carried, finished);
}

void Wire::hand_over_due()
{
  ending_.clear(); // (SimGrid finished them in the round they ended)
  // As the engine's own sleep of its delay would (actor_sleep.hpp): handed
  // over in the round whose date is within SimGrid's precision of the end
  // of the delay, not in a round of its own a rounding error later. (Those
  // due now are left to their timer, which goes off next.)
  const double now = sim_now();
  for (auto due = handed_late_.upper_bound(now); due != handed_late_.end() && due->first - now < time_precision();)
    end_alone((due++)->second, true);
}

void Wire::start_in_maestro(RxLane& lane, MessagePtr message, bool delay_ran)
{
  lane.in_maestro_message_ = std::move(message);
  lane.maestro_busy_ = true;
  in_maestro_pending_++;
  for (const auto& callback : message_taken_callbacks())
    callback();
  if (delay_ran) {
    lane.maestro_until_ = sim_now();
    finish_in_maestro(lane);
    return;
  }
  // Handled as the engine would: at its landing's own date plus the delay,
  // in the round where the engine's sleep would end (s4bxi::call_at).
  lane.maestro_until_ = lane.in_maestro_message_->landed_at + lane.delay_s_;
  lane.maestro_call_ = s4bxi::call_at(lane.maestro_until_, [this, &lane] { finish_in_maestro(lane); });
}

void Wire::finish_in_maestro(RxLane& lane)
{
  in_maestro_pending_--;
  MessagePtr message = std::move(lane.in_maestro_message_);
  if (lane.in_maestro_(message)) {
    handled_in_maestro_++;
  } else {
    // Its delay has run: the engine handles it at once, before what landed since.
    lane.arrived_.push_front({std::move(message), nullptr, true});
    sent_back_to_engines_++;
  }
  lane.maestro_busy_ = false;
  lane.free_at_ = sim_now();
  lane.wake_if_waiting();
  // (As the engine's wake-up at the end of its sleep would: the poll
  // sentinel looks again, now that this no longer keeps the simulation going.)
  for (const auto& callback : message_taken_callbacks())
    callback();
}

void Wire::ended(const void* activity, bool finished)
{
  auto found = on_the_wire_.find(activity);
  if (found == on_the_wire_.end())
    return; // not a message's (a PCIe transfer)
  CarriedMessage* carried = found->second;
  on_the_wire_.erase(found);
  way_ended(carried, finished);
}

void Wire::way_ended(CarriedMessage* carried, bool finished)
{
  if (carried->counted_on != nullptr) {
    for (const auto* link : *carried->counted_on)
      running_on_link_[link]--;
    carried->counted_on = nullptr;
  }
  RxLane& lane = *carried->lane;
  auto from_source = lane.on_their_way_.find(carried->source);
  auto& [first, last] = from_source->second;
  MessagePtr lost;
  const LostHandler* lost_handler = carried->lost;
  const uint64_t lost_bytes = carried->bytes_on_wire;
  if (carried->sent != nullptr) {
    carried->sent->ended = true; // its sender may end it now
    carried->sent = nullptr;     // (and drops the record then)
  }
  if (finished) {
    carried->arrived = true;
    carried->message->landed_at = carried->lands_at >= 0 ? carried->lands_at : sim_now();
  } else {
    // Out of the source's list (its mailbox, if any, stays out of the pool:
    // it holds the failed communication). Lost if a link of its route went
    // off; dropped if nothing will handle it: its engine ended, or, through
    // a mailbox, its sender did (SimGrid cancels the communications an
    // actor sent through mailboxes when it ends, the NIC's engines at the
    // end of the job), its route whole.
    CarriedMessage* before = nullptr;
    for (CarriedMessage* at = first; at != carried; at = at->next_from_source)
      before = at;
    (before != nullptr ? before->next_from_source : first) = carried->next_from_source;
    if (last == carried)
      last = before;
    if (not lane.closed_ && not (carried->mailbox != nullptr && route_is_on(carried->from, lane.engine_->get_host())))
      lost = std::move(carried->message);
    free_slot(carried);
  }
  // The source's messages that have arrived, up to the first still on its
  // way, are the lane's now (or handled at once, in order, when the engine
  // would take them at once and spend no time on them).
  const std::size_t queued = lane.arrived_.size();
  std::vector<MessagePtr> handled_now;
  MessagePtr to_maestro;
  bool maestro_delay_ran = false;
  while (first != nullptr && first->arrived) {
    CarriedMessage* next = first->next_from_source;
    if (lane.handled_at_landing(*first->message, first->mailbox)) {
      handled_now.push_back(std::move(first->message));
    } else if (lane.goes_to_maestro(*first)) {
      maestro_delay_ran = first->handed_late;
      to_maestro = std::move(first->message);
      lane.maestro_busy_ = true; // (what follows it waits for the engine: start_in_maestro below)
    } else {
      lane.arrived_.push_back({std::move(first->message), first->mailbox, first->handed_late});
    }
    free_slot(first);
    first = next;
  }
  if (first == nullptr)
    lane.on_their_way_.erase(from_source);
  if (lane.arrived_.size() > queued)
    lane.wake_if_waiting();
  handled_at_landing_ += handled_now.size();
  for (MessagePtr& message : handled_now) {
    lane.at_landing_(std::move(message));
    for (const auto& callback : message_taken_callbacks())
      callback();
  }
  if (to_maestro) {
    lane.maestro_busy_ = false; // (set again there; after those at landing, which came before it)
    start_in_maestro(lane, std::move(to_maestro), maestro_delay_ran);
  }
  if (lost)
    (*lost_handler)(*lost, lost_bytes);
}

void Wire::actor_ended(aid_t pid)
{
  auto found = engines_.find(pid);
  if (found == engines_.end())
    return;
  RxLane& lane = *found->second;
  engines_.erase(found);
  lane.closed_ = true;
  if (lane.maestro_busy_) { // (nothing handles it any more)
    s4bxi::cancel_call(lane.maestro_call_);
    lane.in_maestro_message_.reset();
    lane.maestro_busy_ = false;
    in_maestro_pending_--;
  }
  // (Each cancel ends its communication at once, through ended(): the lists
  // change under it.)
  std::vector<s4u::CommPtr> running;
  std::vector<CarriedMessage*> alone;
  for (const auto& [source, from_source] : lane.on_their_way_)
    for (CarriedMessage* at = from_source.first; at != nullptr; at = at->next_from_source)
      if (at->arrived)
        continue;
      else if (at->landing != nullptr)
        alone.push_back(at);
      else
        running.push_back(at->comm);
  for (const auto& comm : running)
    comm->cancel();
  // (Their timers would keep the clock going too.)
  for (CarriedMessage* carried : alone)
    end_alone(carried, false);
}

bool Wire::route_is_on(const s4u::Host* from, const s4u::Host* to)
{
  std::vector<s4u::Link*> route;
  double latency = 0;
  from->route_to(to, route, &latency);
  return std::all_of(route.begin(), route.end(), [](const s4u::Link* link) { return link->is_on(); });
}

bool Wire::through_mailbox(const s4u::Host* from, const s4u::Host* to, const RxLane& lane,
                           bool links_may_fail) const
{
  // A mailbox communication goes from its sender's host to its receiver's:
  // from an actor on `from` (not maestro) to an engine on `to`.
  return mailboxes_beyond_ >= 0 && on_the_wire_.size() >= static_cast<std::size_t>(mailboxes_beyond_) &&
         not links_may_fail && lane.engine_ != nullptr && lane.engine_->get_host() == to &&
         not s4u::Actor::is_maestro() && s4u::this_actor::get_host() == from;
}

void Wire::end_sent_through_mailboxes()
{
  if (sent_through_mailboxes_.empty() || s4u::Actor::is_maestro())
    return;
  auto found = sent_through_mailboxes_.find(s4u::this_actor::get_pid());
  if (found == sent_through_mailboxes_.end())
    return;
  auto& mine = found->second;
  while (not mine.empty() && mine.front().ended) {
    try {
      mine.front().comm->wait(); // off the sender's list of activities
    } catch (const simgrid::Exception&) { // its route went off meanwhile
    }
    mine.pop_front();
  }
}

CarriedMessage* Wire::take_slot()
{
  if (free_.empty())
    return &slots_.emplace_back();
  CarriedMessage* slot = free_.back();
  free_.pop_back();
  // A slot freed at the end of its communication in this very round, before
  // SimGrid has finished that communication, taken by a message sent from
  // maestro then (at a timer of this date): the communication is kept until
  // time moves on, not dropped while it runs. (One through a mailbox stays
  // started until its sender ends it: its sender keeps it too.)
  if (slot->comm && slot->comm->get_state() == s4u::Activity::State::STARTED)
    ending_.push_back(std::move(slot->comm));
  return slot;
}

void Wire::free_slot(CarriedMessage* slot)
{
  // (Its communication stays: SimGrid still ends it after this.)
  slot->message.reset();
  slot->lost = nullptr;
  slot->lane = nullptr;
  slot->next_from_source = nullptr;
  slot->mailbox = nullptr;
  slot->sent = nullptr;
  slot->from = nullptr;
  slot->counted_on = nullptr;
  slot->landing = nullptr;
  free_.push_back(slot);
}

} // namespace s4bxi::nic
