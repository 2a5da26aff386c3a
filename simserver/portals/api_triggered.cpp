// The triggered operations: PtlTriggeredPut/Get/Atomic/FetchAtomic/Swap,
// PtlTriggeredCTInc/CTSet and PtlCTCancelTriggered. The call checks its
// arguments as the plain call would, then hands the operation to the NIC
// (one PCIe command write), which keeps it with the counter (triggered.cpp).
#include "api.hpp"

#include "../nic/nic.hpp"
#include "api_internal.hpp"
#include "triggered.hpp"

namespace s4bxi::portals {

using detail::find_object;
using detail::status;
using ipc::Reply;
using ipc::Status;

namespace {

// The trigger counter: a CT of this rank, with room for one more pending
// operation on its NI.
CountingEvent* trigger_counter(RankPortals& rank, ipc::Handle ct, NetworkInterface** ni, Status& error)
{
  CountingEvent* counter = find_object(rank, ct, HandleKind::CT, &NetworkInterface::cts, ni);
  error = counter == nullptr ? Status::ArgInvalid : Status::Ok;
  if (counter != nullptr && (*ni)->triggered_ops >= static_cast<uint64_t>((*ni)->limits.max_triggered_ops))
    error = Status::NoSpace;
  return error == Status::Ok ? counter : nullptr;
}

} // namespace

Reply Api::triggered(RankPortals& rank, const Transfer& transfer, const ipc::TriggerArgs& trigger)
{
  NetworkInterface* trigger_ni = nullptr;
  Status error;
  CountingEvent* counter = trigger_counter(rank, trigger.ct, &trigger_ni, error);
  if (counter == nullptr)
    return status(error);
  auto message = prepare(rank, transfer, error);
  if (not message)
    return status(error);
  // The payload is whatever the buffer holds when the operation is
  // released: the NIC reads it then, by DMA, whatever its size.
  const nic::InitiatorOp& op = *message->op;
  if (op.sends_data()) {
    message->payload_captured = false;
    message->needs_dma_read = true;
    message->payload_region = op.put.region;
    message->payload_offset = op.put.offset;
    message->payload_pid = rank.os_pid;
    rank.stats.bytes_sent += op.length;
  }
  detail::hold_buffers(rank, op);
  // Until it is released (or cancelled), it may be released at any time by
  // the NIC and then touch its target's memory and this rank's (the payload):
  // neither rank is answered early meanwhile (nic/memory_work.hpp).
  trigger_ni->nic->take_memory_work(*message);
  // Other actors run during the command write, but only this rank, blocked
  // in this call, could free the counter or its NI: both stay valid.
  trigger_ni->nic->write_command();
  TriggeredOp pending;
  pending.kind = TriggeredOp::Kind::Message;
  pending.threshold = trigger.threshold;
  pending.message = std::move(message);
  add_triggered(rank, *trigger_ni, *counter, std::move(pending));
  return status(Status::Ok);
}

Reply Api::triggered_put(RankPortals& rank, const ipc::TriggeredPutArgs& args)
{
  return triggered(rank, transfer_of(args.put), args.trigger);
}

Reply Api::triggered_get(RankPortals& rank, const ipc::TriggeredGetArgs& args)
{
  return triggered(rank, transfer_of(args.get), args.trigger);
}

Reply Api::triggered_atomic(RankPortals& rank, const ipc::TriggeredAtomicArgs& args, Operation op, bool swap)
{
  return triggered(rank, transfer_of(args.atomic, op, swap), args.trigger);
}

Reply Api::triggered_ct(RankPortals& rank, const ipc::TriggeredCTArgs& args, bool increment)
{
  NetworkInterface* trigger_ni = nullptr;
  Status error;
  CountingEvent* counter = trigger_counter(rank, args.trigger.ct, &trigger_ni, error);
  if (counter == nullptr)
    return status(error);
  if (find_object(rank, args.update.ct, HandleKind::CT, &NetworkInterface::cts) == nullptr)
    return status(Status::ArgInvalid);
  if (increment && args.update.value.success != 0 && args.update.value.failure != 0)
    return status(Status::ArgInvalid); // as PtlCTInc: one of the two only
  trigger_ni->nic->write_command();
  TriggeredOp pending;
  pending.kind = increment ? TriggeredOp::Kind::CTInc : TriggeredOp::Kind::CTSet;
  pending.threshold = args.trigger.threshold;
  pending.ct = args.update.ct;
  pending.value = args.update.value;
  add_triggered(rank, *trigger_ni, *counter, std::move(pending));
  return status(Status::Ok);
}

Reply Api::ct_cancel_triggered(RankPortals& rank, ipc::Handle ct)
{
  NetworkInterface* ni = nullptr;
  CountingEvent* counter = find_object(rank, ct, HandleKind::CT, &NetworkInterface::cts, &ni);
  if (counter == nullptr)
    return status(Status::ArgInvalid);
  cancel_triggered(rank, *ni, *counter);
  return status(Status::Ok);
}

} // namespace s4bxi::portals
