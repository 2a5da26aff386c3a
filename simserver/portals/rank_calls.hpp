// The earliest simulated time at which any rank can make its next call, as
// seen at `now`: what bounds the messages that ranks' calls may still put
// on the wire (nic/landing_bounds.hpp, earliest_new_send).
//
// A rank whose process runs, or whose proxy serves a call, may call now. A
// proxy that waits in block_until (portals/api_waits.hpp) answers its
// process, which then calls, only once its wait ends:
// - a sleep to a landing ends at its date;
// - a wait for a change ends at its deadline, or once an event or a count
//   written for the rank lands (it sleeps from the write to the landing),
//   that is, no sooner than the earliest write of its node's NIC plus a PCIe
//   write of an event. That write may come from a message that a rank's call
//   sends, but no sooner than that call: the change waiters' own calls come
//   later than any of these bounds, so the writes are bounded with the calls
//   of the other ranks only.
// The threads of a process that call through lanes of their own count as
// ranks do (a PtlAbort is a call of one of them). A caller parked in the
// kernel, or a thread's lane that opens, comes from outside the simulation
// at a moment that real time decides: its call is served no sooner than the
// calls promised so far (LandingBounds::calls_promised_from, rank_proxy.cpp).
// A debugged rank may call now. The poll sentinel releases a blocked poll
// only once nothing is pending (poll_sentinel.hpp); the message whose way
// this bounds is pending until it lands.
#pragma once

#include "../world.hpp"

namespace s4bxi::portals {

[[nodiscard]] double earliest_rank_call(const World& world, double now);

} // namespace s4bxi::portals
