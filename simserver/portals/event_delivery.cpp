#include "event_delivery.hpp"

#include "../model_options.hpp"
#include "../nic/nic_parameters.hpp"
#include "../trace/recorder.hpp"
#include "triggered.hpp"
#include "../engine_clock.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <cstdint>

namespace s4bxi::portals {

namespace {

EventQueue* find_queue(NetworkInterface& ni, ipc::Handle eq)
{
  auto decoded = decode_handle(eq);
  if (not decoded || decoded->kind != HandleKind::EQ)
    return nullptr;
  return ni.eqs.find(decoded->index);
}

// The NIC writes an event into the rank's memory: it lands at `landing`.
void written(RankPortals& rank, double landing, const char* what)
{
  rank.stats.events_written++;
  if (trace::active != nullptr)
    trace::active->record({.kind = trace::Kind::PcieEvent,
                           .node = rank.node,
                           .rank = static_cast<int>(rank.rank),
                           .bytes = static_cast<uint64_t>(nic::kEventBytes),
                           .start = sim_now(),
                           .end = landing,
                           .what = what});
}

const char* event_name(ipc::EventKind kind)
{
  switch (kind) {
    case ipc::EventKind::Get: return "PTL_EVENT_GET";
    case ipc::EventKind::GetOverflow: return "PTL_EVENT_GET_OVERFLOW";
    case ipc::EventKind::Put: return "PTL_EVENT_PUT";
    case ipc::EventKind::PutOverflow: return "PTL_EVENT_PUT_OVERFLOW";
    case ipc::EventKind::Atomic: return "PTL_EVENT_ATOMIC";
    case ipc::EventKind::AtomicOverflow: return "PTL_EVENT_ATOMIC_OVERFLOW";
    case ipc::EventKind::FetchAtomic: return "PTL_EVENT_FETCH_ATOMIC";
    case ipc::EventKind::FetchAtomicOverflow: return "PTL_EVENT_FETCH_ATOMIC_OVERFLOW";
    case ipc::EventKind::Reply: return "PTL_EVENT_REPLY";
    case ipc::EventKind::Send: return "PTL_EVENT_SEND";
    case ipc::EventKind::Ack: return "PTL_EVENT_ACK";
    case ipc::EventKind::PtDisabled: return "PTL_EVENT_PT_DISABLED";
    case ipc::EventKind::Link: return "PTL_EVENT_LINK";
    case ipc::EventKind::AutoUnlink: return "PTL_EVENT_AUTO_UNLINK";
    case ipc::EventKind::AutoFree: return "PTL_EVENT_AUTO_FREE";
    case ipc::EventKind::Search: return "PTL_EVENT_SEARCH";
  }
  return "event";
}

} // namespace

const char* fail_name(ipc::FailKind fail)
{
  switch (fail) {
    case ipc::FailKind::Ok: return "PTL_NI_OK";
    case ipc::FailKind::Undeliverable: return "PTL_NI_UNDELIVERABLE";
    case ipc::FailKind::PtDisabled: return "PTL_NI_PT_DISABLED";
    case ipc::FailKind::Dropped: return "PTL_NI_DROPPED";
    case ipc::FailKind::PermViolation: return "PTL_NI_PERM_VIOLATION";
    case ipc::FailKind::OpViolation: return "PTL_NI_OP_VIOLATION";
    case ipc::FailKind::Segv: return "PTL_NI_SEGV";
    case ipc::FailKind::NoMatch: return "PTL_NI_NO_MATCH";
  }
  return "a failure";
}

double event_landing_time()
{
  return sim_now() + options::pci_latency_s() + nic::kEventBytes / options::pci_bandwidth_Bps();
}

// With the PCIe parameters of the rank's node.
double event_landing_time(const RankPortals& rank)
{
  const auto& node = nic::node_parameters(rank.node);
  return sim_now() + node.pci_latency_s + nic::kEventBytes / node.pci_bandwidth_Bps;
}

double mirror_queues(RankPortals& rank, ipc::QueueMirror& mirror)
{
  mirror.queue_count = 0;
  mirror.event_count = 0;
  for (auto& ni : rank.process().nis) {
    if (ni == nullptr)
      continue;
    ni->eqs.for_each([&](uint32_t index, EventQueue& queue) {
      if (mirror.queue_count++ >= ipc::kMaxMirroredQueues)
        return;
      ipc::MirroredQueue& entry = mirror.queues[mirror.queue_count - 1];
      entry.handle = encode_handle(HandleKind::EQ, ni->slot, index);
      entry.events = static_cast<uint32_t>(queue.events.size());
      entry.first = mirror.event_count;
      entry.mirrored = 0;
      entry.dropped = queue.dropped ? 1 : 0;
      entry.capacity = static_cast<uint32_t>(std::min<size_t>(queue.capacity, UINT32_MAX));
      for (const auto& pending : queue.events) {
        if (mirror.event_count == ipc::kMaxMirroredEvents)
          break;
        mirror.events[mirror.event_count++] = {pending.visible_at, pending.event};
        entry.mirrored++;
      }
    });
  }
  return event_landing_time(rank);
}

const PendingEvent* post_event(RankPortals& rank, NetworkInterface& ni, ipc::Handle eq, const ipc::Event& event,
                               bool reserved)
{
  EventQueue* queue = find_queue(ni, eq);
  if (queue == nullptr)
    return nullptr;
  const PendingEvent* posted = nullptr;
  if (queue->events.size() >= queue->capacity && not reserved) {
    queue->dropped = true;
  } else {
    queue->events.push_back({event_landing_time(rank), event, sim_now()});
    written(rank, queue->events.back().visible_at, event_name(event.type));
    posted = &queue->events.back();
  }
  rank.notify();
  return posted;
}

bool eq_full(NetworkInterface& ni, ipc::Handle eq)
{
  EventQueue* queue = find_queue(ni, eq);
  return queue != nullptr && queue->events.size() >= queue->capacity;
}

CountingEvent* find_counter(RankPortals& rank, ipc::Handle ct, NetworkInterface** ni_out)
{
  auto decoded = decode_handle(ct);
  if (not decoded || decoded->kind != HandleKind::CT)
    return nullptr;
  NetworkInterface* ni = rank.ni(decoded->ni);
  if (ni == nullptr)
    return nullptr;
  if (ni_out != nullptr)
    *ni_out = ni;
  return ni->cts.find(decoded->index);
}

void post_counter(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter, uint64_t success,
                  uint64_t failure)
{
  counter.pending.push_back({event_landing_time(rank), {success, failure}});
  written(rank, counter.pending.back().visible_at, "counter");
  rank.notify();
  release_triggered(rank, ni, counter);
}

void post_counter(RankPortals& rank, NetworkInterface& ni, ipc::Handle ct, uint64_t success, uint64_t failure)
{
  auto decoded = decode_handle(ct);
  if (not decoded || decoded->kind != HandleKind::CT)
    return;
  CountingEvent* counter = ni.cts.find(decoded->index);
  if (counter == nullptr)
    return;
  post_counter(rank, ni, *counter, success, failure);
}

} // namespace s4bxi::portals
