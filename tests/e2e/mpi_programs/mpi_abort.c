/*
 * MPI_Abort on purpose: after a barrier, one rank prints
 * "aborting rank R with code 7" and calls MPI_Abort(MPI_COMM_WORLD, 7);
 * every other rank blocks in a receive that is never matched. The job
 * must end with exit status 7 and no process left.
 * argv[1] (optional): the aborting rank (default: the last one).
 */
#include "mpi_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long victim = arg_long(argc, argv, 1, size - 1);
    CHECK(victim >= 0 && victim < size, "abort", "aborting rank %ld not in [0, %d)",
          victim, size);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
        printf("aborting rank %d with code 7\n", rank);
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 7);
    } else {
        int never;
        MPI_Recv(&never, 1, MPI_INT, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
        fprintf(stderr, "FAIL rank %d: abort: the never-matched receive completed\n",
                rank);
    }
    MPI_Finalize();
    return 1; /* not reached */
}
