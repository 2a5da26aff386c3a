/*
 * poll_two_eqs: a rank that polls two event queues the way OpenMPI's progress
 * loop does (PtlEQGet on one, then a zero-timeout PtlEQPoll on both) while the
 * message it waits for lands in the second. Rank 1 sleeps 1 simulated second,
 * then Puts to rank 0's portal whose EQ is B. Rank 0 must see the event at
 * 1 s (a rank blocked after a streak of empty polls wakes when anything it
 * polled changes, not only the last object), the empty polls must be charged
 * as polling, and the run must not cost a round trip per poll period.
 * Then the same with counters: PtlCTGet on one, zero-timeout PtlCTPoll on two.
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
    ptl_handle_eq_t eqs[2];
    ptl_handle_ct_t cts[2];
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 16, &eqs[0]));
    E2E_OK(PtlEQAlloc(ni, 16, &eqs[1]));
    E2E_OK(PtlCTAlloc(ni, &cts[0]));
    E2E_OK(PtlCTAlloc(ni, &cts[1]));
    E2E_OK(PtlPTAlloc(ni, 0, eqs[1], 5, &pt));
    static char buffer[64];
    ptl_handle_me_t meh = e2e_append_me(ni, pt, buffer, sizeof buffer, cts[1],
                                        PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_CT_COMM | PTL_ME_MANAGE_LOCAL);
    e2e_barrier_init(ni);
    e2e_barrier();

    if (e2e_rank == 1) {
        static char payload[8] = "second";
        ptl_handle_md_t mdh = e2e_bind_md(ni, payload, sizeof payload);
        for (int round = 0; round < 2; ++round) {
            sleep(1);
            E2E_OK(PtlPut(mdh, 0, sizeof payload, PTL_NO_ACK_REQ, e2e_peer(0), pt, 0, 0, NULL, 0));
        }
        e2e_barrier();
        E2E_OK(PtlMDRelease(mdh));
    } else {
        double start = now_s();
        long polls = 0;
        ptl_event_t ev;
        unsigned int which = 99;
        int rc;
        for (;;) {
            rc = PtlEQGet(eqs[0], &ev);
            if (rc != PTL_EQ_EMPTY) {
                e2e_fail("PtlEQGet on the idle EQ gave %s", e2e_rc_name(rc));
                break;
            }
            rc = PtlEQPoll(eqs, 2, 0, &ev, &which);
            if (rc != PTL_EQ_EMPTY)
                break;
            polls += 2;
        }
        double arrival = now_s() - start;
        E2E_CHECK(rc == PTL_OK && which == 1 && ev.type == PTL_EVENT_PUT, "PtlEQPoll gave %s, EQ %u, event %s",
                  e2e_rc_name(rc), which, e2e_event_name(ev.type));
        E2E_CHECK(arrival > 0.999 && arrival < 1.001, "event seen after %.9f simulated s, expected 1 s", arrival);
        E2E_CHECK(strcmp(buffer, "second") == 0, "payload '%s'", buffer);

        /* Counters: the second Put counts on cts[1]. */
        ptl_ct_event_t value;
        long ct_polls = 0;
        ptl_size_t tests[2] = {1, 2};
        for (;;) {
            E2E_OK(PtlCTGet(cts[0], &value));
            rc = PtlCTPoll(cts, tests, 2, 0, &value, &which);
            if (rc != PTL_CT_NONE_REACHED)
                break;
            ct_polls += 2;
        }
        double second = now_s() - start;
        E2E_CHECK(rc == PTL_OK && which == 1 && value.success == 2, "PtlCTPoll gave %s, CT %u, success %llu",
                  e2e_rc_name(rc), which, (unsigned long long)value.success);
        E2E_CHECK(second > 1.999 && second < 2.001, "second message counted after %.9f simulated s", second);
        printf("poll_two_eqs: %ld empty EQ polls, %ld empty CT polls over %.3f simulated s\n", polls, ct_polls,
               second);
        e2e_barrier();
    }
    e2e_barrier_fini();
    E2E_OK(PtlMEUnlink(meh));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlCTFree(cts[0]));
    E2E_OK(PtlCTFree(cts[1]));
    E2E_OK(PtlEQFree(eqs[0]));
    E2E_OK(PtlEQFree(eqs[1]));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("poll_two_eqs");
}
