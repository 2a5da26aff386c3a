// Data movement. The payload never travels through the channel: the server
// reads it from the MD (which only it knows) at the simulated moment of the
// NIC's DMA read, so a program that changes its buffer after the call sees the
// behaviour of a real NIC.
#include "export.hpp"
#include "portals_api_forward.hpp"

using namespace s4bxi;
using namespace s4bxi::preload;
using ipc::Op;

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
  auto& args = request.args.put;
  args.md = abi::handle_to_wire(md_handle);
  args.ack_req = *wire_ack;
  args.local_offset = local_offset;
  args.length = length;
  args.target = abi::process_to_wire(target_id);
  args.pt_index = pt_index;
  args.inline_length = 0; // this library does not know where the MD's bytes are
  args.match_bits = match_bits;
  args.remote_offset = remote_offset;
  args.user_ptr = abi::address_of(user_ptr);
  args.hdr_data = hdr_data;
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
  auto& args = request.args.get;
  args.md = abi::handle_to_wire(md_handle);
  args.local_offset = local_offset;
  args.length = length;
  args.target = abi::process_to_wire(target_id);
  args.pt_index = pt_index;
  args.match_bits = match_bits;
  args.remote_offset = remote_offset;
  args.user_ptr = abi::address_of(user_ptr);
  ipc::Reply reply;
  return api::forward(request, reply);
}

} // extern "C"
