/*
 * Hello world: every rank prints "rank R of N on NAME".
 * argv[1] (optional): the expected number of ranks, checked against
 * MPI_Comm_size.
 * Output: "rank R of N on NAME" per rank, then "OK hello N ranks".
 */
#include "mpi_check.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);

    CHECK(rank >= 0 && rank < size, "hello", "rank %d out of [0, %d)", rank, size);
    CHECK(len > 0 && (size_t)len == strlen(name), "hello",
          "processor name length %d, strlen %zu", len, strlen(name));
    long expected = arg_long(argc, argv, 1, -1);
    if (expected >= 0)
        CHECK_EQ("hello size", expected, size);

    printf("rank %d of %d on %s\n", rank, size, name);
    fflush(stdout);

    /* Every rank must be there: the sum of ranks is known. */
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ("hello allreduce", size * (size - 1) / 2, sum);

    report_ok(MPI_COMM_WORLD, "hello %d ranks", size);
    MPI_Finalize();
    return 0;
}
