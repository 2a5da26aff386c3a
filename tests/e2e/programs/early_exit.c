/*
 * Rank 1 exits with status 3 in the middle of the run, without PtlFini,
 * while rank 0 waits in PtlEQWait. The launcher must report "rank 1 exited
 * with status 3", exit with status 3 and leave no process behind.
 */
#include "e2e_common.h"

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    e2e_barrier();

    if (e2e_rank == 1) {
        fprintf(stderr, "early_exit: rank 1 exits with status 3\n");
        exit(3);
    }

    ptl_handle_eq_t eq;
    ptl_event_t ev;
    E2E_OK(PtlEQAlloc(ni, 8, &eq));
    PtlEQWait(eq, &ev);
    fprintf(stderr, "early_exit: rank 0 got an event from nowhere\n");
    return 1;
}
