/* A 3-D halo exchange, the communication of a stencil code, for tools/bench.sh's
 * comparison with SMPI: the ranks form a periodic Cartesian grid (27 ranks:
 * 3x3x3, every rank has 6 distinct neighbours), each owns an n x n x n block
 * of doubles with a halo layer, and every iteration sends its 6 faces (n x n
 * doubles each) to its neighbours with MPI_Isend/MPI_Irecv and one MPI_Waitall,
 * then reduces a residual over all ranks with MPI_Allreduce.
 * The update is kept to the faces (each face cell moves halfway to the halo
 * cell beside it): neither emulator charges the program's compute here
 * (compute off), but both spend its real time, and a full sweep of the block
 * would add the same wall time to both sides of the comparison.
 * Prints, from rank 0, the simulated time per iteration (MPI_Wtime: simulated
 * time under both emulators, the same from run to run with compute off), the
 * wall time per iteration (first rank in to last rank out) and the last
 * residual, which depends only on the data, not on the emulator (its sum is
 * taken in an order the collective algorithm chooses: the last digits may
 * differ between MPI libraries).
 * With a third argument, `sweeps`, each iteration also makes that many
 * Jacobi sweeps of the whole block (the 7-point average, into a second block):
 * the compute of a real stencil code, for tools/fidelity-bench.sh, which
 * compares the simulated time per iteration in the default mode (measured
 * compute) with one rank's compute plus the network model's time.
 * Usage: s4bxi-run -n 27 mpi_stencil [iterations (default 50)] [n (default 32)] [sweeps (default 0)]
 *        smpirun -np 27 ... mpi_stencil [iterations] [n] */
#include "mpi_bench_common.h"

#include <stdio.h>
#include <stdlib.h>

static int n;

/* The cell at `layer` along dimension `d` (0 and n + 1 are the halo layers)
 * and at a, b (1..n) along the two others. */
static size_t cell(int d, int layer, int a, int b)
{
  int x[3];
  x[d] = layer;
  x[(d + 1) % 3] = a;
  x[(d + 2) % 3] = b;
  return ((size_t)x[0] * (size_t)(n + 2) + (size_t)x[1]) * (size_t)(n + 2) + (size_t)x[2];
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 50;
  n = argc > 2 ? atoi(argv[2]) : 32;
  const int sweeps = argc > 3 ? atoi(argv[3]) : 0;
  if (iterations < 1 || n < 1 || sweeps < 0) {
    if (rank == 0)
      fprintf(stderr, "mpi_stencil: needs at least one iteration and a face of at least 1x1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  /* No reordering: rank r stays on the node the launcher put it on, under
   * both emulators. */
  int dims[3] = {0, 0, 0}, periods[3] = {1, 1, 1}, coords[3];
  MPI_Dims_create(size, 3, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &grid);
  MPI_Cart_coords(grid, rank, 3, coords);
  int neighbour[3][2];
  for (int d = 0; d < 3; ++d)
    MPI_Cart_shift(grid, d, 1, &neighbour[d][0], &neighbour[d][1]);

  const size_t face = (size_t)n * (size_t)n;
  const size_t cells = (size_t)(n + 2) * (size_t)(n + 2) * (size_t)(n + 2);
  double *u = malloc(sizeof *u * cells), *next = sweeps > 0 ? calloc(cells, sizeof *next) : NULL;
  double *out = malloc(sizeof *out * 6 * face), *in = malloc(sizeof *in * 6 * face);
  /* A field over the whole periodic domain that is not smooth across blocks,
   * so that the residual is not zero. */
  for (int i = 1; i <= n; ++i)
    for (int j = 1; j <= n; ++j)
      for (int k = 1; k <= n; ++k) {
        const long x = (long)coords[0] * n + i, y = (long)coords[1] * n + j, z = (long)coords[2] * n + k;
        u[((size_t)i * (size_t)(n + 2) + (size_t)j) * (size_t)(n + 2) + (size_t)k] = (double)((x * x + 3 * y + 5 * z) % 17);
      }

  double residual = 0;
  /* One iteration first: connection set-up is not the steady state. */
  for (int warm = 0; warm < 2; ++warm) {
    const long rounds = warm == 0 ? 1 : iterations;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime(), wall_start = wall_seconds();
    for (long round = 0; round < rounds; ++round) {
      /* Face f = 2d + side: side 0 is the low face (layer 1), going to the
       * low neighbour, whose high halo it fills; the tag names the
       * sender's side, so that the two faces between the same two ranks
       * (a dimension of 2 ranks, or of 1: the rank itself) stay apart. */
      MPI_Request requests[12];
      for (int d = 0; d < 3; ++d)
        for (int side = 0; side < 2; ++side) {
          const int f = 2 * d + side;
          MPI_Irecv(in + (size_t)f * face, (int)face, MPI_DOUBLE, neighbour[d][side], 2 * d + (1 - side), grid,
                    &requests[f]);
        }
      for (int d = 0; d < 3; ++d)
        for (int side = 0; side < 2; ++side) {
          const int f = 2 * d + side, layer = side == 0 ? 1 : n;
          for (int a = 1; a <= n; ++a)
            for (int b = 1; b <= n; ++b)
              out[(size_t)f * face + (size_t)(a - 1) * (size_t)n + (size_t)(b - 1)] = u[cell(d, layer, a, b)];
          MPI_Isend(out + (size_t)f * face, (int)face, MPI_DOUBLE, neighbour[d][side], f, grid, &requests[6 + f]);
        }
      MPI_Waitall(12, requests, MPI_STATUSES_IGNORE);
      double local = 0;
      for (int d = 0; d < 3; ++d)
        for (int side = 0; side < 2; ++side) {
          const int f = 2 * d + side, layer = side == 0 ? 1 : n, halo = side == 0 ? 0 : n + 1;
          for (int a = 1; a <= n; ++a)
            for (int b = 1; b <= n; ++b) {
              const double there = in[(size_t)f * face + (size_t)(a - 1) * (size_t)n + (size_t)(b - 1)];
              const double here = u[cell(d, layer, a, b)];
              u[cell(d, halo, a, b)] = there;
              local += (there - here) * (there - here);
              u[cell(d, layer, a, b)] = here + 0.5 * (there - here);
            }
        }
      for (int sweep = 0; sweep < sweeps; ++sweep) {
        const size_t row = (size_t)(n + 2), plane = row * row;
        for (int i = 1; i <= n; ++i)
          for (int j = 1; j <= n; ++j)
            for (int k = 1; k <= n; ++k) {
              const size_t c = (size_t)i * plane + (size_t)j * row + (size_t)k;
              next[c] = (u[c - plane] + u[c + plane] + u[c - row] + u[c + row] + u[c - 1] + u[c + 1]) / 6.0;
            }
        /* (The halo layers of `next` are stale: the faces' halos are the
         * ones the next exchange fills, and only those are read.) */
        for (int i = 1; i <= n; ++i)
          for (int j = 1; j <= n; ++j)
            for (int k = 1; k <= n; ++k) {
              const size_t c = (size_t)i * plane + (size_t)j * row + (size_t)k;
              u[c] = next[c];
            }
      }
      MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, grid);
    }
    const double end = MPI_Wtime(), wall_end = wall_seconds();
    double simulated, wall;
    span_over_ranks(start, wall_start, end, wall_end, &simulated, &wall);
    if (warm == 1 && rank == 0)
      printf("mpi_stencil %d ranks (%dx%dx%d), faces %dx%d doubles x %ld%s: simulated %.3f us per iteration, wall "
             "%.2f us per iteration, residual %.6e\n",
             size, dims[0], dims[1], dims[2], n, n, iterations, sweeps > 0 ? ", with sweeps" : "",
             simulated / (double)iterations * 1e6, wall / (double)iterations * 1e6, residual);
  }
  free(u);
  free(next);
  free(out);
  free(in);
  MPI_Comm_free(&grid);
  MPI_Finalize();
  return 0;
}
