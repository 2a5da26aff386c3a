// The bookkeeping of the NIC's end-to-end reliability (thesis 2.2.3 and
// 4.2.1; the engine itself is in e2e.cpp).
//
// Sender side: every message but BXI ACKs gets a sequence number per
// (source NIC, destination NIC) at its first transmission and an entry in one
// FIFO per NIC, dated by its retransmission deadline. The timeout is the same
// for every message of a NIC, so the FIFO is sorted by deadline and one E2E
// actor sleeping until the deadline of its head serves them all. An
// acknowledged entry leaves the FIFO at once, so a long timeout only holds
// the messages still unacknowledged.
//
// The E2E actor sleeps on a semaphore that a kernel timer, set for the
// deadline of the FIFO's head, releases: setting, moving or removing that
// timer as messages leave and are acknowledged costs no context switch, so
// the actor only runs when a deadline passes. With nothing unacknowledged no
// timer is pending, which keeps SimGrid's deadlock detection immediate.
//
// Receiver side: a window per source NIC tells a new sequence number from one
// already handled, so that a retransmission is acknowledged again but not
// applied twice; each message carries the lowest sequence number its sender
// still keeps (the floor), below which nothing can come again, which keeps the
// window small even when the sender gave up on a message.
#pragma once

#include "message.hpp"

#include <simgrid/forward.h>
#include <simgrid/s4u/Semaphore.hpp>

#include <cstdint>
#include <list>
#include <map>
#include <set>
#include <unordered_map>
#include <vector>

namespace s4bxi::nic {

class SequenceWindow {
public:
  // True if `seq` is new (it is then recorded), false if it was handled
  // already or lies below `floor`, the sender's lowest kept number.
  bool accept(uint64_t seq, uint64_t floor);
  // Every lower sequence number was handled or will never come again.
  [[nodiscard]] uint64_t floor() const { return next_; }
  // Numbers handled out of order, above a gap.
  [[nodiscard]] size_t out_of_order() const { return beyond_.size(); }

private:
  uint64_t next_ = 0;
  std::set<uint64_t> beyond_;
};

struct E2eEntry {
  MessagePtr message;
  double deadline = 0;
  bool retransmitting = false; // timed out, waiting in a TX queue to be sent again
};
using E2eEntries = std::list<E2eEntry>;

// The messages a NIC sent to one destination and keeps.
struct PeerE2e {
  uint64_t next_seq = 0;
  std::map<uint64_t, E2eEntries::iterator> unacked;

  [[nodiscard]] uint64_t floor() const { return unacked.empty() ? next_seq : unacked.begin()->first; }
};

// Per peer node, only for the peers a NIC has exchanged messages with: dense
// tables would cost every NIC an entry per node of the platform (O(nodes^2)
// in all, 160 MiB at 1,024 nodes).
struct E2eState {
  std::unordered_map<uint32_t, PeerE2e> peers;          // sender side, by destination node
  std::unordered_map<uint32_t, SequenceWindow> windows; // receiver side, by source node
  // Receiver side, by source node: the response sent for each request (by its
  // sequence number), kept until acknowledged, to answer a duplicate request.
  std::unordered_map<uint32_t, std::map<uint64_t, MessagePtr>> answers;
  E2eEntries fifo;           // sent and unacknowledged, by deadline
  E2eEntries retransmitting; // timed out, queued for TX again
  simgrid::s4u::SemaphorePtr wake;              // the E2E actor waits on it
  simgrid::kernel::timer::Timer* timer = nullptr; // releases `wake` at the head's deadline
  double timer_deadline = 0;
};

} // namespace s4bxi::nic
