/*
 * A rank that writes much to its standard output, which may be read slowly
 * (s4bxi-run ... | less): blocked in write() on a full pipe, it is not
 * waiting for something to happen, and must not be parked (the simulation
 * waits for it, as for a rank that computes), so that the simulated results
 * do not depend on how fast the output is read. Rank 0 writes 1 MiB, then
 * the ranks meet in a barrier, and rank 0 prints the simulated time.
 */
#include "e2e_common.h"

#include <unistd.h>

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    if (e2e_rank == 0) {
        static char line[1024];
        memset(line, 'x', sizeof line - 1);
        line[sizeof line - 1] = '\n';
        for (int i = 0; i < 1024; ++i)
            if (write(STDOUT_FILENO, line, sizeof line) != (ssize_t)sizeof line)
                E2E_DIE("write to the standard output failed");
    }
    e2e_barrier();
    if (e2e_rank == 0) {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        printf("flood_stdout: simulated time after the barrier %ld.%09ld s\n", (long)t.tv_sec, t.tv_nsec);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("flood_stdout");
}
