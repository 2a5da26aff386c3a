/*
 * Rank 1 dies of a segmentation fault after some Portals traffic while rank
 * 0 waits in PtlEQWait for an event that will never come. The launcher must
 * report "rank 1 was killed by signal 11 (Segmentation fault)", exit with
 * status 139 and leave no process behind.
 */
#include "e2e_common.h"

#include <signal.h>
#include <stdint.h>

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    e2e_barrier();

    if (e2e_rank == 1) {
        /* Volatile pointer and target: the compiler can neither see that
         * the pointer is null nor drop the store. */
        volatile int *volatile p = NULL;
        fprintf(stderr, "crash_segv: rank 1 about to segfault\n");
        *p = 42;
        fprintf(stderr, "crash_segv: rank 1 survived a null store?\n");
        raise(SIGSEGV);
        return 1;
    }

    e2e_wait_forever(ni);
    fprintf(stderr, "crash_segv: rank 0 got an event from nowhere\n");
    return 1;
}
