// Data movement: PtlPut, PtlGet, PtlAtomic, PtlFetchAtomic, PtlSwap. The
// arguments are checked here; the message then goes to the node's NIC.
#include "api.hpp"

#include "../model_options.hpp"
#include "../nic/nic.hpp"
#include "api_internal.hpp"
#include "atomics.hpp"
#include "memory_region.hpp"

#include <cstring>

namespace s4bxi::portals {

using detail::find_object;
using detail::status;
using ipc::Reply;
using ipc::Status;

Api::Transfer Api::transfer_of(const ipc::PutArgs& args)
{
  Transfer t;
  t.op = Operation::Put;
  t.put_md = args.md;
  t.local_put_offset = args.local_offset;
  t.length = args.length;
  t.target = args.target;
  t.pt_index = args.pt_index;
  t.match_bits = args.match_bits;
  t.remote_offset = args.remote_offset;
  t.user_ptr = args.user_ptr;
  t.hdr_data = args.hdr_data;
  t.ack_req = args.ack_req;
  return t;
}

Api::Transfer Api::transfer_of(const ipc::GetArgs& args)
{
  Transfer t;
  t.op = Operation::Get;
  t.get_md = args.md;
  t.local_get_offset = args.local_offset;
  t.length = args.length;
  t.target = args.target;
  t.pt_index = args.pt_index;
  t.match_bits = args.match_bits;
  t.remote_offset = args.remote_offset;
  t.user_ptr = args.user_ptr;
  return t;
}

Api::Transfer Api::transfer_of(const ipc::AtomicArgs& args, Operation op, bool swap)
{
  Transfer t;
  t.op = op;
  t.swap = swap;
  t.put_md = args.put_md;
  t.get_md = op == Operation::FetchAtomic ? args.get_md : ipc::kHandleNone;
  t.local_put_offset = args.local_put_offset;
  t.local_get_offset = args.local_get_offset;
  t.length = args.length;
  t.target = args.target;
  t.pt_index = args.pt_index;
  t.match_bits = args.match_bits;
  t.remote_offset = args.remote_offset;
  t.user_ptr = args.user_ptr;
  t.hdr_data = args.hdr_data;
  t.ack_req = op == Operation::Atomic ? args.ack_req : ipc::AckRequest::None;
  t.atomic_op = args.operation;
  t.atomic_type = args.datatype;
  t.operand = args.operand;
  return t;
}

namespace {

// Whether an atomic request is one the specification defines (PTL_ARG_INVALID otherwise).
bool valid_atomic(const Api::Transfer& t, const NetworkInterface& ni)
{
  using namespace atomics;
  if (not known(t.atomic_op) || not known(t.atomic_type) || is_swap(t.atomic_op) != t.swap ||
      not allowed(t.atomic_op, t.atomic_type))
    return false;
  // PtlAtomic is bounded by max_atomic_size; the operations that return data
  // by max_fetch_atomic_size; the conditional and masked swaps act on one item.
  const uint64_t limit = t.op == Operation::Atomic ? ni.limits.max_atomic_size : ni.limits.max_fetch_atomic_size;
  if (t.length > limit)
    return false;
  return not uses_operand(t.atomic_op) || t.length <= item_size(t.atomic_type);
}

nic::LocalBuffer local_buffer(ipc::Handle handle, const MemoryDescriptor& md, uint64_t offset)
{
  nic::LocalBuffer buffer;
  buffer.handle = handle;
  buffer.md = md.md;
  buffer.region = md.region;
  buffer.offset = offset;
  return buffer;
}

} // namespace

std::unique_ptr<nic::Message> Api::prepare(RankPortals& rank, const Transfer& t, Status& error)
{
  error = Status::ArgInvalid;
  const bool sends = t.op != Operation::Get;
  const bool receives = t.op == Operation::Get || t.op == Operation::FetchAtomic;
  NetworkInterface* ni = nullptr;
  MemoryDescriptor* put_md = nullptr;
  MemoryDescriptor* get_md = nullptr;
  if (sends && (put_md = find_object(rank, t.put_md, HandleKind::MD, &NetworkInterface::mds, &ni)) == nullptr)
    return nullptr;
  if (receives) {
    NetworkInterface* get_ni = nullptr;
    get_md = find_object(rank, t.get_md, HandleKind::MD, &NetworkInterface::mds, &get_ni);
    if (get_md == nullptr || (ni != nullptr && get_ni != ni))
      return nullptr; // both MDs must belong to one NI
    ni = get_ni;
  }
  auto fits = [&t](const MemoryDescriptor* md, uint64_t offset) {
    return offset <= md->md.length && t.length <= md->md.length - offset;
  };
  if ((sends && not fits(put_md, t.local_put_offset)) || (receives && not fits(get_md, t.local_get_offset)) ||
      t.length > ni->limits.max_msg_size || t.pt_index > static_cast<uint32_t>(ni->limits.max_pt_index))
    return nullptr;
  if (t.ack_req != ipc::AckRequest::None && t.ack_req != ipc::AckRequest::Ack &&
      t.ack_req != ipc::AckRequest::CtAck && t.ack_req != ipc::AckRequest::OcAck)
    return nullptr;
  const bool atomic = t.op == Operation::Atomic || t.op == Operation::FetchAtomic;
  if (atomic && not valid_atomic(t, *ni))
    return nullptr;
  // PTL_MD_UNRELIABLE: "only the put operation with no acknowledgment is
  // supported". The specification leaves the others (an acknowledged Put, a
  // Get, the atomics, their triggered forms) undefined: we refuse them
  // clearly rather than guess.
  const bool unreliable = (sends && (put_md->md.options & ipc::option::kMDUnreliable) != 0) ||
                          (receives && (get_md->md.options & ipc::option::kMDUnreliable) != 0);
  if (unreliable && (t.op != Operation::Put || t.ack_req != ipc::AckRequest::None))
    return nullptr;
  ipc::ProcessId target{}; // physical address of the target
  if (ni->logical) {
    if (t.target.rank_or_nid >= ni->map.size())
      return nullptr;
    target = ni->map[t.target.rank_or_nid];
  } else {
    target = t.target;
  }
  if (target.rank_or_nid < kFirstNid || target.rank_or_nid - kFirstNid >= world_.nodes.size())
    return nullptr; // no such node (a map entry may be wrong too)

  auto op = std::make_shared<nic::InitiatorOp>();
  op->rank = rank.rank;
  op->ni_slot = ni->slot;
  op->op = t.op;
  if (sends)
    op->put = local_buffer(t.put_md, *put_md, t.local_put_offset);
  if (receives)
    op->get = local_buffer(t.get_md, *get_md, t.local_get_offset);
  op->length = t.length;
  op->user_ptr = t.user_ptr;
  op->ack_req = t.ack_req;
  op->target = t.target;
  op->pt_index = t.pt_index;
  op->match_bits = t.match_bits;
  op->atomic_op = t.atomic_op;
  op->atomic_type = t.atomic_type;

  auto message = std::make_unique<nic::Message>();
  message->kind = sends ? nic::Message::Kind::Put : nic::Message::Kind::Get;
  message->src_nid = rank.node;
  message->dst_nid = target.rank_or_nid - kFirstNid;
  message->dst_pid = target.pid;
  message->ni_slot = ni->slot;
  message->pt_index = t.pt_index;
  message->hdr_data = t.hdr_data;
  message->ack_req = t.ack_req;
  message->header.op = t.op;
  message->header.initiator = {rank.nid(), rank.pid};
  message->header.initiator_rank = rank.rank;
  message->header.uid = rank.uid;
  message->header.match_bits = t.match_bits;
  message->header.rlength = t.length;
  message->header.remote_offset = t.remote_offset;
  if (atomic) {
    message->atomic_op = t.atomic_op;
    message->atomic_type = t.atomic_type;
    if (t.operand != nullptr && atomics::uses_operand(t.atomic_op))
      std::memcpy(message->operand.data(), t.operand, message->operand.size());
  }
  message->unreliable = unreliable;
  message->op = std::move(op);
  error = Status::Ok;
  return message;
}

Reply Api::issue(RankPortals& rank, std::unique_ptr<nic::Message> message, std::span<const unsigned char> captured)
{
  const nic::InitiatorOp& op = *message->op;
  uint64_t pio_bytes = 0;
  if (op.sends_data()) {
    // How the payload reaches the NIC depends on its size (thesis 4.3.3):
    // inline in the command, PIO (the CPU writes it), or DMA read by the NIC.
    const bool matching = rank.ni(message->ni_slot)->matching;
    const auto& node = world_.nics[rank.node]->parameters(); // the thresholds of the rank's node
    const uint64_t inline_limit = matching ? node.inline_limit_matching : node.inline_limit_plain;
    const uint64_t pio_limit = matching ? node.pio_limit_matching : node.pio_limit_plain;
    const uint64_t length = op.length;
    if (length <= pio_limit) {
      // A Put the process queued itself carries what the CPU writes (else
      // the program overwrote its channel: the proxy ends the run).
      if (rank.running_queued_put && captured.size() != length)
        return status(Status::ArgInvalid);
      message->payload.resize(length);
      if (captured.size() == length && length > 0)
        std::memcpy(message->payload.data(), captured.data(), length);
      else if (length > 0 &&
               not read_region(rank.os_pid, op.put.region, op.put.offset, message->payload.data(), length))
        return status(Status::ArgInvalid);
      if (length > inline_limit)
        pio_bytes = length - inline_limit;
    } else {
      message->payload_captured = false;
      message->needs_dma_read = true;
      message->payload_region = op.put.region;
      message->payload_offset = op.put.offset;
      message->payload_pid = rank.os_pid;
    }
    rank.stats.bytes_sent += length;
  }
  detail::hold_buffers(rank, op);
  answer_before_command(rank, *message, pio_bytes);
  world_.nics[rank.node]->submit(std::move(message), pio_bytes); // a Get request is a header only
  return status(Status::Ok);
}

// The call can no longer fail: the process may go on during the PCIe write of
// the command (and of a PIO payload) when nothing the NIC does can read or
// write its memory meanwhile (nic/memory_work.hpp), as nothing else of the
// simulation can reach the process. Its clock is synced at its next call, or
// before it reads it. Not when the NIC reads the payload by DMA as soon as the
// command is in (the process could change it first). (A pending triggered
// operation holds the units of the memories it will touch, api_triggered.cpp.)
void Api::answer_before_command(RankPortals& rank, const nic::Message& message, uint64_t pio_bytes)
{
  nic::Nic& nic = *world_.nics[rank.node];
  if (not rank.answer_early || not options::early_put_answer() || *rank.nic_memory_work != 0 ||
      message.needs_dma_read || not nic.parameters().model_pci_commands || not nic.early_answer_exact(pio_bytes))
    return;
  auto answer = std::move(rank.answer_early);
  rank.answer_early = nullptr;
  answer();
}

Reply Api::put(RankPortals& rank, const ipc::PutArgs& args)
{
  Status error;
  auto message = prepare(rank, transfer_of(args), error);
  if (not message)
    return status(error);
  if (rank.put_forecast != nullptr) // queued by the process with a forecast: checked at its SEND event
    message->op->forecast = *rank.put_forecast;
  // Queued by the process: the payload it captured in the call, which the
  // proxy checked holds all of it (empty for a Put the server was sent).
  return issue(rank, std::move(message), rank.queued_put_payload);
}

Reply Api::get(RankPortals& rank, const ipc::GetArgs& args)
{
  Status error;
  auto message = prepare(rank, transfer_of(args), error);
  if (not message)
    return status(error);
  return issue(rank, std::move(message));
}

Reply Api::atomic(RankPortals& rank, const ipc::AtomicArgs& args, Operation op, bool swap)
{
  Status error;
  auto message = prepare(rank, transfer_of(args, op, swap), error);
  if (not message)
    return status(error);
  return issue(rank, std::move(message));
}

} // namespace s4bxi::portals
