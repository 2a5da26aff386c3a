/*
 * portals4.h -- Portals 4 programming interface for the network emulator,
 * BXI binary flavour (include/bxi/portals4.h). Programs built against it, or
 * against the portals4.h of Atos's BXI software stack, run on
 * lib/bxi/libportals.so.4 (s4bxi-run --abi bxi).
 *
 * This is the emulator's own header, written from the Portals 4.1
 * specification (Sandia report SAND2017-3825). Only the interface facts --
 * type names and widths, structure and union layouts, constant values and
 * function signatures -- follow BXI's portals4.h as shipped with S4BXI, so
 * that objects compiled against either header run unchanged on the other's
 * library (x86_64, gcc/clang, LP64).
 *
 * ABI notes (they differ from the Sandia flavour):
 *  - Handles are pointers (8 bytes). PTL_EQ_NONE, PTL_CT_NONE and
 *    PTL_INVALID_HANDLE are all NULL; which one is meant follows from where
 *    the value is given.
 *  - Enumerated kinds (event kind, atomic operation and datatype, status
 *    register) are C enums; the other small kinds (NI failure code, list,
 *    ack request, search operation) are int or unsigned int. All are 4 bytes.
 *  - ptl_le_t is the same structure as ptl_me_t (an LE ignores the matching
 *    members).
 *  - ptl_time_t is a long; PTL_TIME_FOREVER is -1.
 *  - Return codes and NI failure codes share one numbering (PTL_FAIL,
 *    PTL_ARG_INVALID and PTL_IN_USE are also failure codes); the codes the
 *    hardware never produces start at 32.
 *  - Wildcards: PTL_NID_ANY and PTL_PID_ANY are 0, PTL_RANK_ANY is 0x7fffff.
 *  - See tests/unit/abi_layout_bxi.c for the sizes, member offsets and
 *    constants that are pinned.
 *
 * The BXI extensions (string conversions, ptl_ev_desc) are declared in
 * portals4_bxiext.h, next to this header.
 */
#ifndef PORTALS4_H
#define PORTALS4_H

/* Which binary flavour this header declares (the other one defines
 * S4BXI_PORTALS4_ABI_SANDIA). */
#define S4BXI_PORTALS4_ABI_BXI 1

/* BXI's header makes these available to its users; so does this one. */
#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of the interface this header describes. */
#define PTL_MAJOR_VERSION 4
#define PTL_MINOR_VERSION 0

/* ------------------------------------------------------------------------ */
/* Limits and wildcards                                                     */
/* ------------------------------------------------------------------------ */

#define PTL_IFACE_DEFAULT 0                   /* the (only) interface */
#define PTL_SIZE_MAX      ((1ULL << 48) - 1)  /* largest ptl_size_t in use */
#define PTL_PID_MAX       ((1 << 12) - 1)     /* largest process id */
#define PTL_TIME_FOREVER  (-1)                /* poll without a timeout */

/* "No object" and "not an object": all three are the null handle. */
#define PTL_CT_NONE        NULL
#define PTL_EQ_NONE        NULL
#define PTL_INVALID_HANDLE NULL

#define PTL_PT_ANY   (~0)        /* PtlPTAlloc: any free index */
#define PTL_PID_ANY  0x0         /* any process id */
#define PTL_UID_ANY  0xffffffff  /* any user id */
#define PTL_NID_ANY  0x0         /* any node id */
#define PTL_RANK_ANY 0x7fffff    /* any rank */

/* ------------------------------------------------------------------------ */
/* Network interface options and features                                   */
/* ------------------------------------------------------------------------ */

/* PtlNIInit(): one of PHYSICAL/LOGICAL and one of MATCHING/NO_MATCHING. */
#define PTL_NI_PHYSICAL    0x1
#define PTL_NI_MATCHING    0x2
#define PTL_NI_LOGICAL     0x4
#define PTL_NI_NO_MATCHING 0x8

/* Implementation extensions of the NI options. */
#define PTL_NI_PRIVATE 0x0
#define PTL_NI_SHARED  0x4

/* Bits of ptl_ni_limits_t.features. */
#define PTL_TARGET_BIND_INACCESSIBLE 0x1
#define PTL_TOTAL_DATA_ORDERING      0x2
#define PTL_COHERENT_ATOMICS         0x4
#define PTL_UNRELIABLE               0x8  /* implementation extension */

/* Status registers of PtlNIStatus(). */
enum ptl_sr_index {
    PTL_SR_DROP_COUNT = 0,
    PTL_SR_PERMISSION_VIOLATIONS = 1,
    PTL_SR_OPERATION_VIOLATIONS = 2
};

/* ------------------------------------------------------------------------ */
/* Portal table entry options                                               */
/* ------------------------------------------------------------------------ */

#define PTL_PT_ONLY_USE_ONCE 0x1
#define PTL_PT_ONLY_TRUNCATE 0x2
#define PTL_PT_FLOWCTRL      0x4

/* ------------------------------------------------------------------------ */
/* Events                                                                   */
/* ------------------------------------------------------------------------ */

enum ptl_event_kind {
    PTL_EVENT_GET = 0,
    PTL_EVENT_GET_OVERFLOW = 1,
    PTL_EVENT_PUT = 2,
    PTL_EVENT_PUT_OVERFLOW = 3,
    PTL_EVENT_ATOMIC = 4,
    PTL_EVENT_ATOMIC_OVERFLOW = 5,
    PTL_EVENT_FETCH_ATOMIC = 6,
    PTL_EVENT_FETCH_ATOMIC_OVERFLOW = 7,
    PTL_EVENT_REPLY = 8,
    PTL_EVENT_SEND = 9,
    PTL_EVENT_ACK = 10,
    PTL_EVENT_PT_DISABLED = 11,
    PTL_EVENT_AUTO_UNLINK = 12,
    PTL_EVENT_AUTO_FREE = 13,
    PTL_EVENT_SEARCH = 14,
    PTL_EVENT_LINK = 15
};

/* Acknowledgement requests of PtlPut() and the atomics. */
#define PTL_NO_ACK_REQ 0x0
#define PTL_CT_ACK_REQ 0x1
#define PTL_OC_ACK_REQ 0x2
#define PTL_ACK_REQ    0x3

/* ------------------------------------------------------------------------ */
/* NI failure codes and return codes (one numbering)                        */
/* ------------------------------------------------------------------------ */

#define PTL_NI_OK             0x0
#define PTL_NI_PERM_VIOLATION 0x1
#define PTL_NI_SEGV           0x2
#define PTL_NI_PT_DISABLED    0x3
#define PTL_NI_DROPPED        0x4
#define PTL_NI_UNDELIVERABLE  0x5
#define PTL_FAIL              0x6
#define PTL_ARG_INVALID       0x7
#define PTL_IN_USE            0x8
#define PTL_NI_NO_MATCH       0x9
#define PTL_NI_TARGET_INVALID 0xa
#define PTL_NI_OP_VIOLATION   0xb

/* Return codes of the calls only. */
#define PTL_OK              PTL_NI_OK
#define PTL_CT_NONE_REACHED 32
#define PTL_EQ_DROPPED      33
#define PTL_EQ_EMPTY        34
#define PTL_IGNORED         36
#define PTL_INTERRUPTED     37
#define PTL_LIST_TOO_LONG   38
#define PTL_NO_INIT         39
#define PTL_NO_SPACE        40
#define PTL_PID_IN_USE      41
#define PTL_PT_FULL         42
#define PTL_PT_EQ_NEEDED    43
#define PTL_PT_IN_USE       44
#define PTL_SIZE_INVALID    45  /* implementation extension */
#define PTL_TRY_AGAIN       46  /* the non-blocking calls: retry later */

/* ------------------------------------------------------------------------ */
/* Memory descriptor, list entry and matching list entry options            */
/* ------------------------------------------------------------------------ */

/* start/length of an MD, LE or ME describe an array of ptl_iovec_t. */
#define PTL_IOVEC 0x80

#define PTL_ME_EVENT_COMM_DISABLE     0x1
#define PTL_ME_EVENT_SUCCESS_DISABLE  0x2
#define PTL_ME_EVENT_OVER_DISABLE     0x4
#define PTL_ME_EVENT_LINK_DISABLE     0x8
#define PTL_ME_EVENT_CT_BYTES         0x10
#define PTL_ME_EVENT_CT_OVERFLOW      0x20
#define PTL_ME_EVENT_CT_COMM          0x40
#define PTL_ME_OP_PUT                 0x100
#define PTL_ME_OP_GET                 0x200
#define PTL_ME_USE_ONCE               0x400
#define PTL_ME_ACK_DISABLE            0x800
#define PTL_ME_MAY_ALIGN              0x1000   /* ME only */
#define PTL_ME_EVENT_UNLINK_DISABLE   0x2000
#define PTL_ME_MANAGE_LOCAL           0x4000   /* ME only */
#define PTL_ME_NO_TRUNCATE            0x8000   /* ME only */
#define PTL_ME_UNEXPECTED_HDR_DISABLE 0x10000
#define PTL_ME_EVENT_FLOWCTRL_DISABLE 0x20000
#define PTL_ME_IS_ACCESSIBLE          0x40000

/* The LE names of the options an LE shares with an ME. */
#define PTL_LE_OP_PUT                 PTL_ME_OP_PUT
#define PTL_LE_OP_GET                 PTL_ME_OP_GET
#define PTL_LE_USE_ONCE               PTL_ME_USE_ONCE
#define PTL_LE_ACK_DISABLE            PTL_ME_ACK_DISABLE
#define PTL_LE_UNEXPECTED_HDR_DISABLE PTL_ME_UNEXPECTED_HDR_DISABLE
#define PTL_LE_IS_ACCESSIBLE          PTL_ME_IS_ACCESSIBLE
#define PTL_LE_EVENT_COMM_DISABLE     PTL_ME_EVENT_COMM_DISABLE
#define PTL_LE_EVENT_FLOWCTRL_DISABLE PTL_ME_EVENT_FLOWCTRL_DISABLE
#define PTL_LE_EVENT_SUCCESS_DISABLE  PTL_ME_EVENT_SUCCESS_DISABLE
#define PTL_LE_EVENT_OVER_DISABLE     PTL_ME_EVENT_OVER_DISABLE
#define PTL_LE_EVENT_UNLINK_DISABLE   PTL_ME_EVENT_UNLINK_DISABLE
#define PTL_LE_EVENT_LINK_DISABLE     PTL_ME_EVENT_LINK_DISABLE
#define PTL_LE_EVENT_CT_COMM          PTL_ME_EVENT_CT_COMM
#define PTL_LE_EVENT_CT_OVERFLOW      PTL_ME_EVENT_CT_OVERFLOW
#define PTL_LE_EVENT_CT_BYTES         PTL_ME_EVENT_CT_BYTES

#define PTL_MD_EVENT_SUCCESS_DISABLE 0x1
#define PTL_MD_EVENT_CT_SEND         0x2
#define PTL_MD_EVENT_CT_REPLY        0x4
#define PTL_MD_EVENT_CT_ACK          0x8
#define PTL_MD_EVENT_CT_BYTES        0x10
#define PTL_MD_UNORDERED             0x20
#define PTL_MD_EVENT_SEND_DISABLE    0x40
#define PTL_MD_VOLATILE              0x100

/* PtlLESearch()/PtlMESearch() modes. */
#define PTL_SEARCH_ONLY   0x0
#define PTL_SEARCH_DELETE 0x1

/* The two lists of a portal table entry. */
#define PTL_PRIORITY_LIST 0x0
#define PTL_OVERFLOW_LIST 0x1

/* ------------------------------------------------------------------------ */
/* Atomic operations and datatypes                                          */
/* ------------------------------------------------------------------------ */

/* The numbering has gaps: it is the NIC's. */
enum ptl_op {
    PTL_MIN = 0x0,
    PTL_MAX = 0x1,
    PTL_SUM = 0x2,
    PTL_PROD = 0x3,
    PTL_LOR = 0x4,
    PTL_LAND = 0x5,
    PTL_LXOR = 0x6,
    PTL_BOR = 0x8,
    PTL_BAND = 0x9,
    PTL_BXOR = 0xa,
    PTL_SWAP = 0xc,
    PTL_CSWAP_GT = 0x10,
    PTL_CSWAP_LT = 0x11,
    PTL_CSWAP_GE = 0x12,
    PTL_CSWAP_LE = 0x13,
    PTL_CSWAP = 0x14,
    PTL_CSWAP_NE = 0x15,
    PTL_MSWAP = 0x18
};

enum ptl_datatype {
    PTL_INT8_T = 0x0,
    PTL_UINT8_T = 0x1,
    PTL_INT16_T = 0x2,
    PTL_UINT16_T = 0x3,
    PTL_INT32_T = 0x4,
    PTL_UINT32_T = 0x5,
    PTL_INT64_T = 0x6,
    PTL_UINT64_T = 0x7,
    PTL_FLOAT = 0xa,
    PTL_FLOAT_COMPLEX = 0xb,
    PTL_DOUBLE = 0xc,
    PTL_DOUBLE_COMPLEX = 0xd,
    PTL_LONG_DOUBLE = 0x14,
    PTL_LONG_DOUBLE_COMPLEX = 0x15
};

/* Events given to activate hooks (PtlActivateHookAdd). */
#define PTL_ACTIVATE_ATTACH 0
#define PTL_ACTIVATE_DETACH 1

/* ------------------------------------------------------------------------ */
/* Types                                                                    */
/* ------------------------------------------------------------------------ */

typedef unsigned int ptl_pid_t;
typedef unsigned int ptl_nid_t;
typedef int          ptl_ack_req_t;
typedef int          ptl_interface_t;
typedef unsigned int ptl_rank_t;
typedef int          ptl_sr_value_t;
typedef int          ptl_uid_t;
typedef int          ptl_list_t;
typedef unsigned int ptl_index_t;       /* a portal table index */
typedef uint64_t     ptl_size_t;
typedef uint64_t     ptl_match_bits_t;
typedef uint64_t     ptl_hdr_data_t;
typedef long         ptl_time_t;        /* milliseconds */
typedef unsigned int ptl_search_op_t;
typedef void        *ptl_addr_t;        /* an address in the process */
typedef unsigned int ptl_pt_index_t;
typedef unsigned int ptl_ni_fail_t;

/* Handles: opaque pointers. */
typedef void *ptl_handle_any_t;
typedef void *ptl_handle_ni_t;
typedef void *ptl_handle_md_t;
typedef void *ptl_handle_eq_t;
typedef void *ptl_handle_ct_t;
typedef void *ptl_handle_le_t;
typedef void *ptl_handle_me_t;

typedef struct ptl_activate_hook *ptl_activate_hook_t;

typedef enum ptl_sr_index  ptl_sr_index_t;
typedef enum ptl_datatype  ptl_datatype_t;
typedef enum ptl_op        ptl_op_t;
typedef enum ptl_event_kind ptl_event_kind_t;

/* Interface limits (desired and actual, PtlNIInit). 96 bytes. */
struct ptl_ni_limits {
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
    unsigned int features;      /* PTL_TARGET_BIND_INACCESSIBLE ... */
};

/* A process: physical (nid, pid) or logical rank, overlaid. 8 bytes. */
union ptl_process {
    struct {
        ptl_nid_t nid;
        ptl_pid_t pid;
    } phys;
    ptl_rank_t rank;
};

/* Memory descriptor. 40 bytes. */
struct ptl_md {
    ptl_addr_t      start;
    ptl_size_t      length;
    unsigned int    options;    /* PTL_MD_* and PTL_IOVEC */
    ptl_handle_eq_t eq_handle;  /* PTL_EQ_NONE: no full events */
    ptl_handle_ct_t ct_handle;  /* PTL_CT_NONE: no counting events */
};

/* Matching list entry, also used as the (non-matching) list entry. 64 bytes. */
struct ptl_me {
    ptl_addr_t        start;
    ptl_size_t        length;
    ptl_handle_ct_t   ct_handle;
    ptl_uid_t         uid;          /* PTL_UID_ANY: no restriction */
    unsigned int      options;      /* PTL_ME_* / PTL_LE_* and PTL_IOVEC */
    union ptl_process match_id;     /* ME only */
    ptl_match_bits_t  match_bits;   /* ME only */
    ptl_match_bits_t  ignore_bits;  /* ME only: set bits are not compared */
    ptl_size_t        min_free;     /* ME only, with PTL_ME_MANAGE_LOCAL */
};

/* Full event. 96 bytes. */
struct ptl_event {
    ptl_addr_t        start;
    void             *user_ptr;
    ptl_hdr_data_t    hdr_data;
    ptl_match_bits_t  match_bits;
    ptl_size_t        rlength;
    ptl_size_t        mlength;
    ptl_size_t        remote_offset;
    ptl_uid_t         uid;
    union ptl_process initiator;
    ptl_event_kind_t  type;
    ptl_list_t        ptl_list;
    ptl_pt_index_t    pt_index;
    ptl_ni_fail_t     ni_fail_type;
    ptl_op_t          atomic_operation;
    ptl_datatype_t    atomic_type;
};

/* Scatter/gather element (PTL_IOVEC). 16 bytes. */
struct ptl_iovec {
    ptl_addr_t iov_base;
    ptl_size_t iov_len;
};

/* Counting event. 16 bytes. */
struct ptl_ct_event {
    ptl_size_t success;
    ptl_size_t failure;
};

typedef struct ptl_md         ptl_md_t;
typedef struct ptl_me         ptl_le_t;
typedef struct ptl_me         ptl_me_t;
typedef struct ptl_ni_limits  ptl_ni_limits_t;
typedef union ptl_process     ptl_process_t;
typedef struct ptl_event      ptl_event_t;
typedef struct ptl_iovec      ptl_iovec_t;
typedef struct ptl_ct_event   ptl_ct_event_t;

/* ------------------------------------------------------------------------ */
/* Functions                                                                */
/* ------------------------------------------------------------------------ */

/* Library. */
int  PtlInit(void);
void PtlFini(void);
int  PtlActivateHookAdd(void (*hook)(void *arg, unsigned int nid, int event),
                        void *arg, ptl_activate_hook_t *hook_handle);
int  PtlActivateHookRemove(ptl_activate_hook_t hook_handle);

/* Network interfaces. */
int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid,
              const ptl_ni_limits_t *desired, ptl_ni_limits_t *actual,
              ptl_handle_ni_t *ni_handle);
int PtlNIFini(ptl_handle_ni_t ni_handle);
int PtlNIHandle(ptl_handle_any_t handle, ptl_handle_ni_t *ni_handle);
int PtlNIStatus(ptl_handle_ni_t ni_handle, ptl_sr_index_t status_register,
                ptl_sr_value_t *status);
int PtlSetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size,
              const union ptl_process *mapping);
int PtlGetMap(ptl_handle_ni_t ni_handle, ptl_size_t map_size,
              union ptl_process *mapping, ptl_size_t *actual_map_size);

/* Portal table entries. */
int PtlPTAlloc(ptl_handle_ni_t ni_handle, unsigned int options,
               ptl_handle_eq_t eq_handle, ptl_index_t pt_index_req,
               ptl_index_t *pt_index);
int PtlPTFree(ptl_handle_ni_t ni_handle, ptl_index_t pt_index);
int PtlPTEnable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTDisable(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);

/* Identification. */
int PtlGetUid(ptl_handle_ni_t ni_handle, ptl_uid_t *uid);
int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id);
int PtlGetPhysId(ptl_handle_ni_t ni_handle, ptl_process_t *id);
int PtlGetHwid(ptl_handle_ni_t ni_handle, uint64_t *hwid,
               uint64_t *capabilities);

/* Memory descriptors. */
int PtlMDBind(ptl_handle_ni_t ni_handle, const ptl_md_t *md,
              ptl_handle_md_t *md_handle);
int PtlMDRelease(ptl_handle_md_t md_handle);

/* List entries and matching list entries. */
int PtlLEAppend(ptl_handle_ni_t ni_handle, ptl_index_t pt_index,
                const ptl_le_t *le, ptl_list_t ptl_list, void *user_ptr,
                ptl_handle_le_t *le_handle);
int PtlLEUnlink(ptl_handle_le_t le_handle);
int PtlLESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                const ptl_le_t *le, ptl_search_op_t ptl_search_op,
                void *user_ptr);
int PtlMEAppend(ptl_handle_ni_t ni_handle, ptl_index_t pt_index,
                const ptl_me_t *me, ptl_list_t ptl_list, void *user_ptr,
                ptl_handle_me_t *me_handle);
int PtlMEUnlink(ptl_handle_me_t me_handle);
int PtlMESearch(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                const ptl_me_t *me, ptl_search_op_t ptl_search_op,
                void *user_ptr);

/* Event queues. */
int PtlEQAlloc(ptl_handle_ni_t ni_handle, ptl_size_t count,
               ptl_handle_eq_t *eq_handle);
int PtlEQAllocAsync(ptl_handle_ni_t ni_handle, ptl_size_t count,
                    ptl_handle_eq_t *eq_handle,
                    void (*callback)(void *arg, ptl_handle_eq_t eq_handle),
                    void *arg, int hint);
int PtlEQFree(ptl_handle_eq_t eq_handle);
int PtlEQGet(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQWait(ptl_handle_eq_t eq_handle, ptl_event_t *event);
int PtlEQPoll(const ptl_handle_eq_t *eq_handles, unsigned int size,
              ptl_time_t timeout, ptl_event_t *event, unsigned int *which);

/* Counting events. */
int PtlCTAlloc(ptl_handle_ni_t ni_handle, ptl_handle_ct_t *ct_handle);
int PtlCTFree(ptl_handle_ct_t ct_handle);
int PtlCTCancelTriggered(ptl_handle_ct_t ct_handle);
int PtlCTGet(ptl_handle_ct_t ct_handle, ptl_ct_event_t *event);
int PtlCTWait(ptl_handle_ct_t ct_handle, ptl_size_t test,
              ptl_ct_event_t *event);
int PtlCTPoll(const ptl_handle_ct_t *ct_handles, const ptl_size_t *tests,
              unsigned int size, ptl_time_t timeout, ptl_ct_event_t *event,
              unsigned int *which);
int PtlCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct);
int PtlCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment);

/* Data movement. */
int PtlPut(ptl_handle_md_t md_handle, ptl_size_t local_offset,
           ptl_size_t length, ptl_ack_req_t ack_req, ptl_process_t target_id,
           ptl_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data);
int PtlGet(ptl_handle_md_t md_handle, ptl_size_t local_offset,
           ptl_size_t length, ptl_process_t target_id,
           ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
           ptl_size_t remote_offset, void *user_ptr);
int PtlAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset,
              ptl_size_t length, ptl_ack_req_t ack_req,
              ptl_process_t target_id, ptl_pt_index_t pt_index,
              ptl_match_bits_t match_bits, ptl_size_t remote_offset,
              void *user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation,
              ptl_datatype_t datatype);
int PtlFetchAtomic(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
                   ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
                   ptl_size_t length, ptl_process_t target_id,
                   ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                   ptl_size_t remote_offset, void *user_ptr,
                   ptl_hdr_data_t hdr_data, ptl_op_t operation,
                   ptl_datatype_t datatype);
int PtlSwap(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
            ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
            ptl_size_t length, ptl_process_t target_id,
            ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
            ptl_size_t remote_offset, void *user_ptr, ptl_hdr_data_t hdr_data,
            const void *operand, ptl_op_t operation, ptl_datatype_t datatype);
int PtlAtomicSync(void);
int PtlNIAtomicSync(ptl_handle_ni_t ni_handle);

/* Triggered operations: the base operation's arguments, then the counter to
 * watch and the threshold that releases the operation. */
int PtlTriggeredPut(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                    ptl_size_t length, ptl_ack_req_t ack_req,
                    ptl_process_t target_id, ptl_index_t pt_index,
                    ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                    void *user_ptr, ptl_hdr_data_t hdr_data,
                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredGet(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                    ptl_size_t length, ptl_process_t target_id,
                    ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                    ptl_size_t remote_offset, void *user_ptr,
                    ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredAtomic(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                       ptl_size_t length, ptl_ack_req_t ack_req,
                       ptl_process_t target_id, ptl_pt_index_t pt_index,
                       ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                       void *user_ptr, ptl_hdr_data_t hdr_data,
                       ptl_op_t operation, ptl_datatype_t datatype,
                       ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredFetchAtomic(ptl_handle_md_t get_md_handle,
                            ptl_size_t local_get_offset,
                            ptl_handle_md_t put_md_handle,
                            ptl_size_t local_put_offset, ptl_size_t length,
                            ptl_process_t target_id, ptl_pt_index_t pt_index,
                            ptl_match_bits_t match_bits,
                            ptl_size_t remote_offset, void *user_ptr,
                            ptl_hdr_data_t hdr_data, ptl_op_t operation,
                            ptl_datatype_t datatype,
                            ptl_handle_ct_t trig_ct_handle,
                            ptl_size_t threshold);
int PtlTriggeredSwap(ptl_handle_md_t get_md_handle,
                     ptl_size_t local_get_offset,
                     ptl_handle_md_t put_md_handle,
                     ptl_size_t local_put_offset, ptl_size_t length,
                     ptl_process_t target_id, ptl_pt_index_t pt_index,
                     ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                     void *user_ptr, ptl_hdr_data_t hdr_data,
                     const void *operand, ptl_op_t operation,
                     ptl_datatype_t datatype, ptl_handle_ct_t trig_ct_handle,
                     ptl_size_t threshold);
int PtlTriggeredCTSet(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredCTInc(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);

/* Deferred communication hints. */
int PtlStartBundle(ptl_handle_ni_t ni_handle);
int PtlEndBundle(ptl_handle_ni_t ni_handle);

/* PTL_OK when both handles name the same object, PTL_FAIL otherwise. */
int PtlHandleIsEqual(ptl_handle_any_t handle1, ptl_handle_any_t handle2);

/* Non-blocking variants: the same calls, allowed to answer PTL_TRY_AGAIN
 * where the blocking ones would wait for a resource. */
int PtlPTEnableNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlPTDisableNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index);
int PtlLEAppendNB(ptl_handle_ni_t ni_handle, ptl_index_t pt_index,
                  const ptl_le_t *le, ptl_list_t ptl_list, void *user_ptr,
                  ptl_handle_le_t *le_handle);
int PtlLESearchNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                  const ptl_le_t *le, ptl_search_op_t ptl_search_op,
                  void *user_ptr);
int PtlMEAppendNB(ptl_handle_ni_t ni_handle, ptl_index_t pt_index,
                  const ptl_me_t *me, ptl_list_t ptl_list, void *user_ptr,
                  ptl_handle_me_t *me_handle);
int PtlMESearchNB(ptl_handle_ni_t ni_handle, ptl_pt_index_t pt_index,
                  const ptl_me_t *me, ptl_search_op_t ptl_search_op,
                  void *user_ptr);
int PtlMDBindNB(ptl_handle_ni_t ni_handle, const ptl_md_t *md,
                ptl_handle_md_t *md_handle);
int PtlPutNB(ptl_handle_md_t md_handle, ptl_size_t local_offset,
             ptl_size_t length, ptl_ack_req_t ack_req,
             ptl_process_t target_id, ptl_index_t pt_index,
             ptl_match_bits_t match_bits, ptl_size_t remote_offset,
             void *user_ptr, ptl_hdr_data_t hdr_data);
int PtlGetNB(ptl_handle_md_t md_handle, ptl_size_t local_offset,
             ptl_size_t length, ptl_process_t target_id,
             ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
             ptl_size_t remote_offset, void *user_ptr);
int PtlAtomicNB(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                ptl_size_t length, ptl_ack_req_t ack_req,
                ptl_process_t target_id, ptl_pt_index_t pt_index,
                ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                void *user_ptr, ptl_hdr_data_t hdr_data, ptl_op_t operation,
                ptl_datatype_t datatype);
int PtlFetchAtomicNB(ptl_handle_md_t get_md_handle,
                     ptl_size_t local_get_offset,
                     ptl_handle_md_t put_md_handle,
                     ptl_size_t local_put_offset, ptl_size_t length,
                     ptl_process_t target_id, ptl_pt_index_t pt_index,
                     ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                     void *user_ptr, ptl_hdr_data_t hdr_data,
                     ptl_op_t operation, ptl_datatype_t datatype);
int PtlSwapNB(ptl_handle_md_t get_md_handle, ptl_size_t local_get_offset,
              ptl_handle_md_t put_md_handle, ptl_size_t local_put_offset,
              ptl_size_t length, ptl_process_t target_id,
              ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
              ptl_size_t remote_offset, void *user_ptr,
              ptl_hdr_data_t hdr_data, const void *operand,
              ptl_op_t operation, ptl_datatype_t datatype);
int PtlTriggeredPutNB(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                      ptl_size_t length, ptl_ack_req_t ack_req,
                      ptl_process_t target_id, ptl_index_t pt_index,
                      ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                      void *user_ptr, ptl_hdr_data_t hdr_data,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredGetNB(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                      ptl_size_t length, ptl_process_t target_id,
                      ptl_pt_index_t pt_index, ptl_match_bits_t match_bits,
                      ptl_size_t remote_offset, void *user_ptr,
                      ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredAtomicNB(ptl_handle_md_t md_handle, ptl_size_t local_offset,
                         ptl_size_t length, ptl_ack_req_t ack_req,
                         ptl_process_t target_id, ptl_pt_index_t pt_index,
                         ptl_match_bits_t match_bits,
                         ptl_size_t remote_offset, void *user_ptr,
                         ptl_hdr_data_t hdr_data, ptl_op_t operation,
                         ptl_datatype_t datatype,
                         ptl_handle_ct_t trig_ct_handle,
                         ptl_size_t threshold);
int PtlTriggeredFetchAtomicNB(ptl_handle_md_t get_md_handle,
                              ptl_size_t local_get_offset,
                              ptl_handle_md_t put_md_handle,
                              ptl_size_t local_put_offset, ptl_size_t length,
                              ptl_process_t target_id,
                              ptl_pt_index_t pt_index,
                              ptl_match_bits_t match_bits,
                              ptl_size_t remote_offset, void *user_ptr,
                              ptl_hdr_data_t hdr_data, ptl_op_t operation,
                              ptl_datatype_t datatype,
                              ptl_handle_ct_t trig_ct_handle,
                              ptl_size_t threshold);
int PtlTriggeredSwapNB(ptl_handle_md_t get_md_handle,
                       ptl_size_t local_get_offset,
                       ptl_handle_md_t put_md_handle,
                       ptl_size_t local_put_offset, ptl_size_t length,
                       ptl_process_t target_id, ptl_pt_index_t pt_index,
                       ptl_match_bits_t match_bits, ptl_size_t remote_offset,
                       void *user_ptr, ptl_hdr_data_t hdr_data,
                       const void *operand, ptl_op_t operation,
                       ptl_datatype_t datatype,
                       ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredCTSetNB(ptl_handle_ct_t ct_handle, ptl_ct_event_t new_ct,
                        ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);
int PtlTriggeredCTIncNB(ptl_handle_ct_t ct_handle, ptl_ct_event_t increment,
                        ptl_handle_ct_t trig_ct_handle, ptl_size_t threshold);

/* File descriptors that a program may poll(2) for the NI's progress. */
int PtlNFDs(ptl_handle_ni_t ni_handle);
int PtlPollFDs(ptl_handle_ni_t ni_handle, struct pollfd *fds, int events);
int PtlPollEvents(ptl_handle_ni_t ni_handle, struct pollfd *fds);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PORTALS4_H */
