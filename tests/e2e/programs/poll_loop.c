/*
 * poll_loop: a rank that only polls. Rank 1 sleeps 2 simulated seconds, then
 * Puts to rank 0; rank 0 spins on PtlEQGet (and then on PtlCTGet) until the
 * message is there. Checks that the event arrives at the simulated time it
 * was sent (plus the network), that polling was charged as time, and prints
 * how many polls rank 0 made: the run must not cost one round trip per
 * simulated poll period (the test bounds the wall time).
 */
#include "e2e_common.h"

#include <unistd.h>

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlPTAlloc(ni, 0, eq, 3, &pt));
    static char buffer[64];
    ptl_handle_me_t meh = e2e_append_me(ni, pt, buffer, sizeof buffer, ct,
                                        PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_CT_COMM);
    e2e_barrier_init(ni);
    e2e_barrier();

    if (e2e_rank == 1) {
        static char payload[8] = "polled!";
        ptl_handle_md_t mdh = e2e_bind_md(ni, payload, sizeof payload);
        for (int round = 0; round < 2; ++round) {
            sleep(2);
            E2E_OK(PtlPut(mdh, 0, sizeof payload, PTL_NO_ACK_REQ, e2e_peer(0), pt, 0, 0, NULL, 0));
        }
        e2e_barrier();
        E2E_OK(PtlMDRelease(mdh));
    } else {
        double start = now_s();
        long polls = 0;
        ptl_event_t ev;
        int rc;
        while ((rc = PtlEQGet(eq, &ev)) == PTL_EQ_EMPTY)
            ++polls;
        double arrival = now_s() - start;
        E2E_CHECK(rc == PTL_OK && ev.type == PTL_EVENT_PUT, "PtlEQGet gave %s, event %s", e2e_rc_name(rc),
                  e2e_event_name(ev.type));
        /* Within 1 ms of 2 s: the two ranks leave the barrier a few
         * microseconds apart, so the exact offset depends on the barrier. */
        E2E_CHECK(arrival > 1.999 && arrival < 2.001, "event seen after %.9f simulated s, expected 2 s", arrival);
        E2E_CHECK(strcmp(buffer, "polled!") == 0, "payload '%s'", buffer);

        /* The same with a counter: PtlCTGet until the second message counts. */
        ptl_ct_event_t count;
        long ct_polls = 0;
        do {
            E2E_OK(PtlCTGet(ct, &count));
            ++ct_polls;
        } while (count.success < 2);
        double second = now_s() - start;
        E2E_CHECK(second > 3.999 && second < 4.001, "second message counted after %.9f simulated s", second);
        printf("poll_loop: %ld empty PtlEQGet, %ld PtlCTGet over %.3f simulated s\n", polls, ct_polls, second);
        e2e_barrier();
    }
    e2e_barrier_fini();
    E2E_OK(PtlMEUnlink(meh));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("poll_loop");
}
