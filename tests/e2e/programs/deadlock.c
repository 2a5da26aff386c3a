/*
 * Every rank waits in PtlEQWait on an event queue that nothing can reach.
 * The launcher must detect the deadlock, name each waiting rank and the call
 * it waits in, exit non-zero and leave no process behind.
 */
#include "e2e_common.h"

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    e2e_barrier();

    ptl_handle_eq_t eq;
    ptl_event_t ev;
    E2E_OK(PtlEQAlloc(ni, 8, &eq));
    int rc = PtlEQWait(eq, &ev);
    fprintf(stderr, "deadlock: rank %d returned from PtlEQWait with %s\n",
            e2e_rank, e2e_rc_name(rc));
    return 1;
}
