/* MPI_Alltoall of a few bytes per pair of ranks, repeated: the collective
 * whose message count grows with the square of the ranks, for tools/bench.sh's
 * comparison with SMPI. Prints, from rank 0, the simulated time per alltoall
 * (MPI_Wtime is simulated time under both emulators, and with compute off it
 * depends on the network model only, so it is the same from run to run) and
 * the wall time per alltoall, from the first rank entering the loop to the
 * last one leaving it. Every received block is checked.
 * Usage: s4bxi-run -n N mpi_alltoall [iterations (default 100)] [bytes per pair (default 8)]
 *        smpirun -np N ... mpi_alltoall [iterations] [bytes per pair] */
#include "mpi_bench_common.h"

#include <stdio.h>
#include <stdlib.h>

/* The byte `offset` of the block that `from` sends to `to` in iteration
 * `round`: a block from the wrong rank or the wrong round is caught. */
static unsigned char expected(int from, int to, long round, size_t offset)
{
  return (unsigned char)(from * 131 + to * 7 + round * 3 + (long)offset);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 100;
  const size_t bytes = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
  if (iterations < 1 || bytes < 1) {
    if (rank == 0)
      fprintf(stderr, "mpi_alltoall: needs at least one iteration and one byte per pair\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  unsigned char *out = malloc(bytes * (size_t)size), *in = malloc(bytes * (size_t)size);
  long wrong = 0;
  /* One alltoall first: connection set-up is not the steady state. */
  for (int warm = 0; warm < 2; ++warm) {
    const long rounds = warm == 0 ? 1 : iterations;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime(), wall_start = wall_seconds();
    for (long round = 0; round < rounds; ++round) {
      for (int to = 0; to < size; ++to)
        for (size_t b = 0; b < bytes; ++b)
          out[(size_t)to * bytes + b] = expected(rank, to, round, b);
      MPI_Alltoall(out, (int)bytes, MPI_BYTE, in, (int)bytes, MPI_BYTE, MPI_COMM_WORLD);
      for (int from = 0; from < size; ++from)
        for (size_t b = 0; b < bytes; ++b)
          wrong += in[(size_t)from * bytes + b] != expected(from, rank, round, b);
    }
    const double end = MPI_Wtime(), wall_end = wall_seconds();
    double simulated, wall;
    span_over_ranks(start, wall_start, end, wall_end, &simulated, &wall);
    if (warm == 1 && rank == 0)
      printf("mpi_alltoall %d ranks, %zu B per pair x %ld: simulated %.3f us per alltoall, wall %.2f us per alltoall\n",
             size, bytes, iterations, simulated / (double)iterations * 1e6, wall / (double)iterations * 1e6);
  }
  long wrong_anywhere = 0;
  MPI_Reduce(&wrong, &wrong_anywhere, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0 && wrong_anywhere > 0)
    printf("mpi_alltoall: %ld WRONG BYTES received\n", wrong_anywhere);
  free(out);
  free(in);
  MPI_Finalize();
  return wrong > 0;
}
