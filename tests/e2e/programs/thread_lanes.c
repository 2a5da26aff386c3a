/*
 * The threads of a rank are independent: each thread that calls the emulator
 * has its own way to the server (a lane), so one thread's blocking call never
 * holds another thread's call, sleep, clock or exit. Modes (argv[1]):
 *
 *  sleep-while-waiting  The main thread waits in PtlEQWait for a Put that a
 *                       helper thread makes after three usleep(500) calls:
 *                       the sleeps return, take 1.5 ms of the helper's
 *                       simulated time, and the wait ends with that Put.
 *  eight-waiters        Eight threads each wait in PtlEQWait on an EQ of
 *                       their own (portals 10 to 17) while the main thread
 *                       sleeps, then Puts once to each portal of the next
 *                       rank: every thread gets its own Put.
 *  exit-from-helper     The main thread waits in PtlEQWait for what never
 *                       comes; a helper thread sleeps, then exits the
 *                       process with status 7: the run ends with status 7,
 *                       not a deadlock.
 *  abort-after-sleep    (Sandia's current generation: PtlAbort) As the
 *                       reference implementation's abort tests do: two
 *                       workers wait, in PtlEQWait and in PtlCTPoll forever;
 *                       the main thread sleeps 1 s, then calls PtlAbort: both
 *                       return PTL_ABORTED once the sleep has ended, twice.
 * Built in every flavour (thread_lanes for Sandia's current generation,
 * sandia-legacy/ and bxi/ for the others).
 */
#include "e2e_common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define WAITERS 8
#define FIRST_PT 10

static ptl_handle_ni_t ni;
static int my_rank, ranks;

static long long monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A portal of this rank with an EQ and one ME that takes any Put. */
static ptl_handle_eq_t listen_on(ptl_pt_index_t pt, void *buffer, ptl_size_t length)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t got;
    E2E_OK(PtlEQAlloc(ni, 8, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, pt, &got));
    E2E_CHECK(got == pt, "portal %u allocated as %u", (unsigned)pt, (unsigned)got);
    e2e_append_me(ni, pt, buffer, length, PTL_CT_NONE, PTL_ME_OP_PUT);
    return eq;
}

static void put_to(ptl_handle_md_t md, ptl_size_t length, int rank, ptl_pt_index_t pt, ptl_hdr_data_t data)
{
    E2E_OK(PtlPut(md, 0, length, PTL_NO_ACK_REQ, e2e_peer(rank), pt, 0, 0, NULL, data));
}

static void expect_put(ptl_handle_eq_t eq, ptl_hdr_data_t data, const char *who)
{
    ptl_event_t ev;
    for (;;) { /* the ME's LINK event comes first */
        E2E_OK(PtlEQWait(eq, &ev));
        if (ev.type != PTL_EVENT_LINK)
            break;
    }
    E2E_CHECK(ev.type == PTL_EVENT_PUT, "%s: event %s, expected PUT", who, e2e_event_name(ev.type));
    E2E_CHECK(ev.hdr_data == data, "%s: header data %llu, expected %llu", who, (unsigned long long)ev.hdr_data,
              (unsigned long long)data);
}

/* ---- sleep-while-waiting ---- */

static ptl_handle_eq_t main_eq;
static long long helper_slept_ns;

static void *sleep_then_put(void *unused)
{
    (void)unused;
    static char payload[8] = "lanes";
    const long long before = monotonic_ns();
    for (int i = 0; i < 3; ++i)
        usleep(500);
    helper_slept_ns = monotonic_ns() - before;
    ptl_handle_md_t md = e2e_bind_md(ni, payload, sizeof payload);
    put_to(md, sizeof payload, my_rank, FIRST_PT, 42);
    return NULL;
}

static void sleep_while_waiting(void)
{
    static char buffer[8];
    main_eq = listen_on(FIRST_PT, buffer, sizeof buffer);
    const long long before = monotonic_ns();
    pthread_t helper;
    E2E_CHECK(pthread_create(&helper, NULL, sleep_then_put, NULL) == 0, "pthread_create failed");
    expect_put(main_eq, 42, "main thread");
    const long long waited = monotonic_ns() - before;
    pthread_join(helper, NULL);
    E2E_CHECK(helper_slept_ns >= 1500000, "the helper's three sleeps of 500 us took %lld ns", helper_slept_ns);
    E2E_CHECK(waited >= 1500000, "the wait for the helper's Put ended after %lld ns, before its sleeps", waited);
    E2E_CHECK(memcmp(buffer, "lanes", 6) == 0, "the Put's data did not arrive");
    printf("thread_lanes: rank %d: helper slept %lld ns, main waited %lld ns\n", my_rank, helper_slept_ns, waited);
}

/* ---- eight-waiters ---- */

struct waiter {
    pthread_t thread;
    int index;
    ptl_handle_eq_t eq;
    char buffer[8];
};

static void *wait_for_own_put(void *raw)
{
    struct waiter *w = raw;
    char who[32];
    snprintf(who, sizeof who, "waiter %d", w->index);
    expect_put(w->eq, 100 + (ptl_hdr_data_t)w->index, who);
    E2E_CHECK(w->buffer[0] == (char)('a' + w->index), "waiter %d: data '%c'", w->index, w->buffer[0]);
    return NULL;
}

static void eight_waiters(void)
{
    static struct waiter waiters[WAITERS];
    static char payloads[WAITERS];
    for (int i = 0; i < WAITERS; ++i) {
        waiters[i].index = i;
        waiters[i].eq = listen_on(FIRST_PT + i, waiters[i].buffer, sizeof waiters[i].buffer);
    }
    e2e_barrier(); /* every rank listens before anyone sends */
    for (int i = 0; i < WAITERS; ++i)
        E2E_CHECK(pthread_create(&waiters[i].thread, NULL, wait_for_own_put, &waiters[i]) == 0,
                  "pthread_create failed");
    usleep(20);
    const int next = (my_rank + 1) % ranks;
    for (int i = 0; i < WAITERS; ++i) {
        payloads[i] = (char)('a' + i);
        ptl_handle_md_t md = e2e_bind_md(ni, &payloads[i], 1);
        put_to(md, 1, next, FIRST_PT + i, 100 + (ptl_hdr_data_t)i);
    }
    for (int i = 0; i < WAITERS; ++i)
        pthread_join(waiters[i].thread, NULL);
    printf("thread_lanes: rank %d: %d waiters got their Puts\n", my_rank, WAITERS);
}

/* ---- exit-from-helper ---- */

static void *sleep_then_exit(void *unused)
{
    (void)unused;
    usleep(1000);
    fflush(stdout);
    exit(7);
}

static void exit_from_helper(void)
{
    static char buffer[8];
    ptl_handle_eq_t eq = listen_on(FIRST_PT, buffer, sizeof buffer);
    pthread_t helper;
    E2E_CHECK(pthread_create(&helper, NULL, sleep_then_exit, NULL) == 0, "pthread_create failed");
    ptl_event_t ev;
    do /* nothing comes but the ME's LINK event: only the helper's exit ends this */
        E2E_OK(PtlEQWait(eq, &ev));
    while (ev.type == PTL_EVENT_LINK);
    E2E_DIE("the wait returned, event %s", e2e_event_name(ev.type));
}

/* ---- abort-after-sleep ---- */

#ifdef E2E_SANDIA_CURRENT
static ptl_handle_eq_t abort_eq;
static ptl_handle_ct_t abort_ct;

struct aborted_waiter {
    pthread_t thread;
    int on_ct;
    int rc;
    long long returned_ns;
};

static void *wait_until_aborted(void *raw)
{
    struct aborted_waiter *w = raw;
    if (w->on_ct) {
        ptl_ct_event_t counted;
        ptl_size_t test = 1;
        unsigned int which = 0;
        w->rc = PtlCTPoll(&abort_ct, &test, 1, PTL_TIME_FOREVER, &counted, &which);
    } else {
        ptl_event_t ev;
        w->rc = PtlEQWait(abort_eq, &ev);
    }
    w->returned_ns = monotonic_ns();
    return NULL;
}

static void abort_after_sleep(void)
{
    for (int round = 0; round < 2; ++round) {
        E2E_OK(PtlEQAlloc(ni, 8, &abort_eq));
        E2E_OK(PtlCTAlloc(ni, &abort_ct));
        struct aborted_waiter waiters[2] = {{.on_ct = 0}, {.on_ct = 1}};
        const long long before = monotonic_ns();
        for (int i = 0; i < 2; ++i)
            E2E_CHECK(pthread_create(&waiters[i].thread, NULL, wait_until_aborted, &waiters[i]) == 0,
                      "pthread_create failed");
        sleep(1);
        const long long slept = monotonic_ns() - before;
        PtlAbort();
        for (int i = 0; i < 2; ++i) {
            pthread_join(waiters[i].thread, NULL);
            E2E_CHECK(waiters[i].rc == PTL_ABORTED, "round %d: the %s returned %s, expected PTL_ABORTED", round,
                      waiters[i].on_ct ? "PtlCTPoll" : "PtlEQWait", e2e_rc_name(waiters[i].rc));
            E2E_CHECK(waiters[i].returned_ns - before >= 1000000000LL,
                      "round %d: a wait ended %lld ns after the start, before the 1 s sleep", round,
                      waiters[i].returned_ns - before);
        }
        E2E_CHECK(slept >= 1000000000LL, "round %d: sleep(1) took %lld ns", round, slept);
        E2E_OK(PtlEQFree(abort_eq));
        E2E_OK(PtlCTFree(abort_ct));
    }
    printf("thread_lanes: rank %d: both waits aborted after the sleep, twice\n", my_rank);
}
#endif

int main(int argc, char **argv)
{
    ni = e2e_init(NULL);
    my_rank = e2e_rank;
    ranks = e2e_size;
    e2e_barrier_init(ni);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "sleep-while-waiting") == 0)
        sleep_while_waiting();
    else if (strcmp(mode, "eight-waiters") == 0)
        eight_waiters();
    else if (strcmp(mode, "exit-from-helper") == 0)
        exit_from_helper();
#ifdef E2E_SANDIA_CURRENT
    else if (strcmp(mode, "abort-after-sleep") == 0)
        abort_after_sleep();
#endif
    else
        E2E_DIE("usage: thread_lanes sleep-while-waiting|eight-waiters|exit-from-helper");
    printf("thread_lanes: rank %d: all checks passed\n", my_rank);
    PtlNIFini(ni);
    PtlFini();
    return 0;
}
