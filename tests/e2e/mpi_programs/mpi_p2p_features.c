/*
 * Point-to-point features, any number of ranks >= 2:
 *   wildcards  MPI_ANY_SOURCE + MPI_ANY_TAG receives at rank 0 (status
 *              source, tag and MPI_Get_count checked),
 *   probe      MPI_Probe and MPI_Iprobe, then a receive of the probed size,
 *   mprobe     MPI_Mprobe / MPI_Improbe with MPI_Mrecv,
 *   sendrecv   MPI_Sendrecv around a ring,
 *   issend     MPI_Issend not complete before the receive is posted, then
 *              an MPI_Test loop,
 *   ordering   many messages with one tag (mixed sizes) arrive in order,
 *   cancel     MPI_Cancel of a receive that never matches.
 * No arguments. Output (rank 0): "OK p2p <test>" per test, "OK p2p_features".
 */
#include "mpi_check.h"

static int rank, size, left, right;

/* Message sizes that depend on the sender, to check MPI_Get_count. */
static int len_of(int sender, int salt) { return 100 * sender + 37 * salt + 1; }

static void test_wildcards(void)
{
    const char *test = "any_source/any_tag";
    if (rank != 0) {
        int n = len_of(rank, 1);
        unsigned char *buf = xmalloc((size_t)n);
        pat_fill(buf, (size_t)n, rank, 1);
        MPI_Send(buf, n, MPI_BYTE, 0, 100 + rank, MPI_COMM_WORLD);
        free(buf);
    } else {
        int max = len_of(size, 1);
        unsigned char *buf = xmalloc((size_t)max);
        char *seen = xmalloc((size_t)size);
        memset(seen, 0, (size_t)size);
        for (int i = 1; i < size; ++i) {
            MPI_Status st;
            int count;
            MPI_Recv(buf, max, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                     MPI_COMM_WORLD, &st);
            int src = st.MPI_SOURCE;
            CHECK(src > 0 && src < size && !seen[src], test,
                  "unexpected or repeated source %d", src);
            seen[src] = 1;
            CHECK_EQ(test, 100 + src, st.MPI_TAG);
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK_EQ(test, len_of(src, 1), count);
            PAT_CHECK(test, buf, (size_t)count, src, 1);
        }
        free(seen);
        free(buf);
    }
    report_ok(MPI_COMM_WORLD, "p2p %s", test);
}

/* Every rank sends one message to its right neighbour with `tag`; the
 * receiver learns its size by probing (blocking or polling). */
static void test_probe(int blocking, int tag)
{
    const char *test = blocking ? "probe" : "iprobe";
    int n = len_of(rank, tag);
    unsigned char *sbuf = xmalloc((size_t)n);
    pat_fill(sbuf, (size_t)n, rank, tag);
    MPI_Request req;
    MPI_Isend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req);

    MPI_Status st;
    if (blocking) {
        MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
    } else {
        int flag = 0;
        while (!flag)
            MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
    }
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ(test, left, st.MPI_SOURCE);
    CHECK_EQ(test, tag, st.MPI_TAG);
    CHECK_EQ(test, len_of(left, tag), count);
    unsigned char *rbuf = xmalloc((size_t)count);
    MPI_Recv(rbuf, count, MPI_BYTE, st.MPI_SOURCE, tag, MPI_COMM_WORLD, &st);
    PAT_CHECK(test, rbuf, (size_t)count, left, tag);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(rbuf);
    free(sbuf);

    /* Nothing is ever sent with tag 999. */
    int flag = 1;
    MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK_EQ(test, 0, flag);
    report_ok(MPI_COMM_WORLD, "p2p %s", test);
}

static void test_mprobe(int blocking, int tag)
{
    const char *test = blocking ? "mprobe/mrecv" : "improbe/mrecv";
    int n = len_of(rank, tag);
    unsigned char *sbuf = xmalloc((size_t)n);
    pat_fill(sbuf, (size_t)n, rank, tag);
    MPI_Request req;
    MPI_Isend(sbuf, n, MPI_BYTE, right, tag, MPI_COMM_WORLD, &req);

    MPI_Message msg;
    MPI_Status st;
    if (blocking) {
        MPI_Mprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &msg, &st);
    } else {
        int flag = 0;
        while (!flag)
            MPI_Improbe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &msg, &st);
    }
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ(test, left, st.MPI_SOURCE);
    CHECK_EQ(test, len_of(left, tag), count);
    unsigned char *rbuf = xmalloc((size_t)count);
    MPI_Mrecv(rbuf, count, MPI_BYTE, &msg, &st);
    CHECK(msg == MPI_MESSAGE_NULL, test, "message handle not reset by MPI_Mrecv");
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ(test, len_of(left, tag), count);
    PAT_CHECK(test, rbuf, (size_t)count, left, tag);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    free(rbuf);
    free(sbuf);
    report_ok(MPI_COMM_WORLD, "p2p %s", test);
}

static void test_sendrecv(void)
{
    const char *test = "sendrecv ring";
    enum { N = 70000 }; /* above the usual eager limits */
    unsigned char *sbuf = xmalloc(N), *rbuf = xmalloc(N);
    for (int round = 0; round < 3; ++round) {
        pat_fill(sbuf, N, rank, 20 + round);
        memset(rbuf, PAT_POISON, N);
        MPI_Status st;
        MPI_Sendrecv(sbuf, N, MPI_BYTE, right, 20, rbuf, N, MPI_BYTE, left, 20,
                     MPI_COMM_WORLD, &st);
        CHECK_EQ(test, left, st.MPI_SOURCE);
        PAT_CHECK(test, rbuf, N, left, 20 + round);
    }
    free(sbuf);
    free(rbuf);
    report_ok(MPI_COMM_WORLD, "p2p %s", test);
}

static void test_issend(void)
{
    const char *test = "issend/test";
    int val = 1000 + rank, got = -1, flag = 0;
    MPI_Request sreq, rreq;
    /* Rank 1 posts its receive only after the barrier, which rank 0 enters
     * after testing: rank 0's synchronous send cannot complete before. */
    if (rank == 0) {
        MPI_Issend(&val, 1, MPI_INT, 1, 30, MPI_COMM_WORLD, &sreq);
        for (int i = 0; i < 100; ++i) {
            MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
            CHECK(!flag, test, "MPI_Issend completed before the receive was posted");
        }
        MPI_Barrier(MPI_COMM_WORLD);
        while (!flag)
            MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1) {
            MPI_Recv(&got, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_EQ(test, 1000, got);
        }
    }
    /* Then around the ring, both sides polling. */
    MPI_Irecv(&got, 1, MPI_INT, left, 31, MPI_COMM_WORLD, &rreq);
    MPI_Issend(&val, 1, MPI_INT, right, 31, MPI_COMM_WORLD, &sreq);
    flag = 0;
    long polls = 0;
    while (!flag) {
        MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
        ++polls;
    }
    MPI_Wait(&rreq, MPI_STATUS_IGNORE);
    CHECK_EQ(test, 1000 + left, got);
    CHECK(polls >= 1, test, "no MPI_Test call");
    report_ok(MPI_COMM_WORLD, "p2p %s", test);
}

/* Messages i = 0..M-1 from left to right with one tag; some long. */
#define M 120
static int msg_len(int i) { return i % 7 == 3 ? 70001 : (i % 5) * 8 + 4; }

static void test_ordering(void)
{
    const char *test = "ordering";
    unsigned char *sb[M], *rb[M];
    MPI_Request sreq[M], rreq[M];
    for (int i = 0; i < M; ++i) {
        sb[i] = xmalloc((size_t)msg_len(i));
        rb[i] = xmalloc((size_t)msg_len(i) + 8);
        pat_fill(sb[i], (size_t)msg_len(i), rank, 100 + i);
        memset(rb[i], PAT_POISON, (size_t)msg_len(i) + 8);
    }
    /* The first third of the receives is posted before any send; the rest
     * arrive unexpected. Every receive accepts a longer message, so an
     * overtaking message would show up as a wrong count or wrong data. */
    for (int i = 0; i < M / 3; ++i)
        MPI_Irecv(rb[i], msg_len(i) + 8, MPI_BYTE, left, 40, MPI_COMM_WORLD, &rreq[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < M; ++i)
        MPI_Isend(sb[i], msg_len(i), MPI_BYTE, right, 40, MPI_COMM_WORLD, &sreq[i]);
    for (int i = M / 3; i < M; ++i)
        MPI_Irecv(rb[i], msg_len(i) + 8, MPI_BYTE, left, 40, MPI_COMM_WORLD, &rreq[i]);
    MPI_Status st[M];
    MPI_Waitall(M, rreq, st);
    for (int i = 0; i < M; ++i) {
        int count;
        MPI_Get_count(&st[i], MPI_BYTE, &count);
        CHECK(count == msg_len(i), test, "message %d: expected %d bytes, got %d",
              i, msg_len(i), count);
        PAT_CHECK(test, rb[i], (size_t)count, left, 100 + i);
    }
    MPI_Waitall(M, sreq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < M; ++i) {
        free(sb[i]);
        free(rb[i]);
    }
    report_ok(MPI_COMM_WORLD, "p2p %s %d messages", test, M);
}

static void test_cancel(void)
{
    const char *test = "cancel";
    int buf = -1, cancelled = 0;
    MPI_Request req;
    MPI_Status st;
    MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, test, "receive not cancelled");
    CHECK_EQ(test, -1, buf);
    CHECK(req == MPI_REQUEST_NULL, test, "request not freed by MPI_Wait");
    report_ok(MPI_COMM_WORLD, "p2p %s", test);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "p2p_features", "needs at least 2 ranks, got %d", size);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    test_wildcards();
    test_probe(1, 7);
    test_probe(0, 8);
    test_mprobe(1, 9);
    test_mprobe(0, 10);
    test_sendrecv();
    test_issend();
    test_ordering();
    test_cancel();

    report_ok(MPI_COMM_WORLD, "p2p_features %d ranks", size);
    MPI_Finalize();
    return 0;
}
