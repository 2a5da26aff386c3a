/*
 * Two ranks exchange through a pipe created before they were started (the
 * test harness makes it before it starts s4bxi-run; its ends are the
 * descriptors given as arguments). Rank 1 blocks in read(), outside any
 * emulated call; rank 0 first sleeps 2 ms of simulated time, then writes its
 * clock. The simulation must go on without rank 1 (else rank 0's sleep never
 * ends: a deadlock that is none), and rank 1's clock must resume at the
 * simulated time at which it woke: not before the write, and within a
 * millisecond of it.
 *
 * With a third argument `compute`, rank 0 also computes (a busy loop of real
 * CPU time, simulated as compute) between its sleep and its reading of the
 * clock: the simulation has not reached that time yet when rank 1 wakes, and
 * rank 1 must still not wake before the write.
 */
#include "e2e_common.h"

#include <string.h>
#include <unistd.h>

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
    if (argc < 3) /* (the test harness appends a marker) */
        E2E_DIE("usage: pipe_between_ranks READ_FD WRITE_FD [compute]");
    const int read_fd = atoi(argv[1]), write_fd = atoi(argv[2]);
    const int compute = argc > 3 && strcmp(argv[3], "compute") == 0;
    e2e_barrier_init(ni);
    if (e2e_rank == 0) {
        close(read_fd);
        e2e_sleep_ns(2000000);
        if (compute) {
            volatile unsigned long spin = 0;
            for (unsigned long i = 0; i < 3000000; ++i)
                spin += i;
        }
        double written = now_s();
        if (write(write_fd, &written, sizeof written) != (ssize_t)sizeof written)
            E2E_DIE("write to the shared pipe failed");
        printf("pipe_between_ranks: rank 0 wrote at %.9f s\n", written);
    } else {
        close(write_fd);
        double before = now_s(), written = 0;
        if (read(read_fd, &written, sizeof written) != (ssize_t)sizeof written)
            E2E_DIE("read from the shared pipe failed");
        double woke = now_s();
        E2E_CHECK(woke >= written, "rank 1 woke at %.9f s, before rank 0 wrote (%.9f s)", woke, written);
        E2E_CHECK(woke - written < 1e-3, "rank 1 woke at %.9f s, %.6f s after rank 0 wrote", woke, woke - written);
        E2E_CHECK(woke - before >= 2e-3, "rank 1 waited %.9f s of simulated time, less than rank 0's sleep",
                  woke - before);
        printf("pipe_between_ranks: rank 1 woke %.9f s after the write, having waited %.9f s\n", woke - written,
               woke - before);
    }
    e2e_barrier();
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("pipe_between_ranks");
}
