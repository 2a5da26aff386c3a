/* MPI ping-pong between ranks 0 and 1 (blocking MPI_Send/MPI_Recv), for the
 * MPI figures of tools/bench.sh next to the Portals-level ones: the simulated
 * half round trip and bandwidth (MPI_Wtime, i.e. simulated time under the
 * emulator), and the wall time per simulated MPI message (both directions
 * count), the figure that says how fast the emulator simulates MPI.
 * Usage: s4bxi-run -n 2 mpi_pingpong [iterations] [size] */
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
  const long iterations = argc > 1 ? atol(argv[1]) : 10000;
  const size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
  if (size < 2 || iterations < 1) {
    if (rank == 0)
      fprintf(stderr, "mpi_pingpong: needs 2 ranks and at least one iteration\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char *buffer = malloc(bytes > 0 ? bytes : 1);
  memset(buffer, rank, bytes);
  /* One round trip first: connection set-up is not the steady state. */
  for (int warm = 0; warm < 2; ++warm) {
    const long rounds = warm == 0 ? 1 : iterations;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime(), wall_start = wall_seconds();
    for (long i = 0; i < rounds && rank < 2; ++i) {
      if (rank == 0) {
        MPI_Send(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        MPI_Recv(buffer, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buffer, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
      }
    }
    const double simulated = MPI_Wtime() - start, wall = wall_seconds() - wall_start;
    if (warm == 1 && rank == 0) {
      const double half = simulated / (2.0 * (double)iterations);
      printf("mpi ping-pong %zu B x %ld: half round trip %.3f us, %.1f MB/s, wall %.2f us per simulated message\n",
             bytes, iterations, half * 1e6, half > 0 ? (double)bytes / half / 1e6 : 0.0,
             wall / (2.0 * (double)iterations) * 1e6);
    }
  }
  free(buffer);
  MPI_Finalize();
  return 0;
}
