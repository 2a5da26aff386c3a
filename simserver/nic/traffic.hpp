// What a NIC sends, by message kind: the report's per-NIC counts and the
// trace's message rows use the same kinds (trace/kinds.hpp).
#pragma once

#include "../trace/kinds.hpp"
#include "../trace/recorder.hpp"
#include "message.hpp"

#include <cstdint>

namespace s4bxi::nic {

struct Traffic {
  uint64_t messages = 0;
  uint64_t payload_bytes = 0;
  uint64_t wire_bytes = 0;
};

// A request that carries a payload is a Put on the wire whatever the
// operation; the operation tells Put from the atomics, and a Get response
// from the response of a fetching atomic.
inline trace::Kind kind_of(const Message& message)
{
  const bool atomic = message.op && message.op->op == portals::Operation::Atomic;
  const bool fetching = message.op && message.op->op == portals::Operation::FetchAtomic;
  switch (message.kind) {
    case Message::Kind::Put:
      return atomic ? trace::Kind::Atomic : fetching ? trace::Kind::FetchAtomic : trace::Kind::Put;
    case Message::Kind::Get: return trace::Kind::Get;
    case Message::Kind::Ack: return trace::Kind::Ack;
    case Message::Kind::GetResponse: return fetching ? trace::Kind::FetchAtomicResponse : trace::Kind::GetResponse;
    default: break;
  }
  return trace::Kind::BxiAck; // the only other kind: end-to-end reliability's own acknowledgments
}

// The rank whose operation a message belongs to (the initiator's), or -1.
inline int rank_of(const Message& message)
{
  return message.op ? static_cast<int>(message.op->rank) : -1;
}

// How many times E2E sent this message again, for the trace (a response sent
// again for a duplicate request is a copy of the kept one, not a retry).
inline int retry_of(const Message& message)
{
  return message.duplicate_answer ? 0 : message.retries;
}

// The trace's row of a message on the wire, sent by its source node.
inline trace::Event wire_event(const Message& message, uint64_t wire_bytes, double start, double end)
{
  return {.kind = kind_of(message),
          .node = message.src_nid,
          .rank = rank_of(message),
          .vn = static_cast<int>(message.network()),
          .bytes = message.payload.size(),
          .start = start,
          .end = end,
          .dst = static_cast<int>(message.dst_nid),
          .wire_bytes = wire_bytes,
          .retry = retry_of(message),
          .note = message.duplicate_answer ? "answer to a duplicate" : nullptr};
}

} // namespace s4bxi::nic
