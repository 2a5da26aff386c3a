/*
 * portals4.h -- Portals 4.1 programming interface for the network emulator,
 * Sandia binary flavour, legacy generation (include/sandia-legacy/portals4.h):
 * the numbering of Sandia's header before its 2023-24 renumbering (see
 * include/sandia/portals4.h for what changed). Programs built against it run
 * on lib/sandia-legacy/libportals.so.4 (s4bxi-run --abi sandia-legacy).
 *
 * This is the emulator's own header. It was written from the Portals 4.1
 * specification (Sandia report SAND2017-3825); only interface facts
 * (type names, structure layouts, constant values and function signatures)
 * follow Sandia's open reference implementation, so that objects compiled
 * against the reference header link and run unchanged against the emulator
 * and vice versa (x86_64, gcc/clang, LP64).
 *
 * ABI notes:
 *  - Every handle is a 32-bit unsigned integer.
 *  - The "small" enumerated kinds of the API (event kind, NI failure code,
 *    list selector, search operation, ack request, atomic operation and
 *    atomic datatype) are one-byte unsigned integer typedefs with macro
 *    constants, not C enums. No compiler attribute (packed or otherwise)
 *    is involved, so their size is 1 on every compiler.
 *  - ptl_sr_index_t and ptl_ct_type_t are ordinary C enums (int sized).
 *  - Structures use natural alignment; see tests/unit/abi_layout_sandia.c
 *    for the sizes, member offsets and constants that are pinned.
 */
#ifndef PORTALS4_H
#define PORTALS4_H

/* Which binary flavour this header declares (the other one defines
 * S4BXI_PORTALS4_ABI_BXI). */
#define S4BXI_PORTALS4_ABI_SANDIA 1
#define S4BXI_PORTALS4_SANDIA_LEGACY 1

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Return codes                                                             */
/* ------------------------------------------------------------------------ */

enum ptl_retvals {
    PTL_OK              = 0,  /* success */
    PTL_ARG_INVALID     = 1,  /* an argument was invalid */
    PTL_CT_NONE_REACHED = 2,  /* CT poll timed out before any test value */
    PTL_EQ_DROPPED      = 3,  /* event returned, but earlier ones were lost */
    PTL_EQ_EMPTY        = 4,  /* no event available */
    PTL_FAIL            = 5,  /* unspecified failure */
    PTL_IGNORED         = 6,  /* request (e.g. PtlSetMap) not honoured */
    PTL_IN_USE          = 7,  /* resource busy */
    PTL_INTERRUPTED     = 8,  /* wait/poll interrupted by a free or fini */
    PTL_LIST_TOO_LONG   = 9,  /* list length limit reached */
    PTL_NO_INIT         = 10, /* library not initialised */
    PTL_NO_SPACE        = 11, /* out of memory / resources */
    PTL_PID_IN_USE      = 12, /* requested pid already taken */
    PTL_PT_FULL         = 13, /* no free portal table entry */
    PTL_PT_EQ_NEEDED    = 14, /* flow control requested without an EQ */
    PTL_PT_IN_USE       = 15  /* requested portal table index busy */
};
#define PTL_STATUS_LAST (PTL_PT_IN_USE + 1)

/* ------------------------------------------------------------------------ */
/* Base types                                                               */
/* ------------------------------------------------------------------------ */

typedef uint64_t     ptl_size_t;
typedef uint32_t     ptl_pt_index_t;
typedef uint64_t     ptl_match_bits_t;
typedef uint64_t     ptl_hdr_data_t;
typedef unsigned int ptl_time_t;       /* milliseconds */
typedef unsigned int ptl_interface_t;
typedef uint32_t     ptl_nid_t;
typedef uint32_t     ptl_pid_t;
typedef uint32_t     ptl_rank_t;
typedef uint32_t     ptl_uid_t;
typedef int          ptl_sr_value_t;

/* Status register selectors for PtlNIStatus(). */
typedef enum {
    PTL_SR_DROP_COUNT            = 0,
    PTL_SR_PERMISSION_VIOLATIONS = 1,
    PTL_SR_OPERATION_VIOLATIONS  = 2
} ptl_sr_index_t;
#define PTL_SR_LAST (PTL_SR_OPERATION_VIOLATIONS + 1)

/* Handles: all 32 bits wide. */
typedef uint32_t         ptl_handle_any_t;
typedef ptl_handle_any_t ptl_handle_ni_t;
typedef ptl_handle_any_t ptl_handle_eq_t;
typedef ptl_handle_any_t ptl_handle_ct_t;
typedef ptl_handle_any_t ptl_handle_md_t;
typedef ptl_handle_any_t ptl_handle_le_t;
typedef ptl_handle_any_t ptl_handle_me_t;

/* Process address: logical rank or physical (nid, pid) pair. 8 bytes. */
typedef union {
    ptl_rank_t rank;
    struct {
        ptl_nid_t nid;
        ptl_pid_t pid;
    } phys;
} ptl_process_t;

/* Memory descriptor (initiator side). 32 bytes. */
typedef struct {
    void           *start;
    ptl_size_t      length;
    unsigned int    options;   /* PTL_MD_* and PTL_IOVEC */
    ptl_handle_eq_t eq_handle;
    ptl_handle_ct_t ct_handle;
} ptl_md_t;

/* Scatter/gather element, used when PTL_IOVEC is set. 16 bytes. */
typedef struct {
    void      *iov_base;
    ptl_size_t iov_len;
} ptl_iovec_t;

/* List entry (non-matching target buffer). 32 bytes. */
typedef struct {
    void           *start;
    ptl_size_t      length;
    ptl_handle_ct_t ct_handle;
    ptl_uid_t       uid;       /* PTL_UID_ANY for no restriction */
    unsigned int    options;   /* PTL_LE_* and PTL_IOVEC */
} ptl_le_t;

/* ------------------------------------------------------------------------ */
/* Generic constants                                                        */
/* ------------------------------------------------------------------------ */

/* start/length of an MD, LE or ME describe an array of ptl_iovec_t. */
#define PTL_IOVEC 0x1

#define PTL_EQ_NONE        ((ptl_handle_eq_t)0x3fffffff)
#define PTL_CT_NONE        ((ptl_handle_ct_t)0x5fffffff)
#define PTL_INVALID_HANDLE ((ptl_handle_any_t)0xffffffff)
#define PTL_IFACE_DEFAULT  ((ptl_interface_t)0xffffffff)
#define PTL_PID_ANY        ((ptl_pid_t)0xffff)
#define PTL_PID_MAX        ((ptl_pid_t)1024)
#define PTL_NID_ANY        ((ptl_nid_t)0xffff)
#define PTL_UID_ANY        ((ptl_uid_t)0xffffffff)
#define PTL_PT_ANY         ((ptl_pt_index_t)0xffffffff)
#define PTL_RANK_ANY       ((ptl_rank_t)0xffffffff)
#define PTL_TIME_FOREVER   ((ptl_time_t)0xffffffff)
#define PTL_SIZE_MAX       ((ptl_size_t)0xffffffffffffffffULL)

/* ------------------------------------------------------------------------ */
/* Network interfaces                                                       */
/* ------------------------------------------------------------------------ */

/* PtlNIInit() options: one of MATCHING/NO_MATCHING and one of
 * LOGICAL/PHYSICAL. */
#define PTL_NI_MATCHING          0x1
#define PTL_NI_NO_MATCHING       0x2
#define PTL_NI_LOGICAL           0x4
#define PTL_NI_PHYSICAL          0x8
#define PTL_NI_INIT_OPTIONS_MASK 0xf

/* Failure code carried in events. One byte. */
typedef unsigned char ptl_ni_fail_t;
#define PTL_NI_OK             0
#define PTL_NI_UNDELIVERABLE  1
#define PTL_NI_DROPPED        2
#define PTL_NI_PT_DISABLED    3
#define PTL_NI_PERM_VIOLATION 4
#define PTL_NI_OP_VIOLATION   5
#define PTL_NI_NO_MATCH       6
#define PTL_NI_SEGV           7

/* Bits of ptl_ni_limits_t.features. */
#define PTL_TARGET_BIND_INACCESSIBLE 0x1
#define PTL_TOTAL_DATA_ORDERING      0x2
#define PTL_COHERENT_ATOMICS         0x4

/* Interface limits. 96 bytes. */
typedef struct {
    int          max_entries;
    int          max_unexpected_headers;
    int          max_mds;
    int          max_cts;
    int          max_eqs;
    int          max_pt_index;
    int          max_iovecs;
    int          max_list_size;
    int          max_triggered_ops;
    ptl_size_t   max_msg_size;
    ptl_size_t   max_atomic_size;
    ptl_size_t   max_fetch_atomic_size;
    ptl_size_t   max_waw_ordered_size;
    ptl_size_t   max_war_ordered_size;
    ptl_size_t   max_volatile_size;
    unsigned int features;
} ptl_ni_limits_t;

/* ------------------------------------------------------------------------ */
/* Portal table entries                                                     */
/* ------------------------------------------------------------------------ */

#define PTL_PT_ONLY_USE_ONCE      0x1
#define PTL_PT_FLOWCTRL           0x2
#define PTL_PT_ONLY_TRUNCATE      0x4
#define PTL_PT_MATCH_UNORDERED    0x8
#define PTL_PT_ALLOC_OPTIONS_MASK 0xf

/* ------------------------------------------------------------------------ */
/* Memory descriptor options                                                */
/* ------------------------------------------------------------------------ */

#define PTL_MD_EVENT_CT_SEND         0x0002
#define PTL_MD_EVENT_CT_REPLY        0x0004
#define PTL_MD_EVENT_CT_ACK          0x0008
#define PTL_MD_UNORDERED             0x0010
#define PTL_MD_EVENT_SUCCESS_DISABLE 0x0020
#define PTL_MD_VOLATILE              0x0040
#define PTL_MD_EVENT_SEND_DISABLE    0x0080
#define PTL_MD_EVENT_CT_BYTES        0x8000  /* same bit as PTL_ME_EVENT_CT_BYTES */
#define PTL_MD_OPTIONS_MASK          0x80ff

/* ------------------------------------------------------------------------ */
/* List selection and search                                                */
/* ------------------------------------------------------------------------ */

/* Which list of a portal table entry to append to. One byte. */
typedef unsigned char ptl_list_t;
#define PTL_PRIORITY_LIST 0
#define PTL_OVERFLOW_LIST 1

/* PtlLESearch()/PtlMESearch() mode. One byte. */
typedef unsigned char ptl_search_op_t;
#define PTL_SEARCH_ONLY        0
#define PTL_SEARCH_DELETE      1
#define PTL_ACTIVE_SEARCH_ONLY 2  /* implementation extension: probe the
                                     priority list; not in the 4.1 spec */

/* ------------------------------------------------------------------------ */
/* Match list entry / list entry options                                    */
/* ------------------------------------------------------------------------ */

/* Bit 0 is PTL_IOVEC. Bits 1..15 are shared by LEs and MEs. */
#define PTL_ME_OP_PUT                 0x00000002
#define PTL_ME_OP_GET                 0x00000004
#define PTL_ME_USE_ONCE               0x00000008
#define PTL_ME_ACK_DISABLE            0x00000010
#define PTL_ME_UNEXPECTED_HDR_DISABLE 0x00000020
#define PTL_ME_IS_ACCESSIBLE          0x00000040
#define PTL_ME_EVENT_LINK_DISABLE     0x00000080
#define PTL_ME_EVENT_COMM_DISABLE     0x00000100
#define PTL_ME_EVENT_FLOWCTRL_DISABLE 0x00000200
#define PTL_ME_EVENT_SUCCESS_DISABLE  0x00000400
#define PTL_ME_EVENT_OVER_DISABLE     0x00000800
#define PTL_ME_EVENT_UNLINK_DISABLE   0x00001000
#define PTL_ME_EVENT_CT_COMM          0x00002000
#define PTL_ME_EVENT_CT_OVERFLOW      0x00004000
#define PTL_ME_EVENT_CT_BYTES         0x00008000
/* ME-only bits. */
#define PTL_ME_MANAGE_LOCAL           0x00010000
#define PTL_ME_NO_TRUNCATE            0x00020000
#define PTL_ME_MAY_ALIGN              0x00040000
#define PTL_ME_APPEND_OPTIONS_MASK    0x0007ffff

#define PTL_LE_OP_PUT                 PTL_ME_OP_PUT
#define PTL_LE_OP_GET                 PTL_ME_OP_GET
#define PTL_LE_USE_ONCE               PTL_ME_USE_ONCE
#define PTL_LE_ACK_DISABLE            PTL_ME_ACK_DISABLE
#define PTL_LE_UNEXPECTED_HDR_DISABLE PTL_ME_UNEXPECTED_HDR_DISABLE
#define PTL_LE_IS_ACCESSIBLE          PTL_ME_IS_ACCESSIBLE
#define PTL_LE_EVENT_LINK_DISABLE     PTL_ME_EVENT_LINK_DISABLE
#define PTL_LE_EVENT_COMM_DISABLE     PTL_ME_EVENT_COMM_DISABLE
#define PTL_LE_EVENT_FLOWCTRL_DISABLE PTL_ME_EVENT_FLOWCTRL_DISABLE
#define PTL_LE_EVENT_SUCCESS_DISABLE  PTL_ME_EVENT_SUCCESS_DISABLE
#define PTL_LE_EVENT_OVER_DISABLE     PTL_ME_EVENT_OVER_DISABLE
#define PTL_LE_EVENT_UNLINK_DISABLE   PTL_ME_EVENT_UNLINK_DISABLE
#define PTL_LE_EVENT_CT_COMM          PTL_ME_EVENT_CT_COMM
#define PTL_LE_EVENT_CT_OVERFLOW      PTL_ME_EVENT_CT_OVERFLOW
#define PTL_LE_EVENT_CT_BYTES         PTL_ME_EVENT_CT_BYTES
#define PTL_LE_APPEND_OPTIONS_MASK    0x0000ffff

/* Matching list entry. 64 bytes. */
typedef struct {
    void            *start;
    ptl_size_t       length;
    ptl_handle_ct_t  ct_handle;
    ptl_uid_t        uid;         /* PTL_UID_ANY for no restriction */
    unsigned int     options;     /* PTL_ME_* and PTL_IOVEC */
    ptl_process_t    match_id;    /* may use PTL_NID_ANY/PTL_PID_ANY/PTL_RANK_ANY */
    ptl_match_bits_t match_bits;
    ptl_match_bits_t ignore_bits; /* set bits are not compared */
    ptl_size_t       min_free;    /* auto-unlink threshold (MANAGE_LOCAL) */
} ptl_me_t;

/* ------------------------------------------------------------------------ */
/* Counting events                                                          */
/* ------------------------------------------------------------------------ */

/* 16 bytes. */
typedef struct {
    ptl_size_t success;
    ptl_size_t failure;
} ptl_ct_event_t;

typedef enum {
    PTL_CT_OPERATION = 0,
    PTL_CT_BYTE      = 1
} ptl_ct_type_t;

/* ------------------------------------------------------------------------ */
/* Data movement: acknowledgement requests                                  */
/* ------------------------------------------------------------------------ */

typedef unsigned char ptl_ack_req_t;
#define PTL_NO_ACK_REQ 0
#define PTL_ACK_REQ    1
#define PTL_CT_ACK_REQ 2
#define PTL_OC_ACK_REQ 3

/* ------------------------------------------------------------------------ */
/* Atomic operations and datatypes                                          */
/* ------------------------------------------------------------------------ */

typedef unsigned char ptl_op_t;
#define PTL_MIN      0
#define PTL_MAX      1
#define PTL_SUM      2
#define PTL_PROD     3
#define PTL_LOR      4
#define PTL_LAND     5
#define PTL_BOR      6
#define PTL_BAND     7
#define PTL_LXOR     8
#define PTL_BXOR     9
#define PTL_SWAP     10
#define PTL_CSWAP    11
#define PTL_CSWAP_NE 12
#define PTL_CSWAP_LE 13
#define PTL_CSWAP_LT 14
#define PTL_CSWAP_GE 15
#define PTL_CSWAP_GT 16
#define PTL_MSWAP    17
#define PTL_OP_LAST  18

typedef unsigned char ptl_datatype_t;
#define PTL_INT8_T              0
#define PTL_UINT8_T             1
#define PTL_INT16_T             2
#define PTL_UINT16_T            3
#define PTL_INT32_T             4
#define PTL_UINT32_T            5
#define PTL_FLOAT               6
#define PTL_INT64_T             7
#define PTL_UINT64_T            8
#define PTL_DOUBLE              9
#define PTL_FLOAT_COMPLEX       10
#define PTL_DOUBLE_COMPLEX      11
#define PTL_LONG_DOUBLE         12
#define PTL_LONG_DOUBLE_COMPLEX 13
#define PTL_DATATYPE_LAST       14

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

typedef unsigned char ptl_event_kind_t;
#define PTL_EVENT_GET                   0
#define PTL_EVENT_GET_OVERFLOW          1
#define PTL_EVENT_PUT                   2
#define PTL_EVENT_PUT_OVERFLOW          3
#define PTL_EVENT_ATOMIC                4
#define PTL_EVENT_ATOMIC_OVERFLOW       5
#define PTL_EVENT_FETCH_ATOMIC          6
#define PTL_EVENT_FETCH_ATOMIC_OVERFLOW 7
#define PTL_EVENT_REPLY                 8
#define PTL_EVENT_SEND                  9
#define PTL_EVENT_ACK                   10
#define PTL_EVENT_PT_DISABLED           11
#define PTL_EVENT_LINK                  12
#define PTL_EVENT_AUTO_UNLINK           13
#define PTL_EVENT_AUTO_FREE             14
#define PTL_EVENT_SEARCH                15

/* Full event as delivered by the EQ functions. 80 bytes; the last five
 * members are single bytes packed after pt_index (3 bytes tail padding). */
typedef struct {
    void            *start;
    void            *user_ptr;
    ptl_hdr_data_t   hdr_data;
    ptl_match_bits_t match_bits;
    ptl_size_t       rlength;
    ptl_size_t       mlength;
    ptl_size_t       remote_offset;
    ptl_process_t    initiator;
    ptl_uid_t        uid;
    ptl_pt_index_t   pt_index;
    ptl_event_kind_t type;
    ptl_list_t       ptl_list;
    ptl_ni_fail_t    ni_fail_type;
    ptl_op_t         atomic_operation;
    ptl_datatype_t   atomic_type;
} ptl_event_t;

/* ------------------------------------------------------------------------ */
/* Source compatibility with older (4.0-era) names. These are not used by  */
/* any structure or function below and do not affect the binary interface. */
/* ------------------------------------------------------------------------ */

typedef uint32_t ptl_jid_t;
typedef union {
    ptl_uid_t uid;
    ptl_jid_t jid;
} ptl_ac_id_t;
#define PTL_JID_ANY  ((ptl_jid_t)0xffffffff)
#define PTL_JID_NONE ((ptl_jid_t)0)
#define PTL_SR_PERMISSIONS_VIOLATIONS PTL_SR_PERMISSION_VIOLATIONS
#define PTL_SR_OPERATIONS_VIOLATIONS  PTL_SR_OPERATION_VIOLATIONS

/* ------------------------------------------------------------------------ */
/* Functions                                                                */
/* ------------------------------------------------------------------------ */

/* Library initialisation. */
int  PtlInit(void);
void PtlFini(void);

/* Network interfaces. */
int PtlNIInit(ptl_interface_t        iface,
              unsigned int           options,
              ptl_pid_t              pid,
              const ptl_ni_limits_t *desired,
              ptl_ni_limits_t       *actual,
              ptl_handle_ni_t       *ni_handle);
int PtlNIFini(ptl_handle_ni_t ni_handle);
int PtlNIStatus(ptl_handle_ni_t ni_handle,
                ptl_sr_index_t  status_register,
                ptl_sr_value_t *status);
int PtlNIHandle(ptl_handle_any_t handle,
                ptl_handle_ni_t *ni_handle);
int PtlSetMap(ptl_handle_ni_t      ni_handle,
              ptl_size_t           map_size,
              const ptl_process_t *mapping);
int PtlGetMap(ptl_handle_ni_t ni_handle,
              ptl_size_t      map_size,
              ptl_process_t  *mapping,
              ptl_size_t     *actual_map_size);

/* Portal table entries. */
int PtlPTAlloc(ptl_handle_ni_t ni_handle,
               unsigned int    options,
               ptl_handle_eq_t eq_handle,
               ptl_pt_index_t  pt_index_req,
               ptl_pt_index_t *pt_index);
int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);

/* Identification. */
int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid);
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id);
int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t *id);

/* Memory descriptors. */
int PtlMDBind(ptl_handle_ni_t  ni_handle,
              const ptl_md_t  *md,
              ptl_handle_md_t *md_handle);
int PtlMDRelease(ptl_handle_md_t md_handle);

/* List entries. */
int PtlLEAppend(ptl_handle_ni_t  ni_handle,
                ptl_pt_index_t   pt_index,
                const ptl_le_t  *le,
                ptl_list_t       ptl_list,
                void            *user_ptr,
                ptl_handle_le_t *le_handle);
int PtlLEUnlink(ptl_handle_le_t le_handle);
int PtlLESearch(ptl_handle_ni_t ni_handle,
                ptl_pt_index_t  pt_index,
                const ptl_le_t *le,
                ptl_search_op_t ptl_search_op,
                void           *user_ptr);

/* Matching list entries. */
int PtlMEAppend(ptl_handle_ni_t  ni_handle,
                ptl_pt_index_t   pt_index,
                const ptl_me_t  *me,
                ptl_list_t       ptl_list,
                void            *user_ptr,
                ptl_handle_me_t *me_handle);
int PtlMEUnlink(ptl_handle_me_t me_handle);
int PtlMESearch(ptl_handle_ni_t ni_handle,
                ptl_pt_index_t  pt_index,
                const ptl_me_t *me,
                ptl_search_op_t ptl_search_op,
                void           *user_ptr);

/* Counting events. */
int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t *ct_handle);
int PtlCTFree(ptl_handle_ct_t ct_handle);
int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle);
int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t *event);
int PtlCTWait(ptl_handle_ct_t ct_handle,
              ptl_size_t      test,
              ptl_ct_event_t *event);
int PtlCTPoll(const ptl_handle_ct_t *ct_handles,
              const ptl_size_t      *tests,
              unsigned int           size,
              ptl_time_t             timeout,
              ptl_ct_event_t        *event,
              unsigned int          *which);
int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct);
int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment);

/* Data movement. */
int PtlPut(ptl_handle_md_t  md_handle,
           ptl_size_t       local_offset,
           ptl_size_t       length,
           ptl_ack_req_t    ack_req,
           ptl_process_t    target_id,
           ptl_pt_index_t   pt_index,
           ptl_match_bits_t match_bits,
           ptl_size_t       remote_offset,
           void            *user_ptr,
           ptl_hdr_data_t   hdr_data);
int PtlGet(ptl_handle_md_t  md_handle,
           ptl_size_t       local_offset,
           ptl_size_t       length,
           ptl_process_t    target_id,
           ptl_pt_index_t   pt_index,
           ptl_match_bits_t match_bits,
           ptl_size_t       remote_offset,
           void            *user_ptr);

/* Atomics. */
int PtlAtomic(ptl_handle_md_t  md_handle,
              ptl_size_t       local_offset,
              ptl_size_t       length,
              ptl_ack_req_t    ack_req,
              ptl_process_t    target_id,
              ptl_pt_index_t   pt_index,
              ptl_match_bits_t match_bits,
              ptl_size_t       remote_offset,
              void            *user_ptr,
              ptl_hdr_data_t   hdr_data,
              ptl_op_t         operation,
              ptl_datatype_t   datatype);
int PtlFetchAtomic(ptl_handle_md_t  get_md_handle,
                   ptl_size_t       local_get_offset,
                   ptl_handle_md_t  put_md_handle,
                   ptl_size_t       local_put_offset,
                   ptl_size_t       length,
                   ptl_process_t    target_id,
                   ptl_pt_index_t   pt_index,
                   ptl_match_bits_t match_bits,
                   ptl_size_t       remote_offset,
                   void            *user_ptr,
                   ptl_hdr_data_t   hdr_data,
                   ptl_op_t         operation,
                   ptl_datatype_t   datatype);
int PtlSwap(ptl_handle_md_t  get_md_handle,
            ptl_size_t       local_get_offset,
            ptl_handle_md_t  put_md_handle,
            ptl_size_t       local_put_offset,
            ptl_size_t       length,
            ptl_process_t    target_id,
            ptl_pt_index_t   pt_index,
            ptl_match_bits_t match_bits,
            ptl_size_t       remote_offset,
            void            *user_ptr,
            ptl_hdr_data_t   hdr_data,
            const void      *operand,
            ptl_op_t         operation,
            ptl_datatype_t   datatype);
int PtlAtomicSync(void);

/* Event queues. */
int PtlEQAlloc(ptl_handle_ni_t  ni_handle,
               ptl_size_t       count,
               ptl_handle_eq_t *eq_handle);
int PtlEQFree(ptl_handle_eq_t eq_handle);
int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQPoll(const ptl_handle_eq_t *eq_handles,
              unsigned int           size,
              ptl_time_t             timeout,
              ptl_event_t           *event,
              unsigned int          *which);

/* Triggered operations: the base operation's arguments, then the counter
 * to watch and the threshold at which the operation is released. */
int PtlTriggeredPut(ptl_handle_md_t  md_handle,
                    ptl_size_t       local_offset,
                    ptl_size_t       length,
                    ptl_ack_req_t    ack_req,
                    ptl_process_t    target_id,
                    ptl_pt_index_t   pt_index,
                    ptl_match_bits_t match_bits,
                    ptl_size_t       remote_offset,
                    void            *user_ptr,
                    ptl_hdr_data_t   hdr_data,
                    ptl_handle_ct_t  trig_ct_handle,
                    ptl_size_t       threshold);
int PtlTriggeredGet(ptl_handle_md_t  md_handle,
                    ptl_size_t       local_offset,
                    ptl_size_t       length,
                    ptl_process_t    target_id,
                    ptl_pt_index_t   pt_index,
                    ptl_match_bits_t match_bits,
                    ptl_size_t       remote_offset,
                    void            *user_ptr,
                    ptl_handle_ct_t  trig_ct_handle,
                    ptl_size_t       threshold);
int PtlTriggeredAtomic(ptl_handle_md_t  md_handle,
                       ptl_size_t       local_offset,
                       ptl_size_t       length,
                       ptl_ack_req_t    ack_req,
                       ptl_process_t    target_id,
                       ptl_pt_index_t   pt_index,
                       ptl_match_bits_t match_bits,
                       ptl_size_t       remote_offset,
                       void            *user_ptr,
                       ptl_hdr_data_t   hdr_data,
                       ptl_op_t         operation,
                       ptl_datatype_t   datatype,
                       ptl_handle_ct_t  trig_ct_handle,
                       ptl_size_t       threshold);
int PtlTriggeredFetchAtomic(ptl_handle_md_t  get_md_handle,
                            ptl_size_t       local_get_offset,
                            ptl_handle_md_t  put_md_handle,
                            ptl_size_t       local_put_offset,
                            ptl_size_t       length,
                            ptl_process_t    target_id,
                            ptl_pt_index_t   pt_index,
                            ptl_match_bits_t match_bits,
                            ptl_size_t       remote_offset,
                            void            *user_ptr,
                            ptl_hdr_data_t   hdr_data,
                            ptl_op_t         operation,
                            ptl_datatype_t   datatype,
                            ptl_handle_ct_t  trig_ct_handle,
                            ptl_size_t       threshold);
int PtlTriggeredSwap(ptl_handle_md_t  get_md_handle,
                     ptl_size_t       local_get_offset,
                     ptl_handle_md_t  put_md_handle,
                     ptl_size_t       local_put_offset,
                     ptl_size_t       length,
                     ptl_process_t    target_id,
                     ptl_pt_index_t   pt_index,
                     ptl_match_bits_t match_bits,
                     ptl_size_t       remote_offset,
                     void            *user_ptr,
                     ptl_hdr_data_t   hdr_data,
                     const void      *operand,
                     ptl_op_t         operation,
                     ptl_datatype_t   datatype,
                     ptl_handle_ct_t  trig_ct_handle,
                     ptl_size_t       threshold);
int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle,
                      ptl_ct_event_t  increment,
                      ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t      threshold);
int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle,
                      ptl_ct_event_t  new_ct,
                      ptl_handle_ct_t trig_ct_handle,
                      ptl_size_t      threshold);

/* Triggered list manipulation: an extension of the reference
 * implementation, not part of the 4.1 specification. Note that the
 * reference declares the ME argument without const. */
int PtlTriggeredMEAppend(ptl_handle_ni_t  ni_handle,
                         ptl_pt_index_t   pt_index,
                         ptl_me_t        *me_init,
                         ptl_list_t       ptl_list,
                         void            *user_ptr,
                         ptl_handle_me_t *me_handle,
                         ptl_handle_ct_t  trig_ct_handle,
                         ptl_size_t       threshold);
int PtlTriggeredMEUnlink(ptl_handle_me_t me_handle,
                         ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t      threshold);

/* Deferred communication hints. */
int PtlStartBundle(ptl_handle_ni_t ni_handle);
int PtlEndBundle(ptl_handle_ni_t ni_handle);

/* Handles. Returns non-zero when both handles name the same object. */
int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PORTALS4_H */
