/*
 * A program to drive under s4bxi-run --gdb: rank 0 sends 5 values to rank 1,
 * which transforms each in transform() and sends it back; rank 0 checks the
 * results and both print the simulated time. The test puts a breakpoint in
 * transform() and checks that the results and the simulated times are the
 * same as without the debugger.
 */
#include "e2e_common.h"

#define PT_D 6
#define ROUNDS 5

static long __attribute__((noinline)) transform(long value)
{
    long result = value * 3 + 1; /* breakpoint here */
    return result;
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    static long inbox, outbox;
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_D, &pt));
    e2e_append_me(ni, PT_D, &inbox, sizeof inbox, PTL_CT_NONE, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_md_t md = e2e_bind_md(ni, &outbox, sizeof outbox);
    e2e_barrier_init(ni);
    e2e_barrier();
    const int peer = 1 - e2e_rank;
    long sum = 0;
    for (long round = 0; round < ROUNDS; ++round) {
        ptl_event_t ev;
        if (e2e_rank == 0) {
            outbox = round + 10;
            E2E_OK(PtlPut(md, 0, sizeof outbox, PTL_NO_ACK_REQ, e2e_peer(peer), PT_D, 0, 0, NULL, 0));
            do
                E2E_OK(PtlEQWait(eq, &ev));
            while (ev.type != PTL_EVENT_PUT);
            E2E_CHECK(inbox == (round + 10) * 3 + 1, "round %ld: got %ld", round, inbox);
            sum += inbox;
        } else {
            do
                E2E_OK(PtlEQWait(eq, &ev));
            while (ev.type != PTL_EVENT_PUT);
            outbox = transform(inbox);
            E2E_OK(PtlPut(md, 0, sizeof outbox, PTL_NO_ACK_REQ, e2e_peer(peer), PT_D, 0, 0, NULL, 0));
        }
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (e2e_rank == 0)
        printf("debug_target: sum %ld\n", sum);
    printf("debug_target: rank %d simulated %ld.%09ld\n", e2e_rank, (long)now.tv_sec, now.tv_nsec);
    e2e_barrier();
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("debug_target");
}
