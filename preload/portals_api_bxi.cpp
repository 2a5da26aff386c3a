// The calls that only BXI's portals4.h has (built into the BXI flavour only).
//
// The non-blocking variants may answer PTL_TRY_AGAIN where the blocking call
// would wait for a NIC resource. The emulator's calls never wait for one (the
// command queue of the model is in the server, behind the call), so each
// variant is its blocking call.
//
// The activation hooks, the asynchronous EQ allocation and the hardware id
// have no counterpart in the emulator: like the other calls the protocol does
// not carry, each says once that it is not supported and fails with PTL_FAIL.
#include "export.hpp"
#include "portals_api_forward.hpp"

#include <atomic>
#include <string>
#include <unistd.h>

static_assert(s4bxi::preload::abi::kBxiAbi, "portals_api_bxi.cpp belongs to the BXI flavour only");

using namespace s4bxi::preload;

namespace {

int not_in_emulator(std::atomic<bool>& said, const char* name)
{
  if (not client::attached())
    return api::not_attached();
  if (not said.exchange(true)) {
    std::string text = std::string("libportals (s4bxi): ") + name +
                       " (a BXI extension) is not supported by the emulator; the call returns PTL_FAIL\n";
    [[maybe_unused]] ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  }
  return PTL_FAIL;
}

} // namespace

extern "C" {

S4BXI_EXPORT int PtlNIAtomicSync(ptl_handle_ni_t)
{
  // Atomics are applied by the serialized server: as for PtlAtomicSync,
  // there is never anything to wait for.
  return PtlAtomicSync();
}

S4BXI_EXPORT int PtlPTEnableNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return PtlPTEnable(ni_handle, pt_index);
}

S4BXI_EXPORT int PtlPTDisableNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return PtlPTDisable(ni_handle, pt_index);
}

S4BXI_EXPORT int PtlLEAppendNB(ptl_handle_ni_t ni_handle, ptl_index_t pt_index, const ptl_le_t* le,
                               ptl_list_t ptl_list, void* user_ptr, ptl_handle_le_t* le_handle)
{
  return PtlLEAppend(ni_handle, pt_index, le, ptl_list, user_ptr, le_handle);
}

S4BXI_EXPORT int PtlLESearchNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le,
                               ptl_search_op_t ptl_search_op, void* user_ptr)
{
  return PtlLESearch(ni_handle, pt_index, le, ptl_search_op, user_ptr);
}

S4BXI_EXPORT int PtlMEAppendNB(ptl_handle_ni_t ni_handle, ptl_index_t pt_index, const ptl_me_t* me,
                               ptl_list_t ptl_list, void* user_ptr, ptl_handle_me_t* me_handle)
{
  return PtlMEAppend(ni_handle, pt_index, me, ptl_list, user_ptr, me_handle);
}

S4BXI_EXPORT int PtlMESearchNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me,
                               ptl_search_op_t ptl_search_op, void* user_ptr)
{
  return PtlMESearch(ni_handle, pt_index, me, ptl_search_op, user_ptr);
}

S4BXI_EXPORT int PtlMDBindNB(ptl_handle_ni_t ni_handle, const ptl_md_t* md, ptl_handle_md_t* md_handle)
{
  return PtlMDBind(ni_handle, md, md_handle);
}

S4BXI_EXPORT int PtlPutNB(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                          ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_index_t pt_index,
                          ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                          ptl_hdr_data_t hdr_data)
{
  return PtlPut(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset, user_ptr,
                hdr_data);
}

S4BXI_EXPORT int PtlGetNB(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                          ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                          ptl_size_t remote_offset, void* user_ptr)
{
  return PtlGet(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr);
}

S4BXI_EXPORT int PtlAtomicNB(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                             ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                             ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                             ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype)
{
  return PtlAtomic(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset, user_ptr,
                   hdr_data, operation, datatype);
}

S4BXI_EXPORT int PtlFetchAtomicNB(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                                  ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                                  ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                                  ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                                  ptl_op_t operation, ptl_datatype_t datatype)
{
  return PtlFetchAtomic(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id, pt_index,
                        match_bits, remote_offset, user_ptr, hdr_data, operation, datatype);
}

S4BXI_EXPORT int PtlSwapNB(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset, ptl_handle_md_t put_md_handle,
                           ptl_size_t local_put_offset, ptl_size_t length, ptl_process_t target_id,
                           ptl_pt_index_t pt_index, ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                           void* user_ptr, ptl_hdr_data_t hdr_data, const void* operand, ptl_op_t operation,
                           ptl_datatype_t datatype)
{
  return PtlSwap(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id, pt_index,
                 match_bits, remote_offset, user_ptr, hdr_data, operand, operation, datatype);
}

S4BXI_EXPORT int PtlTriggeredPutNB(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                                   ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_index_t pt_index,
                                   ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                                   ptl_hdr_data_t hdr_data, ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return PtlTriggeredPut(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset,
                         user_ptr, hdr_data, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredGetNB(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                                   ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                                   ptl_size_t remote_offset, void* user_ptr, ptl_handle_ct_t trig_ct_handle,
                                   ptl_size_t threshold)
{
  return PtlTriggeredGet(md_handle, local_offset, length, target_id, pt_index, match_bits, remote_offset, user_ptr,
                         trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredAtomicNB(ptl_handle_md_t md_handle, ptl_size_t local_offset, ptl_size_t length,
                                      ptl_ack_req_t ack_req, ptl_process_t target_id, ptl_pt_index_t pt_index,
                                      ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                                      ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return PtlTriggeredAtomic(md_handle, local_offset, length, ack_req, target_id, pt_index, match_bits, remote_offset,
                            user_ptr, hdr_data, operation, datatype, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredFetchAtomicNB(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                                           ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                                           ptl_size_t length, ptl_process_t target_id, ptl_pt_index_t pt_index,
                                           ptl_match_bits_t match_bits, ptl_size_t remote_offset, void* user_ptr,
                                           ptl_hdr_data_t hdr_data, ptl_op_t operation, ptl_datatype_t datatype,
                                           ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return PtlTriggeredFetchAtomic(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id,
                                 pt_index, match_bits, remote_offset, user_ptr, hdr_data, operation, datatype,
                                 trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredSwapNB(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                                    ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset, ptl_size_t length,
                                    ptl_process_t target_id, ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                                    ptl_size_t remote_offset, void* user_ptr, ptl_hdr_data_t hdr_data,
                                    const void* operand, ptl_op_t operation, ptl_datatype_t datatype,
                                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return PtlTriggeredSwap(get_md_handle, local_get_offset, put_md_handle, local_put_offset, length, target_id,
                          pt_index, match_bits, remote_offset, user_ptr, hdr_data, operand, operation, datatype,
                          trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredCTSetNB(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct, ptl_handle_ct_t trig_ct_handle,
                                     ptl_size_t threshold)
{
  return PtlTriggeredCTSet(ct_handle, new_ct, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlTriggeredCTIncNB(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment,
                                     ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold)
{
  return PtlTriggeredCTInc(ct_handle, increment, trig_ct_handle, threshold);
}

S4BXI_EXPORT int PtlActivateHookAdd(void (*)(void*, unsigned int, int), void*, ptl_activate_hook_t*)
{
  static std::atomic<bool> said{false};
  return not_in_emulator(said, "PtlActivateHookAdd");
}

S4BXI_EXPORT int PtlActivateHookRemove(ptl_activate_hook_t)
{
  static std::atomic<bool> said{false};
  return not_in_emulator(said, "PtlActivateHookRemove");
}

S4BXI_EXPORT int PtlGetHwid(ptl_handle_ni_t, uint64_t*, uint64_t*)
{
  static std::atomic<bool> said{false};
  return not_in_emulator(said, "PtlGetHwid");
}

S4BXI_EXPORT int PtlEQAllocAsync(ptl_handle_ni_t, ptl_size_t, ptl_handle_eq_t*, void (*)(void*, ptl_handle_eq_t),
                                 void*, int)
{
  static std::atomic<bool> said{false};
  return not_in_emulator(said, "PtlEQAllocAsync");
}

// The emulated NI makes progress in the server, not through descriptors the
// program polls: it has none. A program that polls them before reading its
// EQs polls an empty set, then finds its events as usual.
S4BXI_EXPORT int PtlNFDs(ptl_handle_ni_t)
{
  return 0;
}

S4BXI_EXPORT int PtlPollFDs(ptl_handle_ni_t, struct pollfd*, int)
{
  return 0; // descriptors filled in
}

S4BXI_EXPORT int PtlPollEvents(ptl_handle_ni_t, struct pollfd*)
{
  return client::attached() ? PTL_OK : api::not_attached();
}

} // extern "C"
