/*
 * Dynamic processes, which the emulator does not support: MPI_Comm_spawn
 * with errors returned (MPI_ERRORS_RETURN). Open MPI over the emulator's
 * PMI-1 fails it at the root, which returns an error, while the other ranks
 * wait for the root's word: the run ends as a deadlock that says why. On one
 * rank, the call returns an error and the program prints "OK spawn refused".
 */
#include "mpi_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    char *child_argv[] = {NULL};
    MPI_Comm children = MPI_COMM_NULL;
    int codes[1] = {0};
    const int spawned = MPI_Comm_spawn(argv[0], child_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children, codes);
    if (spawned == MPI_SUCCESS) {
        fprintf(stderr, "FAIL rank %d: MPI_Comm_spawn succeeded (%s:%d)\n", rank, __FILE__, __LINE__);
        MPI_Abort(MPI_COMM_WORLD, MPI_CHECK_ABORT_CODE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("OK spawn refused\n");

    MPI_Finalize();
    return 0;
}
