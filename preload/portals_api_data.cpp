// Data movement: PtlPut, PtlGet, the atomics and their triggered variants.
// The payload never travels through the channel: the server reads it from the
// MD (which only it knows) at the simulated moment of the NIC's DMA read, so a
// program that changes its buffer after the call sees the behaviour of a real
// NIC. Only PtlSwap's operand (one datatype item) rides in the request, and
// the payload of a small PtlPut that the process queues itself, which a BXI
// CPU writes into the command during the call anyway (queued_puts.hpp).
#include "abi_convert_atomics.hpp"
#include "export.hpp"
#include "huge_pages.hpp"
#include "portals_api_forward.hpp"
#include "queued_puts.hpp"

#include <cstring>

using namespace s4bxi;
using namespace s4bxi::preload;
using ipc::Op;

namespace {

void encode_put(ipc::PutArgs& args, ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                ipc::AckRequest ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data)
{
  args.md = abi::handle_to_wire(md_handle);
  args.ack_req = ack_req;
  args.local_offset = local_offset;
  args.length = length;
  args.target = abi::process_to_wire(target_id);
  args.pt_index = pt_index;
  args.captured_length = 0; // this library does not know where the MD's bytes are
  args.match_bits = match_bits;
  args.remote_offset = remote_offset;
  args.user_ptr = abi::address_of(user_ptr);
  args.hdr_data = hdr_data;
}

void encode_get(ipc::GetArgs& args, ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                ptl_size_t remote_offset, void* user_ptr)
{
  args.md = abi::handle_to_wire(md_handle);
  args.local_offset = local_offset;
  args.length = length;
  args.target = abi::process_to_wire(target_id);
  args.pt_index = pt_index;
  args.match_bits = match_bits;
  args.remote_offset = remote_offset;
  args.user_ptr = abi::address_of(user_ptr);
}

// What PtlAtomic, PtlFetchAtomic and PtlSwap have in common (PtlAtomic has no
// get MD: PTL_INVALID_HANDLE, never looked at). Returns PTL_ARG_INVALID for an
// operation or datatype without a name in the ABI, or a missing operand.
struct AtomicCall {
  ptl_handle_md_t get_md;
  ptl_size_t local_get_offset;
  ptl_handle_md_t put_md;
  ptl_size_t local_put_offset;
  ptl_size_t length;
  ipc::AckRequest ack_req;
  ptl_process_t target_id;
  ptl_pt_index_t pt_index;
  ptl_match_bits_t match_bits;
  ptl_size_t remote_offset;
  void* user_ptr;
  ptl_hdr_data_t hdr_data;
  const void* operand; // PtlSwap only
  ptl_op_t operation;
  ptl_datatype_t datatype;
};

int encode_atomic(ipc::AtomicArgs& args, const AtomicCall& call, bool swap)
{
  auto operation = abi::atomic_op_to_wire(call.operation);
  auto datatype = abi::atomic_type_to_wire(call.datatype);
  if (not operation or not datatype)
    return PTL_ARG_INVALID;
  args.put_md = abi::handle_to_wire(call.put_md);
  args.get_md = abi::handle_to_wire(call.get_md);
  args.local_put_offset = call.local_put_offset;
  args.local_get_offset = call.local_get_offset;
  args.length = call.length;
  args.target = abi::process_to_wire(call.target_id);
  args.pt_index = call.pt_index;
  args.ack_req = call.ack_req;
  args.match_bits = call.match_bits;
  args.remote_offset = call.remote_offset;
  args.user_ptr = abi::address_of(call.user_ptr);
  args.hdr_data = call.hdr_data;
  args.operation = *operation;
  args.datatype = *datatype;
  if (swap and abi::atomic_op_uses_operand(*operation)) {
    if (call.operand == nullptr)
      return PTL_ARG_INVALID;
    std::memcpy(args.operand, call.operand, abi::atomic_item_size(*datatype));
  }
  return PTL_OK;
}

int forward_atomic(Op op, const AtomicCall& call, bool swap)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(op);
  int rc = encode_atomic(request.args.atomic, call, swap);
  if (rc != PTL_OK)
    return rc;
  ipc::Reply reply;
  return api::forward(request, reply);
}

int forward_triggered_atomic(Op op, const AtomicCall& call, bool swap, ptl_handle_ct_t trig_ct_handle,
                             ptl_size_t threshold)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(op);
  int rc = encode_atomic(request.args.triggered_atomic.atomic, call, swap);
  if (rc != PTL_OK)
    return rc;
  request.args.triggered_atomic.trigger = {abi::ct_to_wire(trig_ct_handle), 0, threshold};
  ipc::Reply reply;
  return api::forward(request, reply);
}

// The local side of a Put or a Get on huge pages (huge_pages.hpp), where it
// is large enough: only then is the MD table (and its lock) looked at, not
// on every small message.
void back_local_side(ipc::Handle md, uint64_t offset, uint64_t length)
{
  if (not huge_pages::worth_backing(length))
    return;
  if (const uint64_t address = queued_puts::md_address(md, offset); address != 0)
    huge_pages::back(address, length);
}

} // namespace

extern "C" {

S4BXI_EXPORT int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length, ptl_ack_req_t ack_req,
                        ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                        ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data)
{
  if (not client::attached())
    return api::not_attached();
  auto wire_ack = abi::ack_to_wire(ack_req);
  if (not wire_ack)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::Put);
  encode_put(request.args.put, md_handle, local_offset, length, *wire_ack, target_id, pt_index, match_bits,
             remote_offset, user_ptr, hdr_data);
  back_local_side(request.args.put.md, local_offset, length);
  if (client::queue_put(request.args.put))
    return PTL_OK; // checked here; the server runs it with the next call (queued_puts.hpp)
  request.args.put.captured_length = 0;
  ipc::Reply reply;
  return api::forward(request, reply);
}

S4BXI_EXPORT int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                        ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                        ptl_size_t remote_offset, void* user_ptr)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(Op::Get);
  encode_get(request.args.get, md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset,
             user_ptr);
  back_local_side(request.args.get.md, local_offset, length);
  ipc::Reply reply;
  return api::forward(request, reply);
}

S4BXI_EXPORT int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                           ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                           ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
  auto wire_ack = abi::ack_to_wire(ack_req);
  if (client::attached() and not wire_ack)
    return PTL_ARG_INVALID;
  return forward_atomic(Op::Atomic,
                        {PTL_INVALID_HANDLE, 0, md_handle, local_offset, length,
                         wire_ack.value_or(ipc::AckRequest::None), target_id, pt_index, match_bits, remote_offset,
                         user_ptr, hdr_data, nullptr, operation, datatype},
                        false);
}

S4BXI_EXPORT int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                                ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                                ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                                ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                                ptl_op_t operation, ptl_datatype_t datatype)
{
  return forward_atomic(Op::FetchAtomic,
                        {get_md_handle, local_get_offset, put_md_handle, local_put_offset, length,
                         ipc::AckRequest::None, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data,
                         nullptr, operation, datatype},
                        false);
}

S4BXI_EXPORT int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                         ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id,
                         ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                         void* user_ptr, ptl_hdr_data_t hdr_data, const void* operand, ptl_op_t operation,
                         ptl_datatype_t datatype)
{
  return forward_atomic(Op::Swap,
                        {get_md_handle, local_get_offset, put_md_handle, local_put_offset, length,
                         ipc::AckRequest::None, target_id, pt_index, match_bits, remote_offset, user_ptr, hdr_data,
                         operand, operation, datatype},
                        true);
}

// The server decides (it also answers PTL_NO_INIT before PtlInit).
S4BXI_EXPORT int PtlAtomicSync(void)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(Op::AtomicSync);
  ipc::Reply reply;
  return api::forward(request, reply);
}

S4BXI_EXPORT int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                                 ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                                 ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                                 ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  if (not client::attached())
    return api::not_attached();
  auto wire_ack = abi::ack_to_wire(ack_req);
  if (not wire_ack)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::TriggeredPut);
  encode_put(request.args.triggered_put.put, md_handle, local_offset, length, *wire_ack, target_id, pt_index,
             match_bits, remote_offset, user_ptr, hdr_data);
  request.args.triggered_put.trigger = {abi::ct_to_wire(trig_ct_handle), 0, threshold};
  ipc::Reply reply;
  return api::forward(request, reply);
}

S4BXI_EXPORT int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                                 ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                                 ptl_size_t remote_offset, void* user_ptr, ptl_handle_ct_t trig_ct_handle,
                                 ptl_size_t threshold)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(Op::TriggeredGet);
  encode_get(request.args.triggered_get.get, md_handle, local_offset, length, target_id, pt_index, match_bits,
             remote_offset, user_ptr);
  request.args.triggered_get.trigger = {abi::ct_to_wire(trig_ct_handle), 0, threshold};
  ipc::Reply reply;
  return api::forward(request, reply);
}

S4BXI_EXPORT int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                                    ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                                    ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                                    ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  auto wire_ack = abi::ack_to_wire(ack_req);
  if (client::attached() and not wire_ack)
    return PTL_ARG_INVALID;
  return forward_triggered_atomic(Op::TriggeredAtomic,
                                  {PTL_INVALID_HANDLE, 0, md_handle, local_offset, length,
                                   wire_ack.value_or(ipc::AckRequest::None), target_id, pt_index, match_bits,
                                   remote_offset, user_ptr, hdr_data, nullptr, operation, datatype},
                                  false, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                                         ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                                         ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                                         ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                                         ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                                         ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return forward_triggered_atomic(Op::TriggeredFetchAtomic,
                                  {get_md_handle, local_get_offset, put_md_handle, local_put_offset, length,
                                   ipc::AckRequest::None, target_id, pt_index, match_bits, remote_offset, user_ptr,
                                   hdr_data, nullptr, operation, datatype},
                                  false, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                                  ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                                  ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                                  ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                                  const void* operand, ptl_op_t operation, ptl_datatype_t datatype,
                                  ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return forward_triggered_atomic(Op::TriggeredSwap,
                                  {get_md_handle, local_get_offset, put_md_handle, local_put_offset, length,
                                   ipc::AckRequest::None, target_id, pt_index, match_bits, remote_offset, user_ptr,
                                   hdr_data, operand, operation, datatype},
                                  true, trig_ct_handle, threshold);
}

} // extern "C"
