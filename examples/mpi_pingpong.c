/* MPI ping-pong between ranks 0 and 1, the MPI counterpart of pingpong.c:
 * MPI_Send / MPI_Recv of 8 B to 4 MiB, data checked, half round trip from
 * MPI_Wtime (simulated time under s4bxi-run). Same columns as pingpong.c, so
 * that the two tables can be read side by side (tools/quickstart.sh).
 * Build with Debian's OpenMPI: mpicc -O2 -o mpi_pingpong mpi_pingpong.c
 * Run: s4bxi-run -n 2 ./mpi_pingpong [max size] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long iterations_for(size_t size)
{
    return size <= 65536 ? 100 : size <= (1u << 20) ? 30 : 10;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, ranks;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const size_t max_size = argc > 1 ? strtoull(argv[1], NULL, 10) : 4194304;
    if (ranks != 2) {
        if (rank == 0)
            fprintf(stderr, "mpi_pingpong: run it on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    unsigned char *buffer = malloc(max_size);
    const int peer = 1 - rank;
    int errors = 0;
    if (rank == 0)
        printf("# MPI ping-pong between ranks 0 and 1: MPI_Send / MPI_Recv\n"
               "# %10s %11s %15s %16s\n", "size(B)", "iterations", "latency(us)", "bandwidth(MB/s)");
    for (size_t size = 8; size <= max_size; size *= 2) {
        const long iterations = iterations_for(size);
        double start = 0;
        for (long it = -1; it < iterations; ++it) { /* one warm-up round trip */
            if (it == 0)
                start = MPI_Wtime();
            const unsigned char mark = (unsigned char)(it * 31 + (long)size);
            if (rank == 0) {
                buffer[0] = buffer[size - 1] = mark;
                MPI_Send(buffer, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buffer, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buffer, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buffer, (int)size, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
            }
            if (buffer[0] != mark || buffer[size - 1] != mark)
                errors++;
        }
        if (rank == 0) {
            const double half_us = (MPI_Wtime() - start) / (double)iterations / 2.0 * 1e6;
            printf("  %10zu %11ld %15.3f %16.2f\n", size, iterations, half_us, (double)size / half_us);
        }
    }
    if (errors > 0)
        fprintf(stderr, "mpi_pingpong: rank %d saw %d wrong messages\n", rank, errors);
    free(buffer);
    MPI_Finalize();
    return errors > 0;
}
