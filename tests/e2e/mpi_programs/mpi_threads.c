/*
 * Threads: MPI_Init_thread asking for MPI_THREAD_MULTIPLE (any provided
 * level is accepted and printed). A second thread, which makes no MPI call,
 * sleeps 10 x 1 ms with nanosleep and checks with CLOCK_MONOTONIC that each
 * sleep lasted at least 1 ms, while the main thread of ranks 0 and 1 does a
 * checked ping-pong (other ranks only run the sleeping thread).
 * argv[1] (optional): ping-pong iterations (default 200).
 * Output: per rank "rank R provided NAME (L)"; rank 0: "OK threads N ranks".
 */
#include "mpi_check.h"
#include <pthread.h>

#define SLEEPS 10

struct sleeper { double slept[SLEEPS]; };

static void *sleeper_main(void *arg)
{
    struct sleeper *s = arg;
    for (int i = 0; i < SLEEPS; ++i) {
        struct timespec req = {0, 1000000}, rem;
        double t0 = mono_now();
        while (nanosleep(&req, &rem) != 0)
            req = rem;
        s->slept[i] = mono_now() - t0;
    }
    return NULL;
}

static const char *level_name(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "unknown";
    }
}

int main(int argc, char **argv)
{
    int provided = -1, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = (int)arg_long(argc, argv, 1, 200);
    CHECK(iters >= 0, "threads", "bad iteration count %d", iters);

    int queried = -1, is_main = 0;
    MPI_Query_thread(&queried);
    MPI_Is_thread_main(&is_main);
    CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
          "init_thread", "provided level %d is not a thread level", provided);
    CHECK_EQ("query_thread", provided, queried);
    CHECK(is_main, "is_thread_main", "MPI_Is_thread_main is false in main");
    printf("rank %d provided %s (%d)\n", rank, level_name(provided), provided);
    fflush(stdout);

    struct sleeper s;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, sleeper_main, &s) == 0, "pthread_create",
          "cannot start the sleeping thread");

    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        unsigned char out[256], in[256];
        for (int i = 0; i < iters; ++i) {
            size_t n = (size_t)(i % 256);
            memset(in, PAT_POISON, sizeof in);
            pat_fill(out, n, rank, i);
            if (rank == 0) {
                MPI_Send(out, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
                MPI_Recv(in, sizeof in, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(in, sizeof in, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(out, (int)n, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
            }
            PAT_CHECK("threads ping-pong", in, n, peer, i);
            POISON_CHECK("threads ping-pong", in + n, sizeof in - n);
        }
    }

    CHECK(pthread_join(th, NULL) == 0, "pthread_join", "cannot join the sleeping thread");
    for (int i = 0; i < SLEEPS; ++i)
        CHECK(s.slept[i] >= 0.001 - 1e-6, "threads nanosleep",
              "sleep %d lasted %.9f s, expected >= 0.001", i, s.slept[i]);
    report_ok(MPI_COMM_WORLD, "threads ping-pong with a sleeping thread");
    report_ok(MPI_COMM_WORLD, "threads %d ranks", size);
    MPI_Finalize();
    return 0;
}
