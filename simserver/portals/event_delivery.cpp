#include "event_delivery.hpp"

#include "../model_options.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace s4bxi::portals {

namespace {
constexpr double kEventBytes = 64; // one BXI event record
}

double event_landing_time()
{
  return simgrid::s4u::Engine::get_clock() + options::pci_latency_s() + kEventBytes / options::pci_bandwidth_Bps();
}

void post_event(RankPortals& rank, NetworkInterface& ni, ipc::Handle eq, const ipc::Event& event)
{
  auto decoded = decode_handle(eq);
  if (not decoded || decoded->kind != HandleKind::EQ)
    return;
  EventQueue* queue = ni.eqs.find(decoded->index);
  if (queue == nullptr)
    return;
  if (queue->events.size() >= queue->capacity) {
    queue->dropped = true;
  } else {
    queue->events.push_back({event_landing_time(), event});
  }
  rank.notify();
}

void post_counter(RankPortals& rank, NetworkInterface& ni, ipc::Handle ct, uint64_t success, uint64_t failure)
{
  auto decoded = decode_handle(ct);
  if (not decoded || decoded->kind != HandleKind::CT)
    return;
  CountingEvent* counter = ni.cts.find(decoded->index);
  if (counter == nullptr)
    return;
  counter->pending.push_back({event_landing_time(), {success, failure}});
  rank.notify();
}

} // namespace s4bxi::portals
