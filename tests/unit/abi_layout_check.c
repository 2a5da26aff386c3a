/*
 * abi_layout_check.c -- compile-time check that preload/include/portals4.h
 * has the binary layout of Sandia's Portals 4 reference header on x86_64
 * (LP64, gcc/clang). Not part of any build; compile by hand:
 *
 *   gcc -std=c11 -Wall -Wextra -pedantic -Ipreload/include \
 *       -c tests/unit/abi_layout_check.c -o /dev/null
 *   g++ -x c++ -std=c++20 -Wall -Wextra -pedantic -Ipreload/include \
 *       -fsyntax-only tests/unit/abi_layout_check.c
 *
 * Any mismatch is a compile error. The numbers were established from the
 * reference header's declarations (member order and types) under the
 * x86_64 System V ABI.
 */
#include <stddef.h>
#include <portals4.h>

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

/* A sample of constant values. */
ABI_ASSERT(PTL_OK == 0 && PTL_IGNORED == 6 && PTL_PT_IN_USE == 15, "retvals");
ABI_ASSERT(PTL_STATUS_LAST == 16, "PTL_STATUS_LAST");
ABI_ASSERT(PTL_SR_OPERATION_VIOLATIONS == 2 && PTL_SR_LAST == 3, "sr index");
ABI_ASSERT(PTL_EQ_NONE == 0x3fffffffu && PTL_CT_NONE == 0x5fffffffu, "none handles");
ABI_ASSERT(PTL_INVALID_HANDLE == 0xffffffffu, "invalid handle");
ABI_ASSERT(PTL_PID_ANY == 0xffffu && PTL_NID_ANY == 0xffffu, "nid/pid any");
ABI_ASSERT(PTL_PT_ANY == 0xffffffffu && PTL_RANK_ANY == 0xffffffffu, "pt/rank any");
ABI_ASSERT(PTL_NI_MATCHING == 1 && PTL_NI_NO_MATCHING == 2 &&
           PTL_NI_LOGICAL == 4 && PTL_NI_PHYSICAL == 8, "NI options");
ABI_ASSERT(PTL_NI_PT_DISABLED == 3 && PTL_NI_SEGV == 7, "ni_fail");
ABI_ASSERT(PTL_MD_EVENT_CT_SEND == (1 << 1) && PTL_MD_EVENT_SEND_DISABLE == (1 << 7) &&
           PTL_MD_EVENT_CT_BYTES == (1 << 15), "MD options");
ABI_ASSERT(PTL_ME_OP_PUT == (1 << 1) && PTL_ME_ACK_DISABLE == (1 << 4) &&
           PTL_ME_IS_ACCESSIBLE == (1 << 6) && PTL_ME_EVENT_CT_BYTES == (1 << 15) &&
           PTL_ME_MANAGE_LOCAL == (1 << 16) && PTL_ME_MAY_ALIGN == (1 << 18), "ME options");
ABI_ASSERT(PTL_LE_EVENT_LINK_DISABLE == PTL_ME_EVENT_LINK_DISABLE, "LE aliases");
ABI_ASSERT(PTL_PT_FLOWCTRL == 2 && PTL_PT_MATCH_UNORDERED == 8, "PT options");
ABI_ASSERT(PTL_OC_ACK_REQ == 3, "ack req");
ABI_ASSERT(PTL_MSWAP == 17 && PTL_LONG_DOUBLE_COMPLEX == 13, "atomics");
ABI_ASSERT(PTL_EVENT_LINK == 12 && PTL_EVENT_SEARCH == 15, "event kinds");

/* Keep the translation unit non-empty under -pedantic. */
int abi_layout_check_dummy;
