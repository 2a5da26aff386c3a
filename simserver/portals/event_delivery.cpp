#include "event_delivery.hpp"

#include "../model_options.hpp"
#include "triggered.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace s4bxi::portals {

namespace {
constexpr double kEventBytes = 64; // one BXI event record

EventQueue* find_queue(NetworkInterface& ni, ipc::Handle eq)
{
  auto decoded = decode_handle(eq);
  if (not decoded || decoded->kind != HandleKind::EQ)
    return nullptr;
  return ni.eqs.find(decoded->index);
}
} // namespace

double event_landing_time()
{
  return simgrid::s4u::Engine::get_clock() + options::pci_latency_s() + kEventBytes / options::pci_bandwidth_Bps();
}

void post_event(RankPortals& rank, NetworkInterface& ni, ipc::Handle eq, const ipc::Event& event, bool reserved)
{
  EventQueue* queue = find_queue(ni, eq);
  if (queue == nullptr)
    return;
  if (queue->events.size() >= queue->capacity && not reserved) {
    queue->dropped = true;
  } else {
    queue->events.push_back({event_landing_time(), event});
  }
  rank.notify();
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
  counter.pending.push_back({event_landing_time(), {success, failure}});
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
