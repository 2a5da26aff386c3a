/* MPI ring: each rank sends an int to rank+1 and receives one from rank-1, a
 * few rounds, and checks what it got. Short on purpose: tools/soak-startup.sh
 * runs it hundreds of times to count start-ups (MPI_Init's PMI bootstrap and
 * the first messages) that hang or fail, so nearly all its time is start-up
 * and teardown. Prints one line from rank 0; exits 1 on a wrong value.
 * Usage: s4bxi-run -n N mpi_ring [rounds (default 3)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  int wrong = 0;
  for (int round = 0; round < rounds; ++round) {
    /* The value names its sender and round, so a message from the wrong rank
     * or an old round is caught. Sendrecv: a ring of blocking sends could
     * deadlock on a rendezvous protocol (not for an int, but keep it honest). */
    int out = round * size + rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, next, round, &in, 1, MPI_INT, previous, round, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (in != round * size + previous) {
      fprintf(stderr, "mpi_ring: rank %d, round %d: got %d from rank %d, expected %d\n", rank, round, in, previous,
              round * size + previous);
      wrong = 1;
    }
  }
  /* Every rank's verdict reaches rank 0, so its one line speaks for the job. */
  int any_wrong = 0;
  MPI_Reduce(&wrong, &any_wrong, 1, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("mpi_ring: %d ranks, %d rounds: %s\n", size, rounds, any_wrong ? "WRONG VALUES" : "all values right");
  MPI_Finalize();
  return wrong;
}
