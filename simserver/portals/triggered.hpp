// Triggered operations (PtlTriggered*, PtlCTCancelTriggered): operations that
// the NIC keeps with a counting event and issues itself when the counter's
// success + failure reaches their threshold, in threshold order (issue order
// among equal thresholds). Since they already sit on the NIC, they cost no
// PCIe command write when they go; a data movement reads its payload from host
// memory then (the buffer's state at release time, as the specification asks).
#pragma once

#include "../world.hpp"

namespace s4bxi::portals {

// Queues `op` on `counter` (of NI `ni`) and releases it at once if the count
// already reaches its threshold.
void add_triggered(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter, TriggeredOp op);

// Issues, in order, the operations of `counter` whose threshold the NIC's
// count has reached.
void release_triggered(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter);

// Destroys every pending operation of `counter` without issuing it; data
// movements give their MDs back.
void cancel_triggered(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter);

} // namespace s4bxi::portals
