/*
 * PtlAbort, as the current generation of Sandia's portals4.h defines it: it
 * ends every PtlEQWait, PtlEQPoll, PtlCTWait and PtlCTPoll that a thread of
 * the process is in, and they return PTL_ABORTED; the EQs and CTs may be freed
 * afterwards; waits that begin after it are not affected (as in Sandia's
 * implementation); with nobody waiting it does nothing.
 *
 * Every rank, on its own (1, 2 or 4 ranks):
 *  1. PtlAbort with no waiter: nothing happens.
 *  2. A helper thread waits in PtlEQWait on an EQ nothing writes; the main
 *     thread computes (no Portals call) and calls PtlAbort until the helper
 *     returns: PTL_ABORTED. The simulation must not call this a deadlock
 *     while the main thread runs.
 *  3. Two helpers, one in PtlCTWait and one in PtlEQPoll (forever): one queued
 *     behind the other on the rank's channel. Both return PTL_ABORTED.
 *  4. A wait after the aborts: PtlCTPoll with a timeout gives
 *     PTL_CT_NONE_REACHED, not PTL_ABORTED.
 *  5. The objects are freed and allocated again; a helper waits in PtlEQWait
 *     for the Put of the previous rank (the same rank on 1 rank): PTL_OK, the
 *     event is the Put; then a second abort round (PtlCTPoll with a timeout
 *     of an hour) aborts again.
 * With the argument join-only, a helper waits and the main thread only joins
 * it: nothing can end that wait, and the run must say it is a deadlock.
 */
#include "conformance_common.h"

#include <pthread.h>
#include <stdatomic.h>

#ifndef E2E_SANDIA_CURRENT
#error "PtlAbort is only in the current generation of Sandia's portals4.h"
#endif

#define PT_ABORT 21
#define HOUR_MS (3600u * 1000u)

static ptl_handle_eq_t eq;
static ptl_handle_ct_t ct;

struct waiter {
    pthread_t thread;
    int kind; /* 0: EQWait, 1: CTWait, 2: EQPoll forever, 3: CTPoll for an hour */
    atomic_int done;
    int rc;
    ptl_event_t event;
};

static void *wait_in_portals(void *raw)
{
    struct waiter *w = raw;
    ptl_ct_event_t counted;
    unsigned int which = 0;
    ptl_size_t test = 1;
    switch (w->kind) {
    case 0: w->rc = PtlEQWait(eq, &w->event); break;
    case 1: w->rc = PtlCTWait(ct, 1, &counted); break;
    case 2: w->rc = PtlEQPoll(&eq, 1, PTL_TIME_FOREVER, &w->event, &which); break;
    default: w->rc = PtlCTPoll(&ct, &test, 1, HOUR_MS, &counted, &which); break;
    }
    atomic_store(&w->done, 1);
    return NULL;
}

static void start(struct waiter *w, int kind)
{
    w->kind = kind;
    atomic_store(&w->done, 0);
    w->rc = -1;
    if (pthread_create(&w->thread, NULL, wait_in_portals, w) != 0)
        E2E_DIE("pthread_create failed");
}

/* Computes between aborts until every waiter has returned: an abort only
 * ends the waits in progress, and a helper may not have begun yet. */
static int abort_until_done(struct waiter *w, int count)
{
    int aborts = 0;
    for (;;) {
        int all = 1;
        for (int i = 0; i < count; ++i)
            all &= atomic_load(&w[i].done);
        if (all)
            break;
        volatile unsigned long spin = 0;
        while (spin < 200000)
            spin = spin + 1;
        PtlAbort();
        aborts++;
    }
    for (int i = 0; i < count; ++i)
        pthread_join(w[i].thread, NULL);
    return aborts;
}

static void expect_aborted(const struct waiter *w, const char *what)
{
    E2E_CHECK(w->rc == PTL_ABORTED, "%s after PtlAbort: %s, expected PTL_ABORTED", what, e2e_rc_name(w->rc));
}

int main(int argc, char **argv)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    if (argc > 1 && strcmp(argv[1], "join-only") == 0) {
        /* Nobody aborts: once the main thread blocks in pthread_join, nothing
         * can end the helper's wait. A deadlock, to be reported as one. */
        struct waiter lone;
        start(&lone, 0);
        pthread_join(lone.thread, NULL);
        E2E_DIE("PtlEQWait returned %s with nothing to wait for", e2e_rc_name(lone.rc));
    }

    /* 1. Nobody waits. */
    PtlAbort();
    ptl_event_t ev;
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &ev));

    /* 2. One thread in PtlEQWait. */
    struct waiter w[2];
    start(&w[0], 0);
    int aborts = abort_until_done(w, 1);
    expect_aborted(&w[0], "PtlEQWait");

    /* 3. PtlCTWait and PtlEQPoll, one queued behind the other. */
    start(&w[0], 1);
    start(&w[1], 2);
    aborts += abort_until_done(w, 2);
    expect_aborted(&w[0], "PtlCTWait");
    expect_aborted(&w[1], "PtlEQPoll");

    /* 4. A wait that begins now is not aborted. */
    ptl_size_t test = 1;
    ptl_ct_event_t counted;
    unsigned int which;
    E2E_EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(&ct, &test, 1, 1, &counted, &which));

    /* 5. Free, allocate again, wait for a real message, abort again. */
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_ABORT, &pt));
    static uint64_t inbox, outbox;
    cf_append(ni, PT_ABORT, &inbox, sizeof inbox, 0x5,
              PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE,
              PTL_CT_NONE, PTL_PRIORITY_LIST, &inbox);
    e2e_barrier(); /* every rank's entry is linked */
    outbox = 0xab0000u + (uint64_t)e2e_rank;
    ptl_handle_eq_t md_eq;
    E2E_OK(PtlEQAlloc(ni, 8, &md_eq));
    ptl_handle_md_t md = cf_bind(ni, &outbox, sizeof outbox, 0, md_eq, PTL_CT_NONE);
    E2E_OK(PtlPut(md, 0, sizeof outbox, PTL_NO_ACK_REQ, e2e_peer((e2e_rank + 1) % e2e_size), PT_ABORT, 0x5, 0,
                  NULL, 0));
    cf_expect(md_eq, PTL_EVENT_SEND, "the Put's SEND");
    /* (The helper waits only now: the threads of a rank share its channel,
     * so a thread in a wait holds back the calls of the others.) */
    start(&w[0], 0);
    pthread_join(w[0].thread, NULL);
    const int from = (e2e_rank + e2e_size - 1) % e2e_size;
    E2E_CHECK(w[0].rc == PTL_OK, "PtlEQWait for a real Put after the aborts: %s", e2e_rc_name(w[0].rc));
    E2E_CHECK(w[0].event.type == PTL_EVENT_PUT && inbox == 0xab0000u + (uint64_t)from,
              "the event is the Put of rank %d (%s, value %#llx)", from, e2e_event_name(w[0].event.type),
              (unsigned long long)inbox);
    start(&w[0], 3);
    aborts += abort_until_done(w, 1);
    expect_aborted(&w[0], "PtlCTPoll with a timeout");

    printf("abort_waits: rank %d: every wait ended by PtlAbort (%d calls)\n", e2e_rank, aborts);
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlEQFree(md_eq));
    e2e_barrier();
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("abort_waits");
}
