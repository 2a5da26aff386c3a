/*
 * Helpers shared by the end-to-end test programs: failure reporting, NI
 * setup and a barrier built from Portals operations only.
 *
 * The barrier cannot assume that the peer has posted its entries yet (there
 * is no out-of-band synchronisation), so a barrier message that is dropped at
 * the target (its ACK carries a non-OK ni_fail_type) is sent again after a
 * short simulated sleep.
 */
#ifndef E2E_COMMON_H
#define E2E_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <portals4.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define E2E_BARRIER_PT   7
#define E2E_BARRIER_BITS 0xBA77151EULL

/* The current generation of Sandia's numbering (2023-24): PtlAbort and
 * PTL_ABORTED instead of PTL_INTERRUPTED, no ACK_DISABLE, counting searches.
 * Told apart by a name only it defines, as a program would. */
#ifdef PTL_ME_LOCAL_INC_UH_RLENGTH
#define E2E_SANDIA_CURRENT 1
#endif

static int e2e_rank = -1;
static int e2e_size = 0;
static int e2e_failures = 0;

static inline const char *e2e_rc_name(int rc)
{
    switch (rc) {
    case PTL_OK: return "PTL_OK";
    case PTL_ARG_INVALID: return "PTL_ARG_INVALID";
    case PTL_CT_NONE_REACHED: return "PTL_CT_NONE_REACHED";
    case PTL_EQ_DROPPED: return "PTL_EQ_DROPPED";
    case PTL_EQ_EMPTY: return "PTL_EQ_EMPTY";
    case PTL_FAIL: return "PTL_FAIL";
    case PTL_IGNORED: return "PTL_IGNORED";
    case PTL_IN_USE: return "PTL_IN_USE";
#ifdef E2E_SANDIA_CURRENT
    case PTL_ABORTED: return "PTL_ABORTED";
#else
    case PTL_INTERRUPTED: return "PTL_INTERRUPTED";
#endif
    case PTL_LIST_TOO_LONG: return "PTL_LIST_TOO_LONG";
    case PTL_NO_INIT: return "PTL_NO_INIT";
    case PTL_NO_SPACE: return "PTL_NO_SPACE";
    case PTL_PID_IN_USE: return "PTL_PID_IN_USE";
    case PTL_PT_FULL: return "PTL_PT_FULL";
    case PTL_PT_EQ_NEEDED: return "PTL_PT_EQ_NEEDED";
    case PTL_PT_IN_USE: return "PTL_PT_IN_USE";
    default: return "unknown return code";
    }
}

/* By name: the two binary flavours of portals4.h number the kinds
 * differently. */
static inline const char *e2e_event_name(ptl_event_kind_t k)
{
    switch (k) {
    case PTL_EVENT_GET: return "GET";
    case PTL_EVENT_GET_OVERFLOW: return "GET_OVERFLOW";
    case PTL_EVENT_PUT: return "PUT";
    case PTL_EVENT_PUT_OVERFLOW: return "PUT_OVERFLOW";
    case PTL_EVENT_ATOMIC: return "ATOMIC";
    case PTL_EVENT_ATOMIC_OVERFLOW: return "ATOMIC_OVERFLOW";
    case PTL_EVENT_FETCH_ATOMIC: return "FETCH_ATOMIC";
    case PTL_EVENT_FETCH_ATOMIC_OVERFLOW: return "FETCH_ATOMIC_OVERFLOW";
    case PTL_EVENT_REPLY: return "REPLY";
    case PTL_EVENT_SEND: return "SEND";
    case PTL_EVENT_ACK: return "ACK";
    case PTL_EVENT_PT_DISABLED: return "PT_DISABLED";
    case PTL_EVENT_LINK: return "LINK";
    case PTL_EVENT_AUTO_UNLINK: return "AUTO_UNLINK";
    case PTL_EVENT_AUTO_FREE: return "AUTO_FREE";
    case PTL_EVENT_SEARCH: return "SEARCH";
    default: return "?";
    }
}

/* A failed check that lets the program go on, so that one run reports every
 * broken expectation. */
static inline void e2e_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL (rank %d): ", e2e_rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    ++e2e_failures;
}

/* A failure after which going on makes no sense. */
#define E2E_DIE(...)                                                          \
    do {                                                                      \
        e2e_fail(__VA_ARGS__);                                                \
        fprintf(stderr, "FAIL (rank %d): giving up at %s:%d\n", e2e_rank,     \
                __FILE__, __LINE__);                                          \
        exit(1);                                                              \
    } while (0)

/* Calls that must succeed. */
#define E2E_OK(call)                                                          \
    do {                                                                      \
        int e2e_rc_ = (call);                                                 \
        if (e2e_rc_ != PTL_OK)                                                \
            E2E_DIE("%s returned %d (%s), expected PTL_OK", #call, e2e_rc_,   \
                    e2e_rc_name(e2e_rc_));                                    \
    } while (0)

/* Calls with an exact expected return code. */
#define E2E_EXPECT_RC(expected, call)                                         \
    do {                                                                      \
        int e2e_rc_ = (call);                                                 \
        if (e2e_rc_ != (expected))                                            \
            e2e_fail("%s returned %d (%s), expected %s", #call, e2e_rc_,      \
                     e2e_rc_name(e2e_rc_), #expected);                        \
    } while (0)

#define E2E_CHECK(cond, ...)                                                  \
    do {                                                                      \
        if (!(cond))                                                          \
            e2e_fail(__VA_ARGS__);                                            \
    } while (0)

static inline ptl_process_t e2e_peer(int rank)
{
    ptl_process_t p;
    memset(&p, 0, sizeof p);
    p.rank = (ptl_rank_t)rank;
    return p;
}

static inline void e2e_sleep_ns(long ns)
{
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&ts, NULL);
}

/* An MD over [start, start + length) with events to `eq` and no counter. */
static inline ptl_handle_md_t e2e_bind_md_eq(ptl_handle_ni_t ni, void *start, ptl_size_t length, ptl_handle_eq_t eq)
{
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = start;
    md.length = length;
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE;
    ptl_handle_md_t handle;
    E2E_OK(PtlMDBind(ni, &md, &handle));
    return handle;
}

/* An MD over [start, start + length) with no EQ and no counter. */
static inline ptl_handle_md_t e2e_bind_md(ptl_handle_ni_t ni, void *start, ptl_size_t length)
{
    return e2e_bind_md_eq(ni, start, length, PTL_EQ_NONE);
}

/* A priority-list ME over [start, start + length) that any rank may reach
 * with any match bits (logical NI), with `options` and counter `ct`. */
static inline ptl_handle_me_t e2e_append_me(ptl_handle_ni_t ni, ptl_pt_index_t pt, void *start, ptl_size_t length,
                                            ptl_handle_ct_t ct, unsigned int options)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = start;
    me.length = length;
    me.ct_handle = ct;
    me.uid = PTL_UID_ANY;
    me.match_id.rank = PTL_RANK_ANY;
    me.options = options;
    ptl_handle_me_t handle;
    E2E_OK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &handle));
    return handle;
}

/* Waits for an event that never comes (the rank that stays behind while
 * another crashes, stalls or deadlocks). */
static inline void e2e_wait_forever(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_event_t ev;
    E2E_OK(PtlEQAlloc(ni, 8, &eq));
    PtlEQWait(eq, &ev);
}

/* Barrier state, on the NI given to e2e_barrier_init. */
static ptl_handle_ni_t e2e_bar_ni;
static ptl_handle_eq_t e2e_bar_eq;
static ptl_handle_ct_t e2e_bar_ct;
static ptl_handle_md_t e2e_bar_md;
static ptl_handle_me_t e2e_bar_me;
static ptl_size_t e2e_bar_generation = 0;

/* Initialise Portals, open a logical matching NI, learn rank and size. */
static inline ptl_handle_ni_t e2e_init(ptl_ni_limits_t *limits_out)
{
    ptl_handle_ni_t ni;
    ptl_ni_limits_t limits;
    ptl_process_t me;
    ptl_process_t first;
    ptl_size_t map_size = 0;

    E2E_OK(PtlInit());
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL,
                     PTL_PID_ANY, NULL, &limits, &ni));
    E2E_OK(PtlGetId(ni, &me));
    e2e_rank = (int)me.rank;
    /* The size of the installed rank map is the job size. */
    E2E_OK(PtlGetMap(ni, 1, &first, &map_size));
    e2e_size = (int)map_size;
    if (e2e_size < 1 || e2e_rank >= e2e_size)
        E2E_DIE("inconsistent identity: rank %d, map size %d", e2e_rank,
                e2e_size);
    if (limits_out)
        *limits_out = limits;
    return ni;
}

static inline void e2e_require_ranks(int n)
{
    if (e2e_size != n)
        E2E_DIE("this program needs exactly %d ranks, got %d", n, e2e_size);
}

static inline void e2e_barrier_init(ptl_handle_ni_t ni)
{
    ptl_pt_index_t pt;
    ptl_me_t me;
    ptl_md_t md;

    e2e_bar_ni = ni;
    E2E_OK(PtlEQAlloc(ni, 64, &e2e_bar_eq));
    E2E_OK(PtlCTAlloc(ni, &e2e_bar_ct));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, E2E_BARRIER_PT, &pt));
    if (pt != E2E_BARRIER_PT)
        E2E_DIE("PtlPTAlloc gave index %u, asked for %d", pt, E2E_BARRIER_PT);

    memset(&me, 0, sizeof me);
    me.start = NULL;
    me.length = 0;
    me.ct_handle = e2e_bar_ct;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM |
                 PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE |
                 PTL_ME_EVENT_COMM_DISABLE;
    me.match_id.rank = PTL_RANK_ANY;
    me.match_bits = E2E_BARRIER_BITS;
    me.ignore_bits = 0;
    E2E_OK(PtlMEAppend(ni, E2E_BARRIER_PT, &me, PTL_PRIORITY_LIST, NULL,
                       &e2e_bar_me));

    memset(&md, 0, sizeof md);
    md.start = NULL;
    md.length = 0;
    md.options = PTL_MD_EVENT_SEND_DISABLE;
    md.eq_handle = e2e_bar_eq;
    md.ct_handle = PTL_CT_NONE;
    E2E_OK(PtlMDBind(ni, &md, &e2e_bar_md));
}

/* Send one barrier message, again until the target has accepted it. */
static inline void e2e_barrier_send(int to)
{
    for (int attempt = 0;; ++attempt) {
        ptl_event_t ev;
        E2E_OK(PtlPut(e2e_bar_md, 0, 0, PTL_ACK_REQ, e2e_peer(to),
                      E2E_BARRIER_PT, E2E_BARRIER_BITS, 0, NULL, 0));
        do {
            E2E_OK(PtlEQWait(e2e_bar_eq, &ev));
        } while (ev.type != PTL_EVENT_ACK);
        if (ev.ni_fail_type == PTL_NI_OK)
            return;
        if (attempt > 100000)
            E2E_DIE("barrier message to rank %d never accepted", to);
        e2e_sleep_ns(20000);
    }
}

static inline void e2e_barrier(void)
{
    ptl_ct_event_t ct;
    ++e2e_bar_generation;
    if (e2e_size == 1)
        return;
    if (e2e_rank == 0) {
        E2E_OK(PtlCTWait(e2e_bar_ct,
                         e2e_bar_generation * (ptl_size_t)(e2e_size - 1), &ct));
        for (int r = 1; r < e2e_size; ++r)
            e2e_barrier_send(r);
    } else {
        e2e_barrier_send(0);
        E2E_OK(PtlCTWait(e2e_bar_ct, e2e_bar_generation, &ct));
    }
    if (ct.failure != 0)
        E2E_DIE("barrier counter has %llu failures",
                (unsigned long long)ct.failure);
}

static inline void e2e_barrier_fini(void)
{
    E2E_OK(PtlMDRelease(e2e_bar_md));
    E2E_OK(PtlMEUnlink(e2e_bar_me));
    E2E_OK(PtlPTFree(e2e_bar_ni, E2E_BARRIER_PT));
    E2E_OK(PtlCTFree(e2e_bar_ct));
    E2E_OK(PtlEQFree(e2e_bar_eq));
}

/* Final report: exit status 0 only when no check failed. */
static inline int e2e_finish(const char *program)
{
    if (e2e_failures) {
        fprintf(stderr, "%s: rank %d: %d check(s) FAILED\n", program, e2e_rank,
                e2e_failures);
        return 1;
    }
    printf("%s: rank %d: all checks passed\n", program, e2e_rank);
    return 0;
}

#endif
