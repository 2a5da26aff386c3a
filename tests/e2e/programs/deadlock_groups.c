/*
 * A deadlock on many ranks, for the grouped report: rank 0 waits for a
 * counter that nobody increments, in lonely_wait(); every other rank waits
 * for an event that never comes, in exchange(). The report must group ranks
 * 1 to N-1 on one line, with the call and where the program made it.
 */
#include "e2e_common.h"

static void __attribute__((noinline)) lonely_wait(ptl_handle_ni_t ni)
{
    ptl_handle_ct_t ct;
    ptl_ct_event_t value;
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlCTWait(ct, 1, &value)); /* never reached: nobody counts */
}

static void __attribute__((noinline)) exchange(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_event_t event;
    E2E_OK(PtlEQAlloc(ni, 8, &eq));
    E2E_OK(PtlEQWait(eq, &event)); /* never reached: nothing is sent */
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    if (e2e_rank == 0)
        lonely_wait(ni);
    else
        exchange(ni);
    return e2e_finish("deadlock_groups");
}
