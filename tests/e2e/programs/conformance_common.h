/*
 * Helpers of the Portals 4.1 conformance programs (atomics, triggered
 * operations, search, flow control, acknowledgments, I/O vectors), on top of
 * e2e_common.h: object set-up in one call, and event checks that turn a
 * missing event into a diagnostic instead of a hang (every wait is a poll
 * with a timeout of simulated time; events land within microseconds).
 */
#ifndef CONFORMANCE_COMMON_H
#define CONFORMANCE_COMMON_H

#include "e2e_common.h"

#include <stdint.h>

#define CF_TIMEOUT_MS 200

static inline ptl_handle_md_t cf_bind(ptl_handle_ni_t ni, void *start, ptl_size_t length, unsigned options,
                                      ptl_handle_eq_t eq, ptl_handle_ct_t ct)
{
    ptl_md_t md;
    ptl_handle_md_t h;
    memset(&md, 0, sizeof md);
    md.start = start;
    md.length = length;
    md.options = options;
    md.eq_handle = eq;
    md.ct_handle = ct;
    E2E_OK(PtlMDBind(ni, &md, &h));
    return h;
}

static inline ptl_me_t cf_me(void *start, ptl_size_t length, ptl_match_bits_t bits, unsigned options,
                             ptl_handle_ct_t ct)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = start;
    me.length = length;
    me.ct_handle = ct;
    me.uid = PTL_UID_ANY;
    me.options = options;
    me.match_id.rank = PTL_RANK_ANY;
    me.match_bits = bits;
    me.ignore_bits = 0;
    return me;
}

static inline ptl_handle_me_t cf_append(ptl_handle_ni_t ni, ptl_pt_index_t pt, void *start, ptl_size_t length,
                                        ptl_match_bits_t bits, unsigned options, ptl_handle_ct_t ct,
                                        ptl_list_t list, void *user_ptr)
{
    ptl_me_t me = cf_me(start, length, bits, options, ct);
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(ni, pt, &me, list, user_ptr, &h));
    return h;
}

/* A matching physical NI of this process, and in `map` the physical
 * addresses of the job's first `n` ranks (the logical NI's map). */
static inline ptl_handle_ni_t cf_physical_ni(ptl_handle_ni_t logical, ptl_process_t *map, ptl_size_t n)
{
    ptl_handle_ni_t phys;
    ptl_ni_limits_t actual;
    ptl_size_t mapped = 0;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &actual, &phys));
    E2E_OK(PtlGetMap(logical, n, map, &mapped));
    return phys;
}

/* The next event of `eq`, or PTL_EQ_EMPTY after CF_TIMEOUT_MS of simulated time. */
static inline int cf_next(ptl_handle_eq_t eq, ptl_event_t *ev)
{
    unsigned int which;
    int rc = PtlEQPoll(&eq, 1, CF_TIMEOUT_MS, ev, &which);
    if (rc != PTL_OK && rc != PTL_EQ_EMPTY)
        e2e_fail("PtlEQPoll returned %s", e2e_rc_name(rc));
    return rc;
}

/* The next event, which must be of `kind` with ni_fail_type `fail`; SEND
 * events are skipped when another kind is awaited and skip_send is set. */
static inline ptl_event_t cf_expect_fail(ptl_handle_eq_t eq, ptl_event_kind_t kind, ptl_ni_fail_t fail,
                                         int skip_send, const char *what)
{
    ptl_event_t ev;
    for (;;) {
        if (cf_next(eq, &ev) != PTL_OK)
            E2E_DIE("%s: no %s event", what, e2e_event_name(kind));
        if (skip_send && kind != PTL_EVENT_SEND && ev.type == PTL_EVENT_SEND)
            continue;
        break;
    }
    if (ev.type != kind)
        E2E_DIE("%s: got a %s event, expected %s", what, e2e_event_name(ev.type), e2e_event_name(kind));
    E2E_CHECK(ev.ni_fail_type == fail, "%s: %s event with ni_fail_type %d, expected %d", what,
              e2e_event_name(kind), (int)ev.ni_fail_type, (int)fail);
    return ev;
}

static inline ptl_event_t cf_expect(ptl_handle_eq_t eq, ptl_event_kind_t kind, const char *what)
{
    return cf_expect_fail(eq, kind, PTL_NI_OK, 1, what);
}

/* No event is waiting in `eq` (nothing more arrives: checked after a barrier). */
static inline void cf_expect_empty(ptl_handle_eq_t eq, const char *what)
{
    ptl_event_t ev;
    int rc = PtlEQGet(eq, &ev);
    if (rc == PTL_OK || rc == PTL_EQ_DROPPED)
        e2e_fail("%s: unexpected %s event (ni_fail_type %d, user_ptr %p)", what, e2e_event_name(ev.type),
                 (int)ev.ni_fail_type, ev.user_ptr);
    else if (rc != PTL_EQ_EMPTY)
        e2e_fail("%s: PtlEQGet returned %s", what, e2e_rc_name(rc));
}

static inline void cf_check_ct(ptl_handle_ct_t ct, ptl_size_t success, ptl_size_t failure, const char *what)
{
    ptl_ct_event_t v;
    E2E_OK(PtlCTGet(ct, &v));
    E2E_CHECK(v.success == success && v.failure == failure,
              "%s: counter is {success %llu, failure %llu}, expected {%llu, %llu}", what,
              (unsigned long long)v.success, (unsigned long long)v.failure, (unsigned long long)success,
              (unsigned long long)failure);
}

/* Waits until the counter reaches `test`, then checks it is exactly
 * {success, failure}; a counter that never gets there is a diagnostic. */
static inline void cf_wait_ct(ptl_handle_ct_t ct, ptl_size_t success, ptl_size_t failure, const char *what)
{
    ptl_ct_event_t v;
    ptl_size_t test = success + failure;
    unsigned int which;
    int rc = PtlCTPoll(&ct, &test, 1, CF_TIMEOUT_MS, &v, &which);
    if (rc == PTL_CT_NONE_REACHED) {
        E2E_OK(PtlCTGet(ct, &v));
        e2e_fail("%s: counter stuck at {success %llu, failure %llu}, expected {%llu, %llu}", what,
                 (unsigned long long)v.success, (unsigned long long)v.failure, (unsigned long long)success,
                 (unsigned long long)failure);
        return;
    }
    E2E_OK(rc);
    E2E_CHECK(v.success == success && v.failure == failure,
              "%s: counter is {success %llu, failure %llu}, expected {%llu, %llu}", what,
              (unsigned long long)v.success, (unsigned long long)v.failure, (unsigned long long)success,
              (unsigned long long)failure);
}

static inline void cf_check_bytes(const unsigned char *got, const unsigned char *want, size_t n, const char *what)
{
    for (size_t i = 0; i < n; ++i)
        if (got[i] != want[i]) {
            e2e_fail("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i], want[i]);
            return;
        }
}

#endif
