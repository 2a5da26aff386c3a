// How the NIC hands full and counting events to a rank: the event is written to
// host memory over PCIe, so it becomes visible a PCIe write later; a full EQ
// loses the event and remembers it (PTL_EQ_DROPPED on the next read).
#pragma once

#include "../world.hpp"

namespace s4bxi::portals {

// Simulated time at which an event or counter update written now lands in host memory.
double event_landing_time();

// Both ignore kHandleNone and handles that no longer exist (freed meanwhile).
void post_event(RankPortals& rank, NetworkInterface& ni, ipc::Handle eq, const ipc::Event& event);
void post_counter(RankPortals& rank, NetworkInterface& ni, ipc::Handle ct, uint64_t success, uint64_t failure);

} // namespace s4bxi::portals
