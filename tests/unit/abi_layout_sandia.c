/*
 * abi_layout_sandia.c -- compile-time table of the Sandia binary flavour of
 * portals4.h, current generation (preload/include/sandia/portals4.h): every
 * scalar size, every structure size, alignment and member offset, and every
 * constant, against the numbers of Sandia's Portals 4 reference header
 * (sandialabs/portals4, include/portals4.h after the 2023-24 renumbering,
 * docs/sandia-abi-generations.md) on x86_64 (LP64, gcc/clang).
 *
 * Built by the unit tests as C and as C++ (tests/unit/CMakeLists.txt); any
 * mismatch is a compile error, so the build fails. The program itself only
 * says that it was built.
 */
#include <stddef.h>
#include <portals4.h>

#ifndef S4BXI_PORTALS4_ABI_SANDIA
#error "built against the wrong portals4.h: the Sandia flavour is expected"
#endif
#ifdef S4BXI_PORTALS4_SANDIA_LEGACY
#error "built against the legacy Sandia portals4.h: the current generation is expected"
#endif

#ifdef __cplusplus
#define ABI_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

#define SIZE_IS(type, n) ABI_ASSERT(sizeof(type) == (n), "sizeof " #type)
#define ALIGN_IS(type, n) ABI_ASSERT(_Alignof(type) == (n), "alignof " #type)
#define OFF_IS(type, member, n) \
    ABI_ASSERT(offsetof(type, member) == (n), "offsetof " #type "." #member)

#ifdef __cplusplus
#undef ALIGN_IS
#define ALIGN_IS(type, n) ABI_ASSERT(alignof(type) == (n), "alignof " #type)
#endif

/* Scalar types. */
SIZE_IS(ptl_size_t, 8);
SIZE_IS(ptl_pt_index_t, 4);
SIZE_IS(ptl_match_bits_t, 8);
SIZE_IS(ptl_hdr_data_t, 8);
SIZE_IS(ptl_time_t, 4);
SIZE_IS(ptl_interface_t, 4);
SIZE_IS(ptl_nid_t, 4);
SIZE_IS(ptl_pid_t, 4);
SIZE_IS(ptl_rank_t, 4);
SIZE_IS(ptl_uid_t, 4);
SIZE_IS(ptl_sr_index_t, 4);
SIZE_IS(ptl_sr_value_t, 4);
SIZE_IS(ptl_ct_type_t, 4);
SIZE_IS(ptl_handle_any_t, 4);
SIZE_IS(ptl_handle_ni_t, 4);
SIZE_IS(ptl_handle_eq_t, 4);
SIZE_IS(ptl_handle_ct_t, 4);
SIZE_IS(ptl_handle_md_t, 4);
SIZE_IS(ptl_handle_le_t, 4);
SIZE_IS(ptl_handle_me_t, 4);

/* One-byte enumerated kinds. */
SIZE_IS(ptl_ni_fail_t, 1);
SIZE_IS(ptl_list_t, 1);
SIZE_IS(ptl_search_op_t, 1);
SIZE_IS(ptl_ack_req_t, 1);
SIZE_IS(ptl_op_t, 1);
SIZE_IS(ptl_datatype_t, 1);
SIZE_IS(ptl_event_kind_t, 1);

/* ptl_process_t */
SIZE_IS(ptl_process_t, 8);
ALIGN_IS(ptl_process_t, 4);
OFF_IS(ptl_process_t, rank, 0);
OFF_IS(ptl_process_t, phys.nid, 0);
OFF_IS(ptl_process_t, phys.pid, 4);

/* ptl_md_t */
SIZE_IS(ptl_md_t, 32);
ALIGN_IS(ptl_md_t, 8);
OFF_IS(ptl_md_t, start, 0);
OFF_IS(ptl_md_t, length, 8);
OFF_IS(ptl_md_t, options, 16);
OFF_IS(ptl_md_t, eq_handle, 20);
OFF_IS(ptl_md_t, ct_handle, 24);

/* ptl_iovec_t */
SIZE_IS(ptl_iovec_t, 16);
OFF_IS(ptl_iovec_t, iov_base, 0);
OFF_IS(ptl_iovec_t, iov_len, 8);

/* ptl_le_t */
SIZE_IS(ptl_le_t, 32);
ALIGN_IS(ptl_le_t, 8);
OFF_IS(ptl_le_t, start, 0);
OFF_IS(ptl_le_t, length, 8);
OFF_IS(ptl_le_t, ct_handle, 16);
OFF_IS(ptl_le_t, uid, 20);
OFF_IS(ptl_le_t, options, 24);

/* ptl_me_t */
SIZE_IS(ptl_me_t, 64);
ALIGN_IS(ptl_me_t, 8);
OFF_IS(ptl_me_t, start, 0);
OFF_IS(ptl_me_t, length, 8);
OFF_IS(ptl_me_t, ct_handle, 16);
OFF_IS(ptl_me_t, uid, 20);
OFF_IS(ptl_me_t, options, 24);
OFF_IS(ptl_me_t, match_id, 28);
OFF_IS(ptl_me_t, match_bits, 40);
OFF_IS(ptl_me_t, ignore_bits, 48);
OFF_IS(ptl_me_t, min_free, 56);

/* ptl_ct_event_t */
SIZE_IS(ptl_ct_event_t, 16);
OFF_IS(ptl_ct_event_t, success, 0);
OFF_IS(ptl_ct_event_t, failure, 8);

/* ptl_ni_limits_t */
SIZE_IS(ptl_ni_limits_t, 96);
ALIGN_IS(ptl_ni_limits_t, 8);
OFF_IS(ptl_ni_limits_t, max_entries, 0);
OFF_IS(ptl_ni_limits_t, max_unexpected_headers, 4);
OFF_IS(ptl_ni_limits_t, max_mds, 8);
OFF_IS(ptl_ni_limits_t, max_cts, 12);
OFF_IS(ptl_ni_limits_t, max_eqs, 16);
OFF_IS(ptl_ni_limits_t, max_pt_index, 20);
OFF_IS(ptl_ni_limits_t, max_iovecs, 24);
OFF_IS(ptl_ni_limits_t, max_list_size, 28);
OFF_IS(ptl_ni_limits_t, max_triggered_ops, 32);
OFF_IS(ptl_ni_limits_t, max_msg_size, 40);
OFF_IS(ptl_ni_limits_t, max_atomic_size, 48);
OFF_IS(ptl_ni_limits_t, max_fetch_atomic_size, 56);
OFF_IS(ptl_ni_limits_t, max_waw_ordered_size, 64);
OFF_IS(ptl_ni_limits_t, max_war_ordered_size, 72);
OFF_IS(ptl_ni_limits_t, max_volatile_size, 80);
OFF_IS(ptl_ni_limits_t, features, 88);

/* ptl_event_t */
SIZE_IS(ptl_event_t, 80);
ALIGN_IS(ptl_event_t, 8);
OFF_IS(ptl_event_t, start, 0);
OFF_IS(ptl_event_t, user_ptr, 8);
OFF_IS(ptl_event_t, hdr_data, 16);
OFF_IS(ptl_event_t, match_bits, 24);
OFF_IS(ptl_event_t, rlength, 32);
OFF_IS(ptl_event_t, mlength, 40);
OFF_IS(ptl_event_t, remote_offset, 48);
OFF_IS(ptl_event_t, initiator, 56);
OFF_IS(ptl_event_t, uid, 64);
OFF_IS(ptl_event_t, pt_index, 68);
OFF_IS(ptl_event_t, type, 72);
OFF_IS(ptl_event_t, ptl_list, 73);
OFF_IS(ptl_event_t, ni_fail_type, 74);
OFF_IS(ptl_event_t, atomic_operation, 75);
OFF_IS(ptl_event_t, atomic_type, 76);

/* ptl_ac_id_t (4.0-era compatibility type, not used by any API struct). */
SIZE_IS(ptl_ac_id_t, 4);
OFF_IS(ptl_ac_id_t, uid, 0);
OFF_IS(ptl_ac_id_t, jid, 0);

#define CONST_IS(name, value) ABI_ASSERT((name) == (value), #name " == " #value)

/* Signedness of the integer types (unsigned unless noted). */
#define UNSIGNED_IS(type, yes) ABI_ASSERT((((type)-1) > (type)0) == (yes), #type " signedness")
UNSIGNED_IS(ptl_size_t, 1);
UNSIGNED_IS(ptl_pt_index_t, 1);
UNSIGNED_IS(ptl_time_t, 1);
UNSIGNED_IS(ptl_interface_t, 1);
UNSIGNED_IS(ptl_nid_t, 1);
UNSIGNED_IS(ptl_pid_t, 1);
UNSIGNED_IS(ptl_rank_t, 1);
UNSIGNED_IS(ptl_uid_t, 1);
UNSIGNED_IS(ptl_sr_value_t, 0);
UNSIGNED_IS(ptl_handle_any_t, 1);
UNSIGNED_IS(ptl_ni_fail_t, 1);
UNSIGNED_IS(ptl_list_t, 1);
UNSIGNED_IS(ptl_ack_req_t, 1);
UNSIGNED_IS(ptl_op_t, 1);
UNSIGNED_IS(ptl_datatype_t, 1);
UNSIGNED_IS(ptl_event_kind_t, 1);

/* Return codes. */
CONST_IS(PTL_OK, 0);
CONST_IS(PTL_ARG_INVALID, 1);
CONST_IS(PTL_CT_NONE_REACHED, 2);
CONST_IS(PTL_EQ_DROPPED, 3);
CONST_IS(PTL_EQ_EMPTY, 4);
CONST_IS(PTL_FAIL, 5);
CONST_IS(PTL_IGNORED, 6);
CONST_IS(PTL_IN_USE, 7);
CONST_IS(PTL_LIST_TOO_LONG, 8);
CONST_IS(PTL_NO_INIT, 9);
CONST_IS(PTL_NO_SPACE, 10);
CONST_IS(PTL_PID_IN_USE, 11);
CONST_IS(PTL_PT_FULL, 12);
CONST_IS(PTL_PT_EQ_NEEDED, 13);
CONST_IS(PTL_PT_IN_USE, 14);
CONST_IS(PTL_ABORTED, 15);
CONST_IS(PTL_STATUS_LAST, 15);
#ifdef PTL_INTERRUPTED
#error "PTL_INTERRUPTED is not in the current generation"
#endif

/* Status registers. */
CONST_IS(PTL_SR_DROP_COUNT, 0);
CONST_IS(PTL_SR_PERMISSION_VIOLATIONS, 1);
CONST_IS(PTL_SR_OPERATION_VIOLATIONS, 2);
CONST_IS(PTL_SR_LAST, 3);
CONST_IS(PTL_SR_PERMISSIONS_VIOLATIONS, 1);
CONST_IS(PTL_SR_OPERATIONS_VIOLATIONS, 2);

/* Handles, wildcards and limits. */
CONST_IS(PTL_EQ_NONE, 0x3fffffffu);
CONST_IS(PTL_CT_NONE, 0x5fffffffu);
CONST_IS(PTL_INVALID_HANDLE, 0xffffffffu);
CONST_IS(PTL_IFACE_DEFAULT, 0xffffffffu);
CONST_IS(PTL_PID_ANY, 0xffffu);
CONST_IS(PTL_PID_MAX, 1024u);
CONST_IS(PTL_NID_ANY, 0xffffu);
CONST_IS(PTL_UID_ANY, 0xffffffffu);
CONST_IS(PTL_PT_ANY, 0xffffffffu);
CONST_IS(PTL_RANK_ANY, 0xffffffffu);
CONST_IS(PTL_TIME_FOREVER, 0xffffffffu);
CONST_IS(PTL_SIZE_MAX, 0xffffffffffffffffull);
CONST_IS(PTL_JID_ANY, 0xffffffffu);
CONST_IS(PTL_JID_NONE, 0u);

/* NI options, failure codes, features. */
CONST_IS(PTL_NI_MATCHING, 0x1);
CONST_IS(PTL_NI_NO_MATCHING, 0x2);
CONST_IS(PTL_NI_LOGICAL, 0x4);
CONST_IS(PTL_NI_PHYSICAL, 0x8);
CONST_IS(PTL_NI_INIT_OPTIONS_MASK, 0xf);
CONST_IS(PTL_NI_OK, 0);
CONST_IS(PTL_NI_UNDELIVERABLE, 1);
CONST_IS(PTL_NI_DROPPED, 2);
CONST_IS(PTL_NI_PT_DISABLED, 3);
CONST_IS(PTL_NI_PERM_VIOLATION, 4);
CONST_IS(PTL_NI_OP_VIOLATION, 5);
CONST_IS(PTL_NI_NO_MATCH, 6);
CONST_IS(PTL_NI_SEGV, 7);
CONST_IS(PTL_TARGET_BIND_INACCESSIBLE, 0x1);
CONST_IS(PTL_TOTAL_DATA_ORDERING, 0x2);
CONST_IS(PTL_COHERENT_ATOMICS, 0x4);

/* Portal table entry options. */
CONST_IS(PTL_PT_ONLY_USE_ONCE, 0x1);
CONST_IS(PTL_PT_FLOWCTRL, 0x2);
CONST_IS(PTL_PT_ONLY_TRUNCATE, 0x4);
CONST_IS(PTL_PT_MATCH_UNORDERED, 0x8);
CONST_IS(PTL_PT_ALLOC_DISABLED, 0x10);
CONST_IS(PTL_PT_ALLOC_OPTIONS_MASK, 0x1f);

/* MD options. */
CONST_IS(PTL_IOVEC, 0x1);
CONST_IS(PTL_MD_EVENT_CT_SEND, 0x2);
CONST_IS(PTL_MD_EVENT_CT_REPLY, 0x4);
CONST_IS(PTL_MD_EVENT_CT_ACK, 0x8);
CONST_IS(PTL_MD_UNORDERED, 0x10);
CONST_IS(PTL_MD_EVENT_SUCCESS_DISABLE, 0x20);
CONST_IS(PTL_MD_VOLATILE, 0x40);
CONST_IS(PTL_MD_EVENT_SEND_DISABLE, 0x80);
CONST_IS(PTL_MD_UNRELIABLE, 0x100);
CONST_IS(PTL_MD_EVENT_CT_BYTES, 0x4000);
CONST_IS(PTL_MD_OPTIONS_MASK, 0x41ff);

/* Lists and search. */
CONST_IS(PTL_PRIORITY_LIST, 0);
CONST_IS(PTL_OVERFLOW_LIST, 1);
CONST_IS(PTL_SEARCH_ONLY, 0);
CONST_IS(PTL_SEARCH_DELETE, 1);
CONST_IS(PTL_ACTIVE_SEARCH_ONLY, 2);

/* ME and LE options. */
CONST_IS(PTL_ME_OP_PUT, 0x2);
CONST_IS(PTL_ME_OP_GET, 0x4);
CONST_IS(PTL_ME_USE_ONCE, 0x8);
CONST_IS(PTL_ME_UNEXPECTED_HDR_DISABLE, 0x10);
CONST_IS(PTL_ME_IS_ACCESSIBLE, 0x20);
CONST_IS(PTL_ME_EVENT_LINK_DISABLE, 0x40);
CONST_IS(PTL_ME_EVENT_COMM_DISABLE, 0x80);
CONST_IS(PTL_ME_EVENT_FLOWCTRL_DISABLE, 0x100);
CONST_IS(PTL_ME_EVENT_SUCCESS_DISABLE, 0x200);
CONST_IS(PTL_ME_EVENT_OVER_DISABLE, 0x400);
CONST_IS(PTL_ME_EVENT_UNLINK_DISABLE, 0x800);
CONST_IS(PTL_ME_EVENT_CT_COMM, 0x1000);
CONST_IS(PTL_ME_EVENT_CT_OVERFLOW, 0x2000);
CONST_IS(PTL_ME_EVENT_CT_BYTES, 0x4000);
CONST_IS(PTL_ME_MANAGE_LOCAL, 0x8000);
CONST_IS(PTL_ME_NO_TRUNCATE, 0x10000);
CONST_IS(PTL_ME_MAY_ALIGN, 0x20000);
CONST_IS(PTL_ME_LOCAL_INC_UH_RLENGTH, 0x40000);
#if defined(PTL_ME_ACK_DISABLE) || defined(PTL_LE_ACK_DISABLE)
#error "ACK_DISABLE is not in the current generation"
#endif
CONST_IS(PTL_ME_APPEND_OPTIONS_MASK, 0x7ffff);
CONST_IS(PTL_LE_OP_PUT, PTL_ME_OP_PUT);
CONST_IS(PTL_LE_OP_GET, PTL_ME_OP_GET);
CONST_IS(PTL_LE_USE_ONCE, PTL_ME_USE_ONCE);
CONST_IS(PTL_LE_UNEXPECTED_HDR_DISABLE, PTL_ME_UNEXPECTED_HDR_DISABLE);
CONST_IS(PTL_LE_IS_ACCESSIBLE, PTL_ME_IS_ACCESSIBLE);
CONST_IS(PTL_LE_EVENT_LINK_DISABLE, PTL_ME_EVENT_LINK_DISABLE);
CONST_IS(PTL_LE_EVENT_COMM_DISABLE, PTL_ME_EVENT_COMM_DISABLE);
CONST_IS(PTL_LE_EVENT_FLOWCTRL_DISABLE, PTL_ME_EVENT_FLOWCTRL_DISABLE);
CONST_IS(PTL_LE_EVENT_SUCCESS_DISABLE, PTL_ME_EVENT_SUCCESS_DISABLE);
CONST_IS(PTL_LE_EVENT_OVER_DISABLE, PTL_ME_EVENT_OVER_DISABLE);
CONST_IS(PTL_LE_EVENT_UNLINK_DISABLE, PTL_ME_EVENT_UNLINK_DISABLE);
CONST_IS(PTL_LE_EVENT_CT_COMM, PTL_ME_EVENT_CT_COMM);
CONST_IS(PTL_LE_EVENT_CT_OVERFLOW, PTL_ME_EVENT_CT_OVERFLOW);
CONST_IS(PTL_LE_EVENT_CT_BYTES, PTL_ME_EVENT_CT_BYTES);
CONST_IS(PTL_LE_APPEND_OPTIONS_MASK, 0x7fff);

/* Counting events. */
CONST_IS(PTL_CT_OPERATION, 0);
CONST_IS(PTL_CT_BYTE, 1);

/* Acknowledgement requests. */
CONST_IS(PTL_NO_ACK_REQ, 0);
CONST_IS(PTL_ACK_REQ, 1);
CONST_IS(PTL_CT_ACK_REQ, 2);
CONST_IS(PTL_OC_ACK_REQ, 3);

/* Atomic operations and datatypes. */
CONST_IS(PTL_MIN, 0);
CONST_IS(PTL_MAX, 1);
CONST_IS(PTL_SUM, 2);
CONST_IS(PTL_PROD, 3);
CONST_IS(PTL_LOR, 4);
CONST_IS(PTL_LAND, 5);
CONST_IS(PTL_BOR, 6);
CONST_IS(PTL_BAND, 7);
CONST_IS(PTL_LXOR, 8);
CONST_IS(PTL_BXOR, 9);
CONST_IS(PTL_SWAP, 10);
CONST_IS(PTL_CSWAP, 11);
CONST_IS(PTL_CSWAP_NE, 12);
CONST_IS(PTL_CSWAP_LE, 13);
CONST_IS(PTL_CSWAP_LT, 14);
CONST_IS(PTL_CSWAP_GE, 15);
CONST_IS(PTL_CSWAP_GT, 16);
CONST_IS(PTL_MSWAP, 17);
CONST_IS(PTL_OP_LAST, 18);
CONST_IS(PTL_INT8_T, 0);
CONST_IS(PTL_UINT8_T, 1);
CONST_IS(PTL_INT16_T, 2);
CONST_IS(PTL_UINT16_T, 3);
CONST_IS(PTL_INT32_T, 4);
CONST_IS(PTL_UINT32_T, 5);
CONST_IS(PTL_FLOAT, 6);
CONST_IS(PTL_INT64_T, 7);
CONST_IS(PTL_UINT64_T, 8);
CONST_IS(PTL_DOUBLE, 9);
CONST_IS(PTL_FLOAT_COMPLEX, 10);
CONST_IS(PTL_DOUBLE_COMPLEX, 11);
CONST_IS(PTL_LONG_DOUBLE, 12);
CONST_IS(PTL_LONG_DOUBLE_COMPLEX, 13);
CONST_IS(PTL_DATATYPE_LAST, 14);

/* Event kinds. */
CONST_IS(PTL_EVENT_GET, 0);
CONST_IS(PTL_EVENT_GET_OVERFLOW, 1);
CONST_IS(PTL_EVENT_PUT, 2);
CONST_IS(PTL_EVENT_PUT_OVERFLOW, 3);
CONST_IS(PTL_EVENT_ATOMIC, 4);
CONST_IS(PTL_EVENT_ATOMIC_OVERFLOW, 5);
CONST_IS(PTL_EVENT_FETCH_ATOMIC, 6);
CONST_IS(PTL_EVENT_FETCH_ATOMIC_OVERFLOW, 7);
CONST_IS(PTL_EVENT_REPLY, 8);
CONST_IS(PTL_EVENT_SEND, 9);
CONST_IS(PTL_EVENT_ACK, 10);
CONST_IS(PTL_EVENT_PT_DISABLED, 11);
CONST_IS(PTL_EVENT_LINK, 12);
CONST_IS(PTL_EVENT_AUTO_UNLINK, 13);
CONST_IS(PTL_EVENT_AUTO_FREE, 14);
CONST_IS(PTL_EVENT_SEARCH, 15);

#include <stdio.h>

int main(void)
{
    puts("abi_layout_sandia: portals4.h has the layout and values of Sandia's current generation");
    return 0;
}
