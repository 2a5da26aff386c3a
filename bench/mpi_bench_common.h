/* What the MPI benchmark programs share: the two clocks, and the span of a
 * timed loop over all ranks. Plain MPI only: the programs are built both with
 * Debian's mpicc (run under s4bxi-run) and with SimGrid's smpicc (run under
 * smpirun), so that tools/bench.sh can compare the two emulators. */
#ifndef MPI_BENCH_COMMON_H
#define MPI_BENCH_COMMON_H

/* syscall() and CLOCK_MONOTONIC, whatever -std the compiler is given (smpicc
 * passes the user's flags through): this header comes first in each program. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <mpi.h>

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Real time: the raw system call goes around the emulator's hook, and around
 * SMPI's too (smpicc redefines clock_gettime, not syscall). */
static inline double wall_seconds(void)
{
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* From the first rank entering a timed loop to the last one leaving it, on
 * both clocks (MPI_Wtime: simulated time, one clock for the whole job under
 * both emulators; wall_seconds: CLOCK_MONOTONIC, one clock for the machine).
 * A collective after the loop: reading the clocks on rank 0 after a barrier
 * would count the barrier. The spans are valid on rank 0 only. */
static inline void span_over_ranks(double simulated_start, double wall_start, double simulated_end, double wall_end,
                                   double *simulated, double *wall)
{
  /* The earliest start is the largest negated start: one MPI_MAX for all four. */
  double mine[4] = {-simulated_start, -wall_start, simulated_end, wall_end}, all[4];
  MPI_Reduce(mine, all, 4, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  *simulated = all[2] + all[0];
  *wall = all[3] + all[1];
}

#endif
