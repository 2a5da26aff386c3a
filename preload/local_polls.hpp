// Polls answered by the process itself, without a round trip.
//
// With each reply the server writes the rank's event queues into the channel
// (ipc::QueueMirror: how many events each holds, the first of them and when
// each lands in host memory) and a horizon: the simulated time before which
// no event the NIC has not written yet can land (it lands a PCIe write after
// it is written). Until the horizon, the queues change only as the mirror
// says, so the process can settle a poll itself:
//  - an event that has landed by the rank's clock is taken at once, as the
//    server would (PtlEQGet, PtlEQPoll, PtlEQWait);
//  - else a PtlEQGet or zero-timeout PtlEQPoll takes a poll period (the poll
//    cost), at whose end an event may have landed, or the queues are empty;
//  - a poll that the server would block (s4bxi/poll-block-after) blocks
//    until the first event of a queue the streak watches lands, in whole
//    poll periods: answered here when the mirror shows that landing before
//    the horizon (the poll then takes that event, or finds nothing if it
//    landed in a queue it did not poll).
// The clock moves on as the server's would, and the next request tells the
// server each step (Channel::local_steps), which it replays before it handles
// that request: the same simulated times, the same poll streak, the same
// events taken, and a step that does not end as the process said ends the
// run. A poll whose outcome lies within a rounding error of a landing, a
// period's end or the horizon, or that watches what the mirror does not show,
// goes to the server: the program sees the same calls and results, with or
// without local answers.
//
// Everything here runs under the channel mutex (rank_client.cpp).
#pragma once

#include "protocol.hpp"
#include "queued_puts.hpp"
#include "segment.hpp"

#include <span>

namespace s4bxi::preload::local_polls {

// Learns the queues and the horizon from a reply (and the channel's mirror
// written with it), and starts the polls published in `published` again
// (ipc::PublishedPolls: where answer() publishes them). Called once per
// exchange.
void on_reply(const ipc::Reply& reply, const ipc::QueueMirror& mirror, ipc::PublishedPolls& published);

// The polls answered since the previous request, for the next one (their
// steps are already in `steps`); the record, and what is published of it,
// start again empty.
ipc::LocalPolls take_report();
// The same, without starting again: for a call queued between two polls
// (ipc::QueuedCall), which runs after these.
ipc::LocalPolls report_so_far();

// A call other than a poll, answered by the process itself (a queued
// append): it ends the poll streak, as in the server (portals/api.cpp).
void end_streak();

// A call of the process's own at `at_ns`, answered by the process itself (a
// queued append), may make the NIC write events from then on: they land a
// PCIe write later, which the horizon no longer goes beyond.
void note_own_call(int64_t at_ns);

// A Put of the process's own, queued with a forecast (queued_puts.hpp):
// whether the mirror can take it in (false: it cannot tell where the SEND
// event goes, its queue not shown whole or full, or it lands too close to
// the horizon); then, once the Put is queued, takes it in: it ends the poll
// streak, its SEND event (when it makes one) joins the end of its queue,
// landing when forecast, and no other event of it lands before
// `own_events_ns`, which the horizon no longer goes beyond.
bool expects_own_put(const queued_puts::Forecast& forecast);
void expect_own_put(const queued_puts::Forecast& forecast);

// An event the NIC writes for a call of the process's own at `at_ns`, alone
// (the LINK event of an append, queued_appends.hpp): when it lands, a PCIe
// write later; whether the mirror can take it in, into `eq` (as for a Put's
// SEND above); then takes it in. The horizon stays: the call makes no other
// event.
int64_t own_event_landing(int64_t at_ns);
bool expects_own_event(ipc::Handle eq, int64_t landing_ns);
void expect_own_event(ipc::Handle eq, int64_t landing_ns, const ipc::Event& event);

// The rounding margin between the process's clock and the server's, now.
int64_t rounding_margin_ns();

// The process's clock moved by compute that it counts in whole nanoseconds
// and the server does not: outcomes that close to a landing or the horizon
// are left to the server, one nanosecond more each time.
void note_truncated_compute();

struct Answer {
  enum Kind { ServerMust, Empty, Event } kind = ServerMust;
  ipc::Event event{};
  unsigned which = 0; // index in the polled queues of the one the event came from
};

// Settles a poll of `queues` if the mirror allows it: `wait` for PtlEQWait or
// a PtlEQPoll with a timeout (only an event already landed is answered),
// else a PtlEQGet or zero-timeout PtlEQPoll. Steps are written to `steps`
// and published (ipc::PublishedPolls): a poll after the server claimed the
// steps before it is left to the server.
Answer answer(std::span<const ipc::Handle> queues, bool wait, const ipc::ClockConfig& clock,
              ipc::LocalPollStep* steps);

} // namespace s4bxi::preload::local_polls
