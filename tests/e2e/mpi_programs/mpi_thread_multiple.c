/*
 * MPI_THREAD_MULTIPLE: two threads of rank 0 exchange with two threads of
 * rank 1 at the same time, each pair on its own tag (a ping-pong of checked
 * messages of 0 to 255 bytes). Each thread calls the emulator on its own lane:
 * neither thread's blocking call holds the other's.
 * argv[1] (optional): iterations per thread (default 100).
 * Output: per rank "rank R provided NAME"; rank 0: "OK thread_multiple 2 threads".
 */
#include "mpi_check.h"
#include <pthread.h>

#define THREADS 2

static int rank, iters;

struct pair {
    pthread_t thread;
    int tag;
    int failed;
};

static void *exchange(void *raw)
{
    struct pair *p = raw;
    const int peer = 1 - rank;
    unsigned char out[256], in[256];
    for (int i = 0; i < iters; ++i) {
        size_t n = (size_t)((i * 7 + p->tag) % 256);
        memset(in, PAT_POISON, sizeof in);
        pat_fill(out, n, rank * THREADS + p->tag, i);
        if (rank == 0) {
            MPI_Send(out, (int)n, MPI_BYTE, peer, p->tag, MPI_COMM_WORLD);
            MPI_Recv(in, sizeof in, MPI_BYTE, peer, p->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(in, sizeof in, MPI_BYTE, peer, p->tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, (int)n, MPI_BYTE, peer, p->tag, MPI_COMM_WORLD);
        }
        PAT_CHECK("thread_multiple exchange", in, n, peer * THREADS + p->tag, i);
        POISON_CHECK("thread_multiple exchange", in + n, sizeof in - n);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iters = (int)arg_long(argc, argv, 1, 100);
    CHECK(size == 2, "thread_multiple", "needs 2 ranks, got %d", size);
    CHECK(provided == MPI_THREAD_MULTIPLE, "thread_multiple", "provided level %d, not MPI_THREAD_MULTIPLE", provided);
    printf("rank %d provided MPI_THREAD_MULTIPLE\n", rank);
    fflush(stdout);
    struct pair pairs[THREADS];
    for (int t = 0; t < THREADS; ++t) {
        pairs[t].tag = t;
        CHECK(pthread_create(&pairs[t].thread, NULL, exchange, &pairs[t]) == 0, "pthread_create",
              "cannot start thread %d", t);
    }
    for (int t = 0; t < THREADS; ++t)
        CHECK(pthread_join(pairs[t].thread, NULL) == 0, "pthread_join", "cannot join thread %d", t);
    report_ok(MPI_COMM_WORLD, "thread_multiple %d threads", THREADS);
    MPI_Finalize();
    return 0;
}
