/* MPI ping-pong bandwidth sweep between ranks 0 and 1: sizes from 8 B to a
 * maximum (4 MiB by default), doubling, the same blocking MPI_Send/MPI_Recv
 * as mpi_pingpong, in one job (an MPI start-up per size would cost more wall
 * time than the sweep). For tools/bench.sh's comparison with SMPI.
 * Prints, from rank 0, one line per size (simulated half round trip and
 * bandwidth: MPI_Wtime is simulated time under both emulators, the same from
 * run to run with compute off), then one summary line: the largest size's
 * bandwidth and the wall time per simulated message over the whole sweep
 * (warm-up round trips left out).
 * Usage: s4bxi-run -n 2 mpi_bandwidth [iterations per size (default 100)] [largest size (default 4194304)]
 *        smpirun -np 2 ... mpi_bandwidth [iterations per size] [largest size] */
#include "mpi_bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 100;
  const size_t largest = argc > 2 ? strtoull(argv[2], NULL, 10) : 4194304;
  if (size < 2 || iterations < 1 || largest < 8) {
    if (rank == 0)
      fprintf(stderr, "mpi_bandwidth: needs 2 ranks, at least one iteration and a largest size of at least 8 B\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buffer = malloc(largest);
  memset(buffer, rank, largest);
  double wall_total = 0, last_bandwidth = 0;
  long messages = 0;
  size_t last = 8;
  for (size_t bytes = 8; bytes <= largest; bytes *= 2) {
    /* One round trip first at each size: a new size may take another protocol
     * (eager or rendezvous), whose first use is not the steady state. */
    for (int warm = 0; warm < 2; ++warm) {
      const long rounds = warm == 0 ? 1 : iterations;
      MPI_Barrier(MPI_COMM_WORLD);
      const double start = MPI_Wtime(), wall_start = wall_seconds();
      for (long i = 0; i < rounds && rank < 2; ++i) {
        if (rank == 0) {
          MPI_Send(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          MPI_Recv(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
          MPI_Recv(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          MPI_Send(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        }
      }
      /* Rank 0's clocks: its last MPI_Recv ends the round trips. */
      const double simulated = MPI_Wtime() - start, wall = wall_seconds() - wall_start;
      if (warm == 1 && rank == 0) {
        const double half = simulated / (2.0 * (double)iterations);
        last_bandwidth = half > 0 ? (double)bytes / half / 1e6 : 0.0;
        printf("  %8zu B: half round trip %10.3f us, %8.1f MB/s, wall %8.2f us per message\n", bytes, half * 1e6,
               last_bandwidth, wall / (2.0 * (double)iterations) * 1e6);
        wall_total += wall;
        messages += 2 * iterations;
        last = bytes;
      }
    }
  }
  /* The wall time per simulated message is averaged over the sizes, as the
   * sweep weighs them: the same number of messages at each size. */
  if (rank == 0)
    printf("mpi bandwidth sweep 8 B to %zu B x %ld: %zu B at %.1f MB/s, wall %.2f us per simulated message (%.3f s for "
           "%ld messages)\n",
           last, iterations, last, last_bandwidth, wall_total / (double)messages * 1e6, wall_total, messages);
  free(buffer);
  MPI_Finalize();
  return 0;
}
