#include "triggered.hpp"

#include "../nic/nic.hpp"
#include "event_delivery.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>


XBT_LOG_NEW_DEFAULT_CATEGORY(s4bxi_triggered, "Triggered operations released by the NIC");

namespace s4bxi::portals {

namespace {

// The MDs that a data movement holds (in flight since it was queued).
void release_buffers(RankPortals& rank, const nic::Message& message)
{
  NetworkInterface* ni = rank.ni(message.ni_slot);
  if (ni == nullptr || not message.op)
    return;
  for (ipc::Handle handle : {message.op->put.handle, message.op->get.handle}) {
    auto decoded = decode_handle(handle);
    if (not decoded)
      continue;
    if (MemoryDescriptor* md = ni->mds.find(decoded->index); md != nullptr && md->operations_in_flight > 0)
      md->operations_in_flight--;
  }
}

void execute(RankPortals& rank, NetworkInterface& ni, TriggeredOp& op)
{
  switch (op.kind) {
    case TriggeredOp::Kind::Message: {
      if (not rank.alive || rank.ni(op.message->ni_slot) == nullptr || ni.nic == nullptr)
        return; // its NI is gone: nothing left to report to
      XBT_DEBUG("rank %u: triggered operation released at threshold %llu", rank.rank,
                static_cast<unsigned long long>(op.threshold));
      ni.nic->inject(std::make_unique<nic::Message>(std::move(*op.message)));
      return;
    }
    case TriggeredOp::Kind::CTInc:
    case TriggeredOp::Kind::CTSet: {
      NetworkInterface* target_ni = nullptr;
      CountingEvent* target = find_counter(rank, op.ct, &target_ni);
      if (target == nullptr)
        return; // freed meanwhile
      ipc::CTEvent delta = op.value;
      if (op.kind == TriggeredOp::Kind::CTSet) {
        // The NIC writes the new value; as a difference with what it has
        // written so far, it lands after the increments already on their way
        // (unsigned arithmetic wraps to the exact value).
        ipc::CTEvent now = target->value;
        for (const auto& increment : target->pending) {
          now.success += increment.delta.success;
          now.failure += increment.delta.failure;
        }
        delta = {op.value.success - now.success, op.value.failure - now.failure};
      }
      post_counter(rank, *target_ni, *target, delta.success, delta.failure);
      return;
    }
  }
}

} // namespace

void add_triggered(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter, TriggeredOp op)
{
  op.sequence = ni.next_trigger_sequence++;
  const std::pair<uint64_t, uint64_t> key{op.threshold, op.sequence};
  counter.triggered.emplace(key, std::move(op));
  ni.triggered_ops++;
  release_triggered(rank, ni, counter);
}

void release_triggered(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter)
{
  // Re-read on every turn: an operation released here may update this very
  // counter (a triggered PtlCTInc on itself) and release more, in order.
  while (not counter.triggered.empty() && counter.triggered.begin()->first.first <= counter.nic_count()) {
    TriggeredOp op = std::move(counter.triggered.begin()->second);
    counter.triggered.erase(counter.triggered.begin());
    ni.triggered_ops--;
    execute(rank, ni, op);
  }
}

void cancel_triggered(RankPortals& rank, NetworkInterface& ni, CountingEvent& counter)
{
  std::map<std::pair<uint64_t, uint64_t>, TriggeredOp> cancelled;
  cancelled.swap(counter.triggered);
  for (auto& [key, op] : cancelled) {
    ni.triggered_ops--;
    if (op.kind == TriggeredOp::Kind::Message)
      release_buffers(rank, *op.message);
  }
}

} // namespace s4bxi::portals
