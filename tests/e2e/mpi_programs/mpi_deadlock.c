/*
 * A deadlock above Portals: every rank waits in a blocking MPI call for a
 * message no rank sends. Open MPI's progress loop polls Portals without end;
 * the emulator must say so within seconds, naming each rank's MPI call.
 * argv[1]: "recv" (default: every rank in MPI_Recv from its neighbour) or
 * "mixed" (rank 0 in MPI_Recv, the others in MPI_Barrier).
 */
#include "mpi_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, value = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const int mixed = argc > 1 && strcmp(argv[1], "mixed") == 0;
    if (mixed && rank != 0)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        MPI_Recv(&value, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("FAIL rank %d: left a call that had nothing to wait for\n", rank);
    MPI_Finalize();
    return 1;
}
