/* The latency of one MPI collective, measured as the OSU micro-benchmarks do
 * (osu_allreduce, osu_bcast, osu_alltoall: the figures the S4BXI thesis
 * compares with real BXI hardware in its chapter 5): each rank times every
 * call on its own with MPI_Wtime, with a barrier between two calls, and the
 * latency is the mean over iterations, averaged over the ranks (min and max
 * over the ranks too). For tools/fidelity-bench.sh.
 * Usage: s4bxi-run -n 16 mpi_collective_latency allreduce|bcast|alltoall [bytes (default 4)] [iterations (default 200)]
 * Bytes: per rank for allreduce (a sum of MPI_FLOATs, as OSU's: at least
 * one), the message for bcast (from rank 0), per pair for alltoall. */
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
  const char *collective = argc > 1 ? argv[1] : "allreduce";
  const size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 10) : 4;
  const long iterations = argc > 3 ? atol(argv[3]) : 200;
  const int allreduce = strcmp(collective, "allreduce") == 0, bcast = strcmp(collective, "bcast") == 0,
            alltoall = strcmp(collective, "alltoall") == 0;
  if (!(allreduce || bcast || alltoall) || iterations < 1 || bytes < 1) {
    if (rank == 0)
      fprintf(stderr, "mpi_collective_latency: usage: mpi_collective_latency allreduce|bcast|alltoall [bytes >= 1] "
                      "[iterations >= 1]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const size_t per_rank = alltoall ? bytes * (size_t)size : bytes;
  char *send = malloc(per_rank), *receive = malloc(per_rank);
  memset(send, rank + 1, per_rank);
  memset(receive, 0, per_rank);
  const int floats = bytes / sizeof(float) > 0 ? (int)(bytes / sizeof(float)) : 1;
  float *send_floats = calloc((size_t)floats, sizeof(float)), *receive_floats = calloc((size_t)floats, sizeof(float));

  double total = 0;
  /* A few calls first, as OSU's warm-up: connection set-up is not the steady state. */
  const long warm_up = iterations / 10 > 0 ? iterations / 10 : 1;
  for (long i = 0; i < warm_up + iterations; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    if (allreduce)
      MPI_Allreduce(send_floats, receive_floats, floats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    else if (bcast)
      MPI_Bcast(send, (int)bytes, MPI_CHAR, 0, MPI_COMM_WORLD);
    else
      MPI_Alltoall(send, (int)bytes, MPI_CHAR, receive, (int)bytes, MPI_CHAR, MPI_COMM_WORLD);
    if (i >= warm_up)
      total += MPI_Wtime() - start;
  }
  const double mine = total / (double)iterations;
  double sum = 0, least = 0, most = 0;
  MPI_Reduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_collective_latency %s %zu B %d ranks x %ld: avg %.3f us, min %.3f us, max %.3f us\n", collective,
           bytes, size, iterations, sum / size * 1e6, least * 1e6, most * 1e6);
  free(send);
  free(receive);
  free(send_floats);
  free(receive_floats);
  MPI_Finalize();
  return 0;
}
