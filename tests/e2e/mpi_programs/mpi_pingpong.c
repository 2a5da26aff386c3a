/*
 * Point-to-point between ranks 0 and 1 (other ranks wait in a barrier).
 * For each size (0 B, 1 B, powers of 2 up to 4 MiB, 3, 1000, 4097, 65537),
 * in both directions:
 *   expected   receive (receiver posts, pair barrier, sender sends),
 *   unexpected receive (sender sends, pair barrier, receiver posts),
 * each with a blocking side (MPI_Send / MPI_Recv) and fully nonblocking
 * (both ranks MPI_Isend + MPI_Irecv + MPI_Waitall); data, MPI_Get_count and
 * a guard zone after the message are checked every time. Then a timed
 * blocking ping-pong loop.
 * argv[1] (optional): iterations of the timed loop (default 10).
 * argv[2] (optional): largest size in bytes (default 4 MiB).
 * Output (rank 0): per size "OK pingpong <bytes> B" then
 * "size <bytes> <half round-trip seconds>", and at the end "OK pingpong".
 */
#include "mpi_check.h"

#define GUARD 64
#define MAX_SIZES 40

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

static MPI_Comm pair; /* ranks 0 and 1 */
static int me, peer;
static unsigned char *sbuf, *rbuf;

/* Posts a receive of n + GUARD bytes into the poisoned rbuf. */
static void post_recv(size_t n, MPI_Request *req)
{
    memset(rbuf, PAT_POISON, n + GUARD);
    MPI_Irecv(rbuf, (int)(n + GUARD), MPI_BYTE, peer, 0, pair, req);
}

static void check_recv(const char *test, size_t n, int iter, MPI_Status *st)
{
    int count;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == (int)n && st->MPI_SOURCE == peer && st->MPI_TAG == 0, test,
          "size %zu: expected count %zu from %d tag 0, got count %d from %d tag %d",
          n, n, peer, count, st->MPI_SOURCE, st->MPI_TAG);
    PAT_CHECK(test, rbuf, n, peer, iter);
    POISON_CHECK(test, rbuf + n, GUARD);
}

/* One message from rank `from` to the other, receive posted first or not;
 * the blocking side is the one that acts after the barrier. */
static void one_way(size_t n, int from, int expected, int iter)
{
    const char *test = expected ? "expected blocking" : "unexpected blocking";
    MPI_Request req;
    MPI_Status st;
    if (me == from) {
        pat_fill(sbuf, n, me, iter);
        if (expected) {
            MPI_Barrier(pair);
            MPI_Send(sbuf, (int)n, MPI_BYTE, peer, 0, pair);
        } else {
            MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, 0, pair, &req);
            MPI_Barrier(pair);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        }
    } else if (expected) {
        post_recv(n, &req);
        MPI_Barrier(pair);
        MPI_Wait(&req, &st);
        check_recv(test, n, iter, &st);
    } else {
        MPI_Barrier(pair);
        memset(rbuf, PAT_POISON, n + GUARD);
        MPI_Recv(rbuf, (int)(n + GUARD), MPI_BYTE, peer, 0, pair, &st);
        check_recv(test, n, iter, &st);
    }
}

/* Both ranks send and receive at once, all nonblocking. */
static void exchange(size_t n, int expected, int iter)
{
    const char *test = expected ? "expected nonblocking" : "unexpected nonblocking";
    MPI_Request req[2];
    MPI_Status st[2];
    pat_fill(sbuf, n, me, iter);
    if (expected) {
        post_recv(n, &req[0]);
        MPI_Barrier(pair);
        MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, 0, pair, &req[1]);
    } else {
        MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, 0, pair, &req[1]);
        MPI_Barrier(pair);
        post_recv(n, &req[0]);
    }
    MPI_Waitall(2, req, st);
    check_recv(test, n, iter, &st[0]);
}

/* Blocking ping-pong, returns the mean half round-trip time. */
static double timed_loop(size_t n, int iters, int iter)
{
    pat_fill(sbuf, n, me, iter);
    memset(rbuf, PAT_POISON, n + GUARD);
    double t0 = 0;
    for (int i = -1; i < iters; ++i) { /* i = -1: warm-up, not timed */
        if (i == 0) {
            MPI_Barrier(pair);
            t0 = MPI_Wtime();
        }
        if (me == 0) {
            MPI_Send(sbuf, (int)n, MPI_BYTE, 1, 1, pair);
            MPI_Recv(rbuf, (int)n, MPI_BYTE, 1, 1, pair, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(rbuf, (int)n, MPI_BYTE, 0, 1, pair, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int)n, MPI_BYTE, 0, 1, pair);
        }
    }
    double t = MPI_Wtime() - t0;
    PAT_CHECK("timed ping-pong", rbuf, n, peer, iter);
    POISON_CHECK("timed ping-pong", rbuf + n, GUARD);
    CHECK(iters == 0 || t > 0, "timed ping-pong", "size %zu: elapsed %g s", n, t);
    return iters > 0 ? t / (2.0 * iters) : 0.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "pingpong", "needs at least 2 ranks, got %d", size);
    int iters = (int)arg_long(argc, argv, 1, 10);
    size_t max = (size_t)arg_long(argc, argv, 2, 4 << 20);
    CHECK(iters >= 0, "pingpong", "bad iteration count %d", iters);
    CHECK(max <= (1u << 30), "pingpong", "largest size %zu above 1 GiB", max);

    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (rank < 2) {
        size_t sizes[MAX_SIZES];
        int ns = 0;
        sizes[ns++] = 0;
        for (size_t s = 1; s <= max; s *= 2)
            sizes[ns++] = s;
        const size_t odd[] = {3, 1000, 4097, 65537};
        for (int i = 0; i < 4; ++i)
            if (odd[i] <= max)
                sizes[ns++] = odd[i];
        qsort(sizes, (size_t)ns, sizeof sizes[0], cmp_size);

        me = rank;
        peer = 1 - rank;
        sbuf = xmalloc(max);
        rbuf = xmalloc(max + GUARD);
        for (int k = 0; k < ns; ++k) {
            size_t n = sizes[k];
            int iter = k * 8;
            for (int expected = 0; expected < 2; ++expected) {
                for (int from = 0; from < 2; ++from)
                    one_way(n, from, expected, iter++);
                exchange(n, expected, iter++);
            }
            report_ok(pair, "pingpong %zu B", n);
            double half = timed_loop(n, iters, iter);
            if (rank == 0) {
                printf("size %zu %.9f\n", n, half);
                fflush(stdout);
            }
        }
        free(sbuf);
        free(rbuf);
        MPI_Comm_free(&pair);
    }
    report_ok(MPI_COMM_WORLD, "pingpong");
    MPI_Finalize();
    return 0;
}
