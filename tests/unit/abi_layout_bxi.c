/*
 * abi_layout_bxi.c -- compile-time table of the BXI binary flavour of
 * portals4.h and portals4_bxiext.h (preload/include/bxi/): every scalar
 * size and signedness, every structure size, alignment and member offset,
 * every constant, and the prototype of every function, against the numbers
 * and declarations of the BXI headers shipped with S4BXI (S4BXI/S4BXI,
 * include/portals4.h at commit 0e4809d1391eb712102371af39ba145f90348e34 and
 * include/portals4_bxiext.h at d04a837a2ef4b86680320ca7c74be3c805684e09),
 * laid out by the x86_64 System V ABI (LP64, gcc/clang).
 *
 * Built by the unit tests as C and as C++ (tests/unit/CMakeLists.txt); any
 * mismatch is a compile error, so the build fails. The program itself only
 * says that it was built.
 */
#include <stddef.h>
#include <portals4.h>
#include <portals4_bxiext.h>

#ifndef S4BXI_PORTALS4_ABI_BXI
#error "built against the wrong portals4.h: the BXI flavour is expected"
#endif

#ifdef __cplusplus
#include <type_traits>
#define ABI_ASSERT(cond, msg) static_assert(cond, msg)
#define ALIGN_OF(type) alignof(type)
#define SAME_TYPE(a, b) std::is_same<a, b>::value
#define TYPE_OF(x) decltype(x)
#else
#define ABI_ASSERT(cond, msg) _Static_assert(cond, msg)
#define ALIGN_OF(type) _Alignof(type)
#define SAME_TYPE(a, b) __builtin_types_compatible_p(a, b)
#define TYPE_OF(x) __typeof__(x)
#endif

#define SIZE_IS(type, n) ABI_ASSERT(sizeof(type) == (n), "sizeof " #type)
#define ALIGN_IS(type, n) ABI_ASSERT(ALIGN_OF(type) == (n), "alignof " #type)
#define OFF_IS(type, member, n) \
    ABI_ASSERT(offsetof(type, member) == (n), "offsetof " #type "." #member)
#define UNSIGNED_IS(type, yes) \
    ABI_ASSERT((((type)-1) > (type)0) == (yes), #type " signedness")
#define CONST_IS(name, value) ABI_ASSERT((name) == (value), #name " == " #value)
#define TYPE_IS(type, expected) ABI_ASSERT(SAME_TYPE(type, expected), #type " is " #expected)
#define PROTO_IS(function, ...) \
    ABI_ASSERT(SAME_TYPE(TYPE_OF(&function), int (*)(__VA_ARGS__)), "prototype of " #function)

/* ---- scalar types --------------------------------------------------------- */

SIZE_IS(ptl_pid_t, 4);        UNSIGNED_IS(ptl_pid_t, 1);
SIZE_IS(ptl_nid_t, 4);        UNSIGNED_IS(ptl_nid_t, 1);
SIZE_IS(ptl_ack_req_t, 4);    UNSIGNED_IS(ptl_ack_req_t, 0);
SIZE_IS(ptl_interface_t, 4);  UNSIGNED_IS(ptl_interface_t, 0);
SIZE_IS(ptl_rank_t, 4);       UNSIGNED_IS(ptl_rank_t, 1);
SIZE_IS(ptl_sr_value_t, 4);   UNSIGNED_IS(ptl_sr_value_t, 0);
SIZE_IS(ptl_uid_t, 4);        UNSIGNED_IS(ptl_uid_t, 0);
SIZE_IS(ptl_list_t, 4);       UNSIGNED_IS(ptl_list_t, 0);
SIZE_IS(ptl_index_t, 4);      UNSIGNED_IS(ptl_index_t, 1);
SIZE_IS(ptl_size_t, 8);       UNSIGNED_IS(ptl_size_t, 1);
SIZE_IS(ptl_match_bits_t, 8); UNSIGNED_IS(ptl_match_bits_t, 1);
SIZE_IS(ptl_hdr_data_t, 8);   UNSIGNED_IS(ptl_hdr_data_t, 1);
SIZE_IS(ptl_time_t, 8);       UNSIGNED_IS(ptl_time_t, 0);
SIZE_IS(ptl_search_op_t, 4);  UNSIGNED_IS(ptl_search_op_t, 1);
SIZE_IS(ptl_pt_index_t, 4);   UNSIGNED_IS(ptl_pt_index_t, 1);
SIZE_IS(ptl_ni_fail_t, 4);    UNSIGNED_IS(ptl_ni_fail_t, 1);
SIZE_IS(ptl_addr_t, 8);
SIZE_IS(ptl_activate_hook_t, 8);
SIZE_IS(ptl_sr_index_t, 4);
SIZE_IS(ptl_datatype_t, 4);
SIZE_IS(ptl_op_t, 4);
SIZE_IS(ptl_event_kind_t, 4);

TYPE_IS(ptl_addr_t, void *);
TYPE_IS(ptl_index_t, ptl_pt_index_t);
TYPE_IS(ptl_time_t, long);
TYPE_IS(ptl_sr_index_t, enum ptl_sr_index);
TYPE_IS(ptl_datatype_t, enum ptl_datatype);
TYPE_IS(ptl_op_t, enum ptl_op);
TYPE_IS(ptl_event_kind_t, enum ptl_event_kind);

/* Handles are pointers. */
TYPE_IS(ptl_handle_any_t, void *);
TYPE_IS(ptl_handle_ni_t, void *);
TYPE_IS(ptl_handle_md_t, void *);
TYPE_IS(ptl_handle_eq_t, void *);
TYPE_IS(ptl_handle_ct_t, void *);
TYPE_IS(ptl_handle_le_t, void *);
TYPE_IS(ptl_handle_me_t, void *);

/* ---- structures ----------------------------------------------------------- */

TYPE_IS(ptl_ni_limits_t, struct ptl_ni_limits);
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

TYPE_IS(ptl_process_t, union ptl_process);
SIZE_IS(ptl_process_t, 8);
ALIGN_IS(ptl_process_t, 4);
OFF_IS(ptl_process_t, phys.nid, 0);
OFF_IS(ptl_process_t, phys.pid, 4);
OFF_IS(ptl_process_t, rank, 0);

TYPE_IS(ptl_md_t, struct ptl_md);
SIZE_IS(ptl_md_t, 40);
ALIGN_IS(ptl_md_t, 8);
OFF_IS(ptl_md_t, start, 0);
OFF_IS(ptl_md_t, length, 8);
OFF_IS(ptl_md_t, options, 16);
OFF_IS(ptl_md_t, eq_handle, 24);
OFF_IS(ptl_md_t, ct_handle, 32);

/* One structure for MEs and LEs. */
TYPE_IS(ptl_me_t, struct ptl_me);
TYPE_IS(ptl_le_t, struct ptl_me);
SIZE_IS(ptl_me_t, 64);
ALIGN_IS(ptl_me_t, 8);
OFF_IS(ptl_me_t, start, 0);
OFF_IS(ptl_me_t, length, 8);
OFF_IS(ptl_me_t, ct_handle, 16);
OFF_IS(ptl_me_t, uid, 24);
OFF_IS(ptl_me_t, options, 28);
OFF_IS(ptl_me_t, match_id, 32);
OFF_IS(ptl_me_t, match_bits, 40);
OFF_IS(ptl_me_t, ignore_bits, 48);
OFF_IS(ptl_me_t, min_free, 56);

TYPE_IS(ptl_event_t, struct ptl_event);
SIZE_IS(ptl_event_t, 96);
ALIGN_IS(ptl_event_t, 8);
OFF_IS(ptl_event_t, start, 0);
OFF_IS(ptl_event_t, user_ptr, 8);
OFF_IS(ptl_event_t, hdr_data, 16);
OFF_IS(ptl_event_t, match_bits, 24);
OFF_IS(ptl_event_t, rlength, 32);
OFF_IS(ptl_event_t, mlength, 40);
OFF_IS(ptl_event_t, remote_offset, 48);
OFF_IS(ptl_event_t, uid, 56);
OFF_IS(ptl_event_t, initiator, 60);
OFF_IS(ptl_event_t, type, 68);
OFF_IS(ptl_event_t, ptl_list, 72);
OFF_IS(ptl_event_t, pt_index, 76);
OFF_IS(ptl_event_t, ni_fail_type, 80);
OFF_IS(ptl_event_t, atomic_operation, 84);
OFF_IS(ptl_event_t, atomic_type, 88);

TYPE_IS(ptl_iovec_t, struct ptl_iovec);
SIZE_IS(ptl_iovec_t, 16);
OFF_IS(ptl_iovec_t, iov_base, 0);
OFF_IS(ptl_iovec_t, iov_len, 8);

TYPE_IS(ptl_ct_event_t, struct ptl_ct_event);
SIZE_IS(ptl_ct_event_t, 16);
OFF_IS(ptl_ct_event_t, success, 0);
OFF_IS(ptl_ct_event_t, failure, 8);

/* portals4_bxiext.h */
SIZE_IS(struct ptl_ev_desc, 24);
OFF_IS(struct ptl_ev_desc, name, 0);
OFF_IS(struct ptl_ev_desc, type, 8);
OFF_IS(struct ptl_ev_desc, flags, 12);
OFF_IS(struct ptl_ev_desc, fail_flags, 16);
SIZE_IS(enum ptl_str_type, 4);

/* ---- constants ------------------------------------------------------------ */

CONST_IS(PTL_MAJOR_VERSION, 4);
CONST_IS(PTL_MINOR_VERSION, 0);
CONST_IS(PTL_IFACE_DEFAULT, 0);
CONST_IS(PTL_SIZE_MAX, 0xffffffffffffull);
CONST_IS(PTL_PID_MAX, 4095);
CONST_IS(PTL_TIME_FOREVER, -1);
/* PTL_CT_NONE, PTL_EQ_NONE and PTL_INVALID_HANDLE are NULL: pointers, so
 * checked when the program runs (main). */

CONST_IS(PTL_NI_PHYSICAL, 0x1);
CONST_IS(PTL_NI_MATCHING, 0x2);
CONST_IS(PTL_NI_LOGICAL, 0x4);
CONST_IS(PTL_NI_NO_MATCHING, 0x8);
CONST_IS(PTL_NI_PRIVATE, 0x0);
CONST_IS(PTL_NI_SHARED, 0x4);

CONST_IS(PTL_TARGET_BIND_INACCESSIBLE, 0x1);
CONST_IS(PTL_TOTAL_DATA_ORDERING, 0x2);
CONST_IS(PTL_COHERENT_ATOMICS, 0x4);
CONST_IS(PTL_UNRELIABLE, 0x8);

CONST_IS(PTL_SR_DROP_COUNT, 0);
CONST_IS(PTL_SR_PERMISSION_VIOLATIONS, 1);
CONST_IS(PTL_SR_OPERATION_VIOLATIONS, 2);

CONST_IS(PTL_PT_ANY, ~0);
CONST_IS(PTL_PID_ANY, 0x0);
CONST_IS(PTL_UID_ANY, 0xffffffffu);
CONST_IS(PTL_NID_ANY, 0x0);
CONST_IS(PTL_RANK_ANY, 0x7fffff);

CONST_IS(PTL_PT_ONLY_USE_ONCE, 1);
CONST_IS(PTL_PT_ONLY_TRUNCATE, 2);
CONST_IS(PTL_PT_FLOWCTRL, 4);

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
CONST_IS(PTL_EVENT_AUTO_UNLINK, 12);
CONST_IS(PTL_EVENT_AUTO_FREE, 13);
CONST_IS(PTL_EVENT_SEARCH, 14);
CONST_IS(PTL_EVENT_LINK, 15);

CONST_IS(PTL_NO_ACK_REQ, 0x0);
CONST_IS(PTL_CT_ACK_REQ, 0x1);
CONST_IS(PTL_OC_ACK_REQ, 0x2);
CONST_IS(PTL_ACK_REQ, 0x3);

CONST_IS(PTL_NI_OK, 0x0);
CONST_IS(PTL_NI_PERM_VIOLATION, 0x1);
CONST_IS(PTL_NI_SEGV, 0x2);
CONST_IS(PTL_NI_PT_DISABLED, 0x3);
CONST_IS(PTL_NI_DROPPED, 0x4);
CONST_IS(PTL_NI_UNDELIVERABLE, 0x5);
CONST_IS(PTL_FAIL, 0x6);
CONST_IS(PTL_ARG_INVALID, 0x7);
CONST_IS(PTL_IN_USE, 0x8);
CONST_IS(PTL_NI_NO_MATCH, 0x9);
CONST_IS(PTL_NI_TARGET_INVALID, 0xa);
CONST_IS(PTL_NI_OP_VIOLATION, 0xb);

CONST_IS(PTL_OK, 0);
CONST_IS(PTL_CT_NONE_REACHED, 32);
CONST_IS(PTL_EQ_DROPPED, 33);
CONST_IS(PTL_EQ_EMPTY, 34);
CONST_IS(PTL_IGNORED, 36);
CONST_IS(PTL_INTERRUPTED, 37);
CONST_IS(PTL_LIST_TOO_LONG, 38);
CONST_IS(PTL_NO_INIT, 39);
CONST_IS(PTL_NO_SPACE, 40);
CONST_IS(PTL_PID_IN_USE, 41);
CONST_IS(PTL_PT_FULL, 42);
CONST_IS(PTL_PT_EQ_NEEDED, 43);
CONST_IS(PTL_PT_IN_USE, 44);
CONST_IS(PTL_SIZE_INVALID, 45);
CONST_IS(PTL_TRY_AGAIN, 46);

CONST_IS(PTL_IOVEC, 0x80);

CONST_IS(PTL_ME_EVENT_COMM_DISABLE, 0x1);
CONST_IS(PTL_ME_EVENT_SUCCESS_DISABLE, 0x2);
CONST_IS(PTL_ME_EVENT_OVER_DISABLE, 0x4);
CONST_IS(PTL_ME_EVENT_LINK_DISABLE, 0x8);
CONST_IS(PTL_ME_EVENT_CT_BYTES, 0x10);
CONST_IS(PTL_ME_EVENT_CT_OVERFLOW, 0x20);
CONST_IS(PTL_ME_EVENT_CT_COMM, 0x40);
CONST_IS(PTL_ME_OP_PUT, 0x100);
CONST_IS(PTL_ME_OP_GET, 0x200);
CONST_IS(PTL_ME_USE_ONCE, 0x400);
CONST_IS(PTL_ME_ACK_DISABLE, 0x800);
CONST_IS(PTL_ME_MAY_ALIGN, 0x1000);
CONST_IS(PTL_ME_EVENT_UNLINK_DISABLE, 0x2000);
CONST_IS(PTL_ME_MANAGE_LOCAL, 0x4000);
CONST_IS(PTL_ME_NO_TRUNCATE, 0x8000);
CONST_IS(PTL_ME_UNEXPECTED_HDR_DISABLE, 0x10000);
CONST_IS(PTL_ME_EVENT_FLOWCTRL_DISABLE, 0x20000);
CONST_IS(PTL_ME_IS_ACCESSIBLE, 0x40000);

CONST_IS(PTL_LE_OP_PUT, PTL_ME_OP_PUT);
CONST_IS(PTL_LE_OP_GET, PTL_ME_OP_GET);
CONST_IS(PTL_LE_USE_ONCE, PTL_ME_USE_ONCE);
CONST_IS(PTL_LE_ACK_DISABLE, PTL_ME_ACK_DISABLE);
CONST_IS(PTL_LE_UNEXPECTED_HDR_DISABLE, PTL_ME_UNEXPECTED_HDR_DISABLE);
CONST_IS(PTL_LE_IS_ACCESSIBLE, PTL_ME_IS_ACCESSIBLE);
CONST_IS(PTL_LE_EVENT_COMM_DISABLE, PTL_ME_EVENT_COMM_DISABLE);
CONST_IS(PTL_LE_EVENT_FLOWCTRL_DISABLE, PTL_ME_EVENT_FLOWCTRL_DISABLE);
CONST_IS(PTL_LE_EVENT_SUCCESS_DISABLE, PTL_ME_EVENT_SUCCESS_DISABLE);
CONST_IS(PTL_LE_EVENT_OVER_DISABLE, PTL_ME_EVENT_OVER_DISABLE);
CONST_IS(PTL_LE_EVENT_UNLINK_DISABLE, PTL_ME_EVENT_UNLINK_DISABLE);
CONST_IS(PTL_LE_EVENT_LINK_DISABLE, PTL_ME_EVENT_LINK_DISABLE);
CONST_IS(PTL_LE_EVENT_CT_COMM, PTL_ME_EVENT_CT_COMM);
CONST_IS(PTL_LE_EVENT_CT_OVERFLOW, PTL_ME_EVENT_CT_OVERFLOW);
CONST_IS(PTL_LE_EVENT_CT_BYTES, PTL_ME_EVENT_CT_BYTES);

CONST_IS(PTL_MD_EVENT_SEND_DISABLE, 0x40);
CONST_IS(PTL_MD_EVENT_SUCCESS_DISABLE, 0x1);
CONST_IS(PTL_MD_EVENT_CT_SEND, 0x2);
CONST_IS(PTL_MD_EVENT_CT_REPLY, 0x4);
CONST_IS(PTL_MD_EVENT_CT_ACK, 0x8);
CONST_IS(PTL_MD_EVENT_CT_BYTES, 0x10);
CONST_IS(PTL_MD_UNORDERED, 0x20);
CONST_IS(PTL_MD_VOLATILE, 0x100);

CONST_IS(PTL_SEARCH_ONLY, 0x0);
CONST_IS(PTL_SEARCH_DELETE, 0x1);
CONST_IS(PTL_PRIORITY_LIST, 0x0);
CONST_IS(PTL_OVERFLOW_LIST, 0x1);

CONST_IS(PTL_MIN, 0x0);
CONST_IS(PTL_MAX, 0x1);
CONST_IS(PTL_SUM, 0x2);
CONST_IS(PTL_PROD, 0x3);
CONST_IS(PTL_LOR, 0x4);
CONST_IS(PTL_LAND, 0x5);
CONST_IS(PTL_LXOR, 0x6);
CONST_IS(PTL_BOR, 0x8);
CONST_IS(PTL_BAND, 0x9);
CONST_IS(PTL_BXOR, 0xa);
CONST_IS(PTL_SWAP, 0xc);
CONST_IS(PTL_CSWAP_GT, 0x10);
CONST_IS(PTL_CSWAP_LT, 0x11);
CONST_IS(PTL_CSWAP_GE, 0x12);
CONST_IS(PTL_CSWAP_LE, 0x13);
CONST_IS(PTL_CSWAP, 0x14);
CONST_IS(PTL_CSWAP_NE, 0x15);
CONST_IS(PTL_MSWAP, 0x18);

CONST_IS(PTL_INT8_T, 0x0);
CONST_IS(PTL_UINT8_T, 0x1);
CONST_IS(PTL_INT16_T, 0x2);
CONST_IS(PTL_UINT16_T, 0x3);
CONST_IS(PTL_INT32_T, 0x4);
CONST_IS(PTL_UINT32_T, 0x5);
CONST_IS(PTL_INT64_T, 0x6);
CONST_IS(PTL_UINT64_T, 0x7);
CONST_IS(PTL_FLOAT, 0xa);
CONST_IS(PTL_FLOAT_COMPLEX, 0xb);
CONST_IS(PTL_DOUBLE, 0xc);
CONST_IS(PTL_DOUBLE_COMPLEX, 0xd);
CONST_IS(PTL_LONG_DOUBLE, 0x14);
CONST_IS(PTL_LONG_DOUBLE_COMPLEX, 0x15);

CONST_IS(PTL_ACTIVATE_ATTACH, 0);
CONST_IS(PTL_ACTIVATE_DETACH, 1);

/* portals4_bxiext.h */
CONST_IS(PTL_EV_STR_SIZE, 256);
CONST_IS(PTL_STR_ERROR, 0);
CONST_IS(PTL_STR_EVENT, 1);
CONST_IS(PTL_STR_FAIL_TYPE, 2);
CONST_IS(PTL_EV_HAS_START, 0x1);
CONST_IS(PTL_EV_HAS_UPTR, 0x2);
CONST_IS(PTL_EV_HAS_HDR, 0x4);
CONST_IS(PTL_EV_HAS_BITS, 0x8);
CONST_IS(PTL_EV_HAS_RLEN, 0x10);
CONST_IS(PTL_EV_HAS_MLEN, 0x20);
CONST_IS(PTL_EV_HAS_ROFFS, 0x40);
CONST_IS(PTL_EV_HAS_UID, 0x80);
CONST_IS(PTL_EV_HAS_INIT, 0x100);
CONST_IS(PTL_EV_HAS_LIST, 0x200);
CONST_IS(PTL_EV_HAS_PT, 0x400);
CONST_IS(PTL_EV_HAS_AOP, 0x800);
CONST_IS(PTL_EV_HAS_ATYP, 0x1000);

/* ---- prototypes ----------------------------------------------------------- */

ABI_ASSERT(SAME_TYPE(TYPE_OF(&PtlFini), void (*)(void)), "prototype of PtlFini");
ABI_ASSERT(SAME_TYPE(TYPE_OF(&PtlToStr), const char *(*)(int, enum ptl_str_type)),
           "prototype of PtlToStr");
PROTO_IS(PtlInit, void);
PROTO_IS(PtlActivateHookAdd, void (*)(void *, unsigned int, int), void *, ptl_activate_hook_t *);
PROTO_IS(PtlActivateHookRemove, ptl_activate_hook_t);
PROTO_IS(PtlNIInit, ptl_interface_t, unsigned int, ptl_pid_t, const ptl_ni_limits_t *,
         ptl_ni_limits_t *, ptl_handle_ni_t *);
PROTO_IS(PtlNIFini, ptl_handle_ni_t);
PROTO_IS(PtlNIHandle, ptl_handle_any_t, ptl_handle_ni_t *);
PROTO_IS(PtlNIStatus, ptl_handle_ni_t, ptl_sr_index_t, ptl_sr_value_t *);
PROTO_IS(PtlSetMap, ptl_handle_ni_t, ptl_size_t, const union ptl_process *);
PROTO_IS(PtlGetMap, ptl_handle_ni_t, ptl_size_t, union ptl_process *, ptl_size_t *);
PROTO_IS(PtlPTAlloc, ptl_handle_ni_t, unsigned int, ptl_handle_eq_t, ptl_index_t, ptl_index_t *);
PROTO_IS(PtlPTFree, ptl_handle_ni_t, ptl_index_t);
PROTO_IS(PtlPTEnable, ptl_handle_ni_t, ptl_pt_index_t);
PROTO_IS(PtlPTDisable, ptl_handle_ni_t, ptl_pt_index_t);
PROTO_IS(PtlGetUid, ptl_handle_ni_t, ptl_uid_t *);
PROTO_IS(PtlGetId, ptl_handle_ni_t, ptl_process_t *);
PROTO_IS(PtlGetPhysId, ptl_handle_ni_t, ptl_process_t *);
PROTO_IS(PtlGetHwid, ptl_handle_ni_t, uint64_t *, uint64_t *);
PROTO_IS(PtlMDBind, ptl_handle_ni_t, const ptl_md_t *, ptl_handle_md_t *);
PROTO_IS(PtlMDRelease, ptl_handle_md_t);
PROTO_IS(PtlLEAppend, ptl_handle_ni_t, ptl_index_t, const ptl_le_t *, ptl_list_t, void *,
         ptl_handle_le_t *);
PROTO_IS(PtlLEUnlink, ptl_handle_le_t);
PROTO_IS(PtlLESearch, ptl_handle_ni_t, ptl_pt_index_t, const ptl_le_t *, ptl_search_op_t, void *);
PROTO_IS(PtlMEAppend, ptl_handle_ni_t, ptl_index_t, const ptl_me_t *, ptl_list_t, void *,
         ptl_handle_me_t *);
PROTO_IS(PtlMEUnlink, ptl_handle_me_t);
PROTO_IS(PtlMESearch, ptl_handle_ni_t, ptl_pt_index_t, const ptl_me_t *, ptl_search_op_t, void *);
PROTO_IS(PtlEQAlloc, ptl_handle_ni_t, ptl_size_t, ptl_handle_eq_t *);
PROTO_IS(PtlEQAllocAsync, ptl_handle_ni_t, ptl_size_t, ptl_handle_eq_t *,
         void (*)(void *, ptl_handle_eq_t), void *, int);
PROTO_IS(PtlEQFree, ptl_handle_eq_t);
PROTO_IS(PtlEQGet, ptl_handle_eq_t, ptl_event_t *);
PROTO_IS(PtlEQWait, ptl_handle_eq_t, ptl_event_t *);
PROTO_IS(PtlEQPoll, const ptl_handle_eq_t *, unsigned int, ptl_time_t, ptl_event_t *,
         unsigned int *);
PROTO_IS(PtlCTAlloc, ptl_handle_ni_t, ptl_handle_ct_t *);
PROTO_IS(PtlCTFree, ptl_handle_ct_t);
PROTO_IS(PtlCTCancelTriggered, ptl_handle_ct_t);
PROTO_IS(PtlCTGet, ptl_handle_ct_t, ptl_ct_event_t *);
PROTO_IS(PtlCTWait, ptl_handle_ct_t, ptl_size_t, ptl_ct_event_t *);
PROTO_IS(PtlCTPoll, const ptl_handle_ct_t *, const ptl_size_t *, unsigned int, ptl_time_t,
         ptl_ct_event_t *, unsigned int *);
PROTO_IS(PtlCTSet, ptl_handle_ct_t, ptl_ct_event_t);
PROTO_IS(PtlCTInc, ptl_handle_ct_t, ptl_ct_event_t);
PROTO_IS(PtlPut, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
         ptl_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t);
PROTO_IS(PtlGet, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_process_t, ptl_pt_index_t,
         ptl_match_bits_t, ptl_size_t, void *);
PROTO_IS(PtlAtomic, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
         ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t, ptl_op_t,
         ptl_datatype_t);
PROTO_IS(PtlFetchAtomic, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         ptl_op_t, ptl_datatype_t);
PROTO_IS(PtlSwap, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         const void *, ptl_op_t, ptl_datatype_t);
PROTO_IS(PtlAtomicSync, void);
PROTO_IS(PtlNIAtomicSync, ptl_handle_ni_t);
PROTO_IS(PtlTriggeredPut, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
         ptl_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t, ptl_handle_ct_t,
         ptl_size_t);
PROTO_IS(PtlTriggeredGet, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_process_t,
         ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredAtomic, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         ptl_op_t, ptl_datatype_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredFetchAtomic, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t,
         ptl_size_t, ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
         ptl_hdr_data_t, ptl_op_t, ptl_datatype_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredSwap, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         const void *, ptl_op_t, ptl_datatype_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredCTSet, ptl_handle_ct_t, ptl_ct_event_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredCTInc, ptl_handle_ct_t, ptl_ct_event_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlStartBundle, ptl_handle_ni_t);
PROTO_IS(PtlEndBundle, ptl_handle_ni_t);
PROTO_IS(PtlHandleIsEqual, ptl_handle_any_t, ptl_handle_any_t);
PROTO_IS(PtlPTEnableNB, ptl_handle_ni_t, ptl_pt_index_t);
PROTO_IS(PtlPTDisableNB, ptl_handle_ni_t, ptl_pt_index_t);
PROTO_IS(PtlLEAppendNB, ptl_handle_ni_t, ptl_index_t, const ptl_le_t *, ptl_list_t, void *,
         ptl_handle_le_t *);
PROTO_IS(PtlLESearchNB, ptl_handle_ni_t, ptl_pt_index_t, const ptl_le_t *, ptl_search_op_t,
         void *);
PROTO_IS(PtlMEAppendNB, ptl_handle_ni_t, ptl_index_t, const ptl_me_t *, ptl_list_t, void *,
         ptl_handle_me_t *);
PROTO_IS(PtlMESearchNB, ptl_handle_ni_t, ptl_pt_index_t, const ptl_me_t *, ptl_search_op_t,
         void *);
PROTO_IS(PtlMDBindNB, ptl_handle_ni_t, const ptl_md_t *, ptl_handle_md_t *);
PROTO_IS(PtlPutNB, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
         ptl_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t);
PROTO_IS(PtlGetNB, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_process_t, ptl_pt_index_t,
         ptl_match_bits_t, ptl_size_t, void *);
PROTO_IS(PtlAtomicNB, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t, ptl_process_t,
         ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t, ptl_op_t,
         ptl_datatype_t);
PROTO_IS(PtlFetchAtomicNB, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         ptl_op_t, ptl_datatype_t);
PROTO_IS(PtlSwapNB, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t, ptl_size_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         const void *, ptl_op_t, ptl_datatype_t);
PROTO_IS(PtlTriggeredPutNB, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t,
         ptl_process_t, ptl_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredGetNB, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_process_t,
         ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredAtomicNB, ptl_handle_md_t, ptl_size_t, ptl_size_t, ptl_ack_req_t,
         ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *, ptl_hdr_data_t,
         ptl_op_t, ptl_datatype_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredFetchAtomicNB, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t,
         ptl_size_t, ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
         ptl_hdr_data_t, ptl_op_t, ptl_datatype_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredSwapNB, ptl_handle_md_t, ptl_size_t, ptl_handle_md_t, ptl_size_t,
         ptl_size_t, ptl_process_t, ptl_pt_index_t, ptl_match_bits_t, ptl_size_t, void *,
         ptl_hdr_data_t, const void *, ptl_op_t, ptl_datatype_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredCTSetNB, ptl_handle_ct_t, ptl_ct_event_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlTriggeredCTIncNB, ptl_handle_ct_t, ptl_ct_event_t, ptl_handle_ct_t, ptl_size_t);
PROTO_IS(PtlNFDs, ptl_handle_ni_t);
PROTO_IS(PtlPollFDs, ptl_handle_ni_t, struct pollfd *, int);
PROTO_IS(PtlPollEvents, ptl_handle_ni_t, struct pollfd *);
PROTO_IS(PtlFailTypeSize, void);

#include <stdio.h>

int main(void)
{
    ptl_handle_any_t none[] = {PTL_CT_NONE, PTL_EQ_NONE, PTL_INVALID_HANDLE};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; ++i) {
        if (none[i] != NULL) {
            puts("abi_layout_bxi: PTL_CT_NONE, PTL_EQ_NONE and PTL_INVALID_HANDLE must be NULL");
            return 1;
        }
    }
    puts("abi_layout_bxi: portals4.h and portals4_bxiext.h have the BXI layout and values");
    return 0;
}
