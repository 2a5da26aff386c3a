/*
 * poll_bounded: polls that are not a wait. Rank 0 polls an EQ that nothing
 * will ever fill, a fixed number of times (argv[1], default 1000) with
 * nothing else in between, then Puts to rank 1, which waits in PtlEQWait.
 * Blocking the polling rank until its EQ changes would be a deadlock: the
 * emulator must let it make its polls, each charged one poll period, so that
 * the loop lasts exactly polls x s4bxi/poll-cost of simulated time (printed).
 * With "forever", rank 0 polls without end: a real deadlock, to be reported.
 */
#include "e2e_common.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    const int forever = argc > 1 && strcmp(argv[1], "forever") == 0;
    const long polls = argc > 1 && !forever ? atol(argv[1]) : 1000;
    ptl_handle_eq_t eq, idle;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlEQAlloc(ni, 16, &idle));
    E2E_OK(PtlPTAlloc(ni, 0, eq, 6, &pt));
    static char buffer[8];
    ptl_handle_me_t meh = e2e_append_me(ni, pt, buffer, sizeof buffer, PTL_CT_NONE,
                                        PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    e2e_barrier_init(ni);
    e2e_barrier();

    if (e2e_rank == 0) {
        ptl_event_t ev;
        const double start = now_s();
        for (long i = 0; forever || i < polls; ++i)
            E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(idle, &ev));
        printf("poll_bounded: %ld polls in %.9f simulated s\n", polls, now_s() - start);
        static char payload[8] = "done";
        ptl_handle_md_t mdh = e2e_bind_md(ni, payload, sizeof payload);
        E2E_OK(PtlPut(mdh, 0, sizeof payload, PTL_NO_ACK_REQ, e2e_peer(1), pt, 0, 0, NULL, 0));
        e2e_barrier();
        E2E_OK(PtlMDRelease(mdh));
    } else {
        ptl_event_t ev;
        E2E_OK(PtlEQWait(eq, &ev));
        E2E_CHECK(ev.type == PTL_EVENT_PUT && strcmp(buffer, "done") == 0, "event %s, buffer '%s'",
                  e2e_event_name(ev.type), buffer);
        e2e_barrier();
    }
    e2e_barrier_fini();
    E2E_OK(PtlMEUnlink(meh));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlEQFree(idle));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("poll_bounded");
}
