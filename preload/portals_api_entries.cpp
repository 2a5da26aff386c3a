// Portal table entries, memory descriptors, and list entries (ME and LE,
// appended, unlinked, or used to search the unexpected list).
// The descriptors are copied into the request: the server keeps them, and the
// program may reuse its own struct as soon as the call returns.
#include "abi_convert_atomics.hpp"
#include "export.hpp"
#include "huge_pages.hpp"
#include "ni_addressing.hpp"
#include "portals_api_forward.hpp"
#include "queued_puts.hpp"
#include "queued_unlinks.hpp"

#include <optional>

using namespace s4bxi;
using namespace s4bxi::preload;
using ipc::Op;

namespace {

int pt_call(Op op, ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  if (not client::attached())
    return api::not_attached();
  ipc::Request request = api::request_for(op);
  request.args.pt.ni = abi::handle_to_wire(ni_handle);
  request.args.pt.pt_index = pt_index;
  ipc::Reply reply;
  return api::forward(request, reply);
}

// PtlMEAppend and PtlLEAppend share one request; an LE is sent as a
// non-matching entry and the server ignores its match fields.
int append(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ipc::ListEntry& entry, ptl_list_t list,
           bool matching, void* user_ptr, ptl_handle_any_t* entry_handle)
{
  auto wire_list = abi::list_to_wire(list);
  if (not wire_list)
    return PTL_ARG_INVALID;
  // (An I/O vector entry's start is its vector: the server walks it.)
  if ((entry.options & ipc::option::kIovec) == 0)
    huge_pages::back_entry(entry.start, entry.length, (entry.options & ipc::option::kEntryUseOnce) != 0);
  ipc::Request request = api::request_for(Op::Append);
  auto& args = request.args.append;
  args.ni = abi::handle_to_wire(ni_handle);
  args.pt_index = pt_index;
  args.list = *wire_list;
  args.is_matching = matching ? 1 : 0;
  args.user_ptr = abi::address_of(user_ptr);
  args.entry = entry;
  if (const ipc::Handle queued = client::queue_append(args); queued != ipc::kHandleInvalid) {
    *entry_handle = abi::handle_from_wire(queued); // the server appends it with the next call
    queued_unlinks::note_entry(args.ni, queued, entry.options, entry.min_free);
    return PTL_OK;
  }
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK) {
    *entry_handle = abi::handle_from_wire(reply.result.handle);
    queued_unlinks::note_entry(args.ni, reply.result.handle, entry.options, entry.min_free);
  }
  return rc;
}

// PtlMEUnlink and PtlLEUnlink.
int unlink(ipc::Handle entry)
{
  if (client::attached() and client::queue_unlink(entry))
    return PTL_OK; // the server unlinks it with the next call (queued_unlinks.hpp)
  const int rc = api::forward_handle(Op::Unlink, entry);
  if (rc == PTL_OK)
    queued_unlinks::forget_entry(entry);
  return rc;
}

// The entry as the protocol carries it; empty when an option has no name.
std::optional<ipc::ListEntry> me_to_wire(ptl_handle_ni_t ni_handle, const ptl_me_t& me)
{
  auto wire_options = abi::options_to_wire(me.options, abi::kMEBits);
  if (not wire_options)
    return std::nullopt;
  ipc::ListEntry entry{};
  entry.start = abi::address_of(me.start);
  entry.length = me.length;
  entry.match_bits = me.match_bits;
  entry.ignore_bits = me.ignore_bits;
  entry.min_free = me.min_free;
  entry.match_id = abi::match_id_to_wire(me.match_id, ni_addressing::of(abi::handle_to_wire(ni_handle)));
  entry.uid = abi::uid_to_wire(me.uid);
  entry.options = *wire_options;
  entry.ct = abi::ct_to_wire(me.ct_handle);
  return entry;
}

std::optional<ipc::ListEntry> le_to_wire(const ptl_le_t& le)
{
  auto wire_options = abi::options_to_wire(le.options, abi::kLEBits);
  if (not wire_options)
    return std::nullopt;
  ipc::ListEntry entry{};
  entry.start = abi::address_of(le.start);
  entry.length = le.length;
  entry.match_id = ipc::ProcessId{abi::kWireRankAny, abi::kWirePidAny}; // an LE matches any initiator
  entry.uid = abi::uid_to_wire(le.uid);
  entry.options = *wire_options;
  entry.ct = abi::ct_to_wire(le.ct_handle);
  return entry;
}

// PtlMESearch and PtlLESearch: the entry is only a pattern, never linked.
int search(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ipc::ListEntry& entry, bool matching,
           ptl_search_op_t search_op, void* user_ptr)
{
  auto op = abi::search_op_to_wire(search_op);
  if (not op)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::Search);
  auto& args = request.args.search;
  args.ni = abi::handle_to_wire(ni_handle);
  args.pt_index = pt_index;
  args.op = *op;
  args.is_matching = matching ? 1 : 0;
  args.counting = abi::kSandiaCurrentAbi ? 1 : 0;
  args.user_ptr = abi::address_of(user_ptr);
  args.entry = entry;
  ipc::Reply reply;
  return api::forward(request, reply);
}

} // namespace

extern "C" {

S4BXI_EXPORT int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options, ptl_handle_eq_t eq_handle,
                            ptl_pt_index_t pt_index_req, ptl_pt_index_t* pt_index)
{
  if (not client::attached())
    return api::not_attached();
  auto wire_options = abi::options_to_wire(options, abi::kPTBits);
  if (pt_index == nullptr or not wire_options)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::PTAlloc);
  auto& args = request.args.pt_alloc;
  args.ni = abi::handle_to_wire(ni_handle);
  args.options = *wire_options;
  args.eq = abi::eq_to_wire(eq_handle);
  args.requested_index = abi::pt_index_to_wire(pt_index_req);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK)
    *pt_index = static_cast<ptl_pt_index_t>(reply.result.value);
  return rc;
}

S4BXI_EXPORT int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return pt_call(Op::PTFree, ni_handle, pt_index);
}

S4BXI_EXPORT int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return pt_call(Op::PTEnable, ni_handle, pt_index);
}

S4BXI_EXPORT int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index)
{
  return pt_call(Op::PTDisable, ni_handle, pt_index);
}

S4BXI_EXPORT int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t* md, ptl_handle_md_t* md_handle)
{
  if (not client::attached())
    return api::not_attached();
  if (md == nullptr or md_handle == nullptr)
    return PTL_ARG_INVALID;
  auto wire_options = abi::options_to_wire(md->options, abi::kMDBits);
  if (not wire_options)
    return PTL_ARG_INVALID;
  ipc::Request request = api::request_for(Op::MDBind);
  auto& args = request.args.md_bind;
  args.ni = abi::handle_to_wire(ni_handle);
  args.md.start = abi::address_of(md->start);
  args.md.length = md->length;
  args.md.options = *wire_options;
  args.md.eq = abi::eq_to_wire(md->eq_handle);
  args.md.ct = abi::ct_to_wire(md->ct_handle);
  ipc::Reply reply;
  int rc = api::forward(request, reply);
  if (rc == PTL_OK) {
    *md_handle = abi::handle_from_wire(reply.result.handle);
    queued_puts::note_md(reply.result.handle, args.ni, args.md);
  }
  return rc;
}

S4BXI_EXPORT int PtlMDRelease(ptl_handle_md_t md_handle)
{
  // Forgotten even if the release fails (PTL_IN_USE): Puts on it then go to
  // the server, which knows.
  queued_puts::forget_md(abi::handle_to_wire(md_handle));
  return api::forward_handle(Op::MDRelease, abi::handle_to_wire(md_handle));
}

S4BXI_EXPORT int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me,
                             ptl_list_t ptl_list, void* user_ptr, ptl_handle_me_t* me_handle)
{
  if (not client::attached())
    return api::not_attached();
  if (me == nullptr or me_handle == nullptr)
    return PTL_ARG_INVALID;
  auto entry = me_to_wire(ni_handle, *me);
  if (not entry)
    return PTL_ARG_INVALID;
  return append(ni_handle, pt_index, *entry, ptl_list, true, user_ptr, me_handle);
}

S4BXI_EXPORT int PtlMEUnlink(ptl_handle_me_t me_handle)
{
  return unlink(abi::handle_to_wire(me_handle));
}

S4BXI_EXPORT int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le,
                             ptl_list_t ptl_list, void* user_ptr, ptl_handle_le_t* le_handle)
{
  if (not client::attached())
    return api::not_attached();
  if (le == nullptr or le_handle == nullptr)
    return PTL_ARG_INVALID;
  auto entry = le_to_wire(*le);
  if (not entry)
    return PTL_ARG_INVALID;
  return append(ni_handle, pt_index, *entry, ptl_list, false, user_ptr, le_handle);
}

S4BXI_EXPORT int PtlLEUnlink(ptl_handle_le_t le_handle)
{
  return unlink(abi::handle_to_wire(le_handle));
}

S4BXI_EXPORT int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_me_t* me,
                             ptl_search_op_t ptl_search_op, void* user_ptr)
{
  if (not client::attached())
    return api::not_attached();
  if (me == nullptr)
    return PTL_ARG_INVALID;
  auto entry = me_to_wire(ni_handle, *me);
  if (not entry)
    return PTL_ARG_INVALID;
  return search(ni_handle, pt_index, *entry, true, ptl_search_op, user_ptr);
}

S4BXI_EXPORT int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index, const ptl_le_t* le,
                             ptl_search_op_t ptl_search_op, void* user_ptr)
{
  if (not client::attached())
    return api::not_attached();
  if (le == nullptr)
    return PTL_ARG_INVALID;
  auto entry = le_to_wire(*le);
  if (not entry)
    return PTL_ARG_INVALID;
  return search(ni_handle, pt_index, *entry, false, ptl_search_op, user_ptr);
}

} // extern "C"
