// How the NIC hands full and counting events to a rank: the event is written to
// host memory over PCIe, so it becomes visible a PCIe write later; a full EQ
// loses the event and remembers it (PTL_EQ_DROPPED on the next read).
#pragma once

#include "../world.hpp"

namespace s4bxi::portals {

// Simulated time at which an event or counter update written now lands in host memory.
double event_landing_time();
double event_landing_time(const RankPortals& rank); // with the PCIe parameters of the rank's node

// What a process may know of its event queues between two calls
// (ipc::Reply::horizon, ipc::QueueMirror): every queue of `rank`, its first
// events and when they land. Returns the horizon: before it, no event the
// NIC writes from now on can land, so the queues hold what `mirror` shows.
double mirror_queues(RankPortals& rank, ipc::QueueMirror& mirror);

// Both ignore kHandleNone and handles that no longer exist (freed meanwhile).
// `reserved`: the event uses the slot every EQ keeps for PTL_EVENT_PT_DISABLED,
// so it is delivered even when the queue is full. Returns the event as
// queued, or nullptr when none was (no queue; a full one: lost).
const PendingEvent* post_event(RankPortals& rank, NetworkInterface& ni, ipc::Handle eq, const ipc::Event& event,
                               bool reserved = false);
// Adds to a counter, then releases the triggered operations that the new
// count reaches.
void post_counter(RankPortals& rank, NetworkInterface& ni, ipc::Handle ct, uint64_t success, uint64_t failure);
void post_counter(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter, uint64_t success,
                  uint64_t failure);

// True if `eq` names an existing EQ that has no room for one more event.
bool eq_full(NetworkInterface& ni, ipc::Handle eq);

// The counting event named by `ct` (of any NI of the rank), or nullptr.
CountingEvent* find_counter(RankPortals& rank, ipc::Handle ct, NetworkInterface** ni_out = nullptr);

// The name a program knows for `fail` (ptl_ni_fail_t), for messages.
const char* fail_name(ipc::FailKind fail);

} // namespace s4bxi::portals
