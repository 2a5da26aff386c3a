// Empty polls answered by the process itself, without a round trip.
//
// Every reply carries a horizon: the simulated time before which none of the
// rank's event queues can show an event it does not show at the reply (an
// event the NIC writes later lands a PCIe write later). A PtlEQGet, or a
// PtlEQPoll with a zero timeout, of queues that were empty then finds them
// empty as long as its poll period ends before the horizon: the process
// answers PTL_EQ_EMPTY itself, its clock moves on by the poll cost, and the
// next request tells the server how many such polls it made, of which
// queues, and the compute between them. The server charges them exactly as
// if they had been sent one by one (the same simulated times, the same poll
// streak), before it handles that request. A poll that the server would
// block (s4bxi/poll-block-after) always goes to the server: the program sees
// the same polls, with or without local answers.
//
// Everything here runs under the channel mutex (rank_client.cpp).
#pragma once

#include "protocol.hpp"

#include <span>

namespace s4bxi::preload::local_polls {

// What a request and its reply taught about the rank's queues, and the
// horizon of the reply. Called once per exchange.
void on_exchange(const ipc::Request& request, const ipc::Reply& reply);

// The polls answered since the previous request, for the next one; the
// record starts again empty.
ipc::LocalPolls take_report();

// Answers an empty poll of `queues` if that is certain (see above) and the
// server would not have blocked it (its poll streak reaching
// `poll_block_after`); false when the server must answer.
bool answer_empty(std::span<const ipc::Handle> queues, int64_t poll_cost_ns, int64_t poll_block_after);

} // namespace s4bxi::preload::local_polls
