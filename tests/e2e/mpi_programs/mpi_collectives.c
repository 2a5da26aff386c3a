/*
 * Collectives on MPI_COMM_WORLD (any number of ranks, 1 included), every
 * result checked against its closed form:
 *   bcast (roots 0, N/2, N-1; 1 B to 1 MiB), reduce (roots 0 and N-1) and
 *   allreduce (MPI_SUM on int and double, MPI_MAX, MPI_MINLOC), alltoall,
 *   alltoallv, allgather, allgatherv, gather, scatter, scan,
 *   reduce_scatter_block, barrier, and an allreduce on an even/odd split.
 * No arguments. Output (rank 0): "OK coll <test>" per test, then
 * "OK collectives N ranks".
 */
#include "mpi_check.h"
#include <unistd.h>

static int rank, size;

/* Value k of the block a rank sends to another: encodes both and k. */
static int enc(int from, int to, int k) { return (from * 1000 + to) * 10 + k; }

static void poison_ints(int *p, int n)
{
    for (int i = 0; i < n; ++i)
        p[i] = -1;
}

static void test_bcast(void)
{
    const size_t sizes[] = {1, 100, 4096, 65537, 1 << 20};
    const int roots[] = {0, size / 2, size - 1};
    const size_t guard = 64;
    unsigned char *buf = xmalloc((1 << 20) + guard);
    int iter = 0;
    for (int r = 0; r < 3; ++r) {
        for (int s = 0; s < 5; ++s, ++iter) {
            size_t n = sizes[s];
            int root = roots[r];
            memset(buf, PAT_POISON, n + guard);
            if (rank == root)
                pat_fill(buf, n, root, iter);
            MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
            PAT_CHECK("bcast", buf, n, root, iter);
            POISON_CHECK("bcast", buf + n, guard);
        }
    }
    free(buf);
    report_ok(MPI_COMM_WORLD, "coll bcast roots %d,%d,%d sizes 1 B to 1 MiB",
              roots[0], roots[1], roots[2]);
}

/* root < 0: allreduce, otherwise reduce to root. */
static void reduce_to(const void *in, void *out, int n, MPI_Datatype t,
                      MPI_Op op, int root)
{
    if (root < 0)
        MPI_Allreduce(in, out, n, t, op, MPI_COMM_WORLD);
    else
        MPI_Reduce(in, out, n, t, op, root, MPI_COMM_WORLD);
}

#define C 1000
struct dbl_int { double v; int loc; };

static void test_reductions(int root)
{
    const char *test = root < 0 ? "allreduce" : "reduce";
    static int ibuf[C], ires[C], imax[C], mres[C];
    static double dbuf[C], dres[C];
    static struct dbl_int lbuf[C], lres[C];
    for (int i = 0; i < C; ++i) {
        ibuf[i] = rank + i;
        dbuf[i] = 0.5 * (rank + 1) + i; /* halves: exact in any order */
        imax[i] = i % 3 == 0 ? i - rank : i + rank;
        lbuf[i].v = i % 4 == 0 ? 5.0 : (double)((rank + i) % size);
        lbuf[i].loc = rank;
        ires[i] = mres[i] = -1;
        dres[i] = -1;
        lres[i].v = -1;
        lres[i].loc = -1;
    }
    reduce_to(ibuf, ires, C, MPI_INT, MPI_SUM, root);
    reduce_to(dbuf, dres, C, MPI_DOUBLE, MPI_SUM, root);
    reduce_to(imax, mres, C, MPI_INT, MPI_MAX, root);
    reduce_to(lbuf, lres, C, MPI_DOUBLE_INT, MPI_MINLOC, root);
    if (root < 0 || rank == root) {
        for (int i = 0; i < C; ++i) {
            CHECK(ires[i] == size * (size - 1) / 2 + size * i, test,
                  "MPI_SUM int [%d]: expected %d, got %d", i,
                  size * (size - 1) / 2 + size * i, ires[i]);
            double dexp = 0.25 * size * (size + 1) + (double)size * i;
            CHECK(dres[i] == dexp, test, "MPI_SUM double [%d]: expected %.17g, got %.17g",
                  i, dexp, dres[i]);
            int mexp = i % 3 == 0 ? i : i + size - 1;
            CHECK(mres[i] == mexp, test, "MPI_MAX [%d]: expected %d, got %d", i,
                  mexp, mres[i]);
            double lv = i % 4 == 0 ? 5.0 : 0.0;
            int ll = i % 4 == 0 ? 0 : (size - i % size) % size;
            CHECK(lres[i].v == lv && lres[i].loc == ll, test,
                  "MPI_MINLOC [%d]: expected (%g, %d), got (%g, %d)", i, lv, ll,
                  lres[i].v, lres[i].loc);
        }
    }
    if (root < 0)
        report_ok(MPI_COMM_WORLD, "coll allreduce sum/max/minloc");
    else
        report_ok(MPI_COMM_WORLD, "coll reduce root %d sum/max/minloc", root);
}

static void test_alltoall(void)
{
    enum { B = 3 };
    int *s = xmalloc(sizeof(int) * B * size), *r = xmalloc(sizeof(int) * B * size);
    for (int j = 0; j < size; ++j)
        for (int k = 0; k < B; ++k)
            s[j * B + k] = enc(rank, j, k);
    poison_ints(r, B * size);
    MPI_Alltoall(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; ++j)
        for (int k = 0; k < B; ++k)
            CHECK(r[j * B + k] == enc(j, rank, k), "alltoall",
                  "from %d [%d]: expected %d, got %d", j, k, enc(j, rank, k),
                  r[j * B + k]);
    free(s);
    free(r);
    report_ok(MPI_COMM_WORLD, "coll alltoall");
}

/* Irregular counts, zeros included; the receive side leaves one poisoned
 * int between blocks to check the displacements. */
static int v_count(int from, int to) { return (from + 2 * to) % 4; }

static void test_alltoallv(void)
{
    int *sc = xmalloc(sizeof(int) * size), *sd = xmalloc(sizeof(int) * size);
    int *rc = xmalloc(sizeof(int) * size), *rd = xmalloc(sizeof(int) * size);
    int stot = 0, rtot = 0;
    for (int j = 0; j < size; ++j) {
        sc[j] = v_count(rank, j);
        sd[j] = stot;
        stot += sc[j];
        rc[j] = v_count(j, rank);
        rd[j] = rtot;
        rtot += rc[j] + 1;
    }
    int *s = xmalloc(sizeof(int) * (stot + 1)), *r = xmalloc(sizeof(int) * rtot);
    for (int j = 0; j < size; ++j)
        for (int k = 0; k < sc[j]; ++k)
            s[sd[j] + k] = enc(rank, j, k);
    poison_ints(r, rtot);
    MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; ++j) {
        for (int k = 0; k < rc[j]; ++k)
            CHECK(r[rd[j] + k] == enc(j, rank, k), "alltoallv",
                  "from %d [%d]: expected %d, got %d", j, k, enc(j, rank, k),
                  r[rd[j] + k]);
        CHECK(r[rd[j] + rc[j]] == -1, "alltoallv",
              "gap after block from %d: expected -1, got %d", j, r[rd[j] + rc[j]]);
    }
    free(s); free(r); free(sc); free(sd); free(rc); free(rd);
    report_ok(MPI_COMM_WORLD, "coll alltoallv");
}

static void test_gathers(void)
{
    enum { B = 2, G = 4 };
    int *r = xmalloc(sizeof(int) * (size * (G + 1) + 1));

    /* allgather: B ints per rank. */
    int s[G];
    for (int k = 0; k < B; ++k)
        s[k] = enc(rank, 0, k);
    poison_ints(r, B * size);
    MPI_Allgather(s, B, MPI_INT, r, B, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; ++j)
        for (int k = 0; k < B; ++k)
            CHECK(r[j * B + k] == enc(j, 0, k), "allgather",
                  "from %d [%d]: expected %d, got %d", j, k, enc(j, 0, k), r[j * B + k]);
    report_ok(MPI_COMM_WORLD, "coll allgather");

    /* allgatherv: rank j gives j % 3 + 1 ints, one poisoned int between. */
    int *rc = xmalloc(sizeof(int) * size), *rd = xmalloc(sizeof(int) * size);
    int tot = 0;
    for (int j = 0; j < size; ++j) {
        rc[j] = j % 3 + 1;
        rd[j] = tot;
        tot += rc[j] + 1;
    }
    for (int k = 0; k < rank % 3 + 1; ++k)
        s[k] = enc(rank, 1, k);
    poison_ints(r, tot);
    MPI_Allgatherv(s, rank % 3 + 1, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0; j < size; ++j) {
        for (int k = 0; k < rc[j]; ++k)
            CHECK(r[rd[j] + k] == enc(j, 1, k), "allgatherv",
                  "from %d [%d]: expected %d, got %d", j, k, enc(j, 1, k), r[rd[j] + k]);
        CHECK(r[rd[j] + rc[j]] == -1, "allgatherv",
              "gap after block from %d: expected -1, got %d", j, r[rd[j] + rc[j]]);
    }
    free(rc);
    free(rd);
    report_ok(MPI_COMM_WORLD, "coll allgatherv");

    /* gather to the last rank: G ints per rank. */
    int root = size - 1;
    for (int k = 0; k < G; ++k)
        s[k] = enc(rank, 2, k);
    poison_ints(r, G * size);
    MPI_Gather(s, G, MPI_INT, r, G, MPI_INT, root, MPI_COMM_WORLD);
    if (rank == root)
        for (int j = 0; j < size; ++j)
            for (int k = 0; k < G; ++k)
                CHECK(r[j * G + k] == enc(j, 2, k), "gather",
                      "from %d [%d]: expected %d, got %d", j, k, enc(j, 2, k),
                      r[j * G + k]);
    report_ok(MPI_COMM_WORLD, "coll gather root %d", root);

    /* scatter from rank 0: G ints per rank. */
    if (rank == 0)
        for (int j = 0; j < size; ++j)
            for (int k = 0; k < G; ++k)
                r[j * G + k] = enc(j, 3, k);
    poison_ints(s, G);
    MPI_Scatter(r, G, MPI_INT, s, G, MPI_INT, 0, MPI_COMM_WORLD);
    for (int k = 0; k < G; ++k)
        CHECK(s[k] == enc(rank, 3, k), "scatter", "[%d]: expected %d, got %d", k,
              enc(rank, 3, k), s[k]);
    free(r);
    report_ok(MPI_COMM_WORLD, "coll scatter root 0");
}

static void test_scan_reduce_scatter(void)
{
    int in = rank + 1, out = -1;
    MPI_Scan(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ("scan", (rank + 1) * (rank + 2) / 2, out);
    report_ok(MPI_COMM_WORLD, "coll scan");

    enum { B = 2 };
    int *s = xmalloc(sizeof(int) * B * size), r[B] = {-1, -1};
    for (int j = 0; j < size; ++j)
        for (int k = 0; k < B; ++k)
            s[j * B + k] = rank + j + k;
    MPI_Reduce_scatter_block(s, r, B, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < B; ++k)
        CHECK_EQ("reduce_scatter_block", size * (size - 1) / 2 + size * (rank + k), r[k]);
    free(s);
    report_ok(MPI_COMM_WORLD, "coll reduce_scatter_block");
}

/* Every rank reads its clock, then tells rank 0, which sleeps 20 ms once it
 * heard from all and only then enters the barrier: nobody may leave the
 * barrier less than 20 ms after its own reading. */
static void test_barrier(void)
{
    for (int round = 0; round < 3; ++round) {
        double t0 = MPI_Wtime();
        if (rank != 0) {
            MPI_Send(NULL, 0, MPI_INT, 0, 50, MPI_COMM_WORLD);
        } else {
            for (int i = 1; i < size; ++i)
                MPI_Recv(NULL, 0, MPI_INT, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            usleep(20000);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        double waited = MPI_Wtime() - t0;
        CHECK(waited >= 0.02 - 1e-6, "barrier",
              "round %d: left the barrier %.6f s after the last sync, expected >= 0.02 s",
              round, waited);
    }
    report_ok(MPI_COMM_WORLD, "coll barrier");
}

static void test_split(void)
{
    MPI_Comm sub;
    int color = rank % 2, srank, ssize;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &sub);
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    CHECK_EQ("split", rank / 2, srank);
    CHECK_EQ("split", (size - color + 1) / 2, ssize);
    int sum = -1, expect = 0;
    for (int r = color; r < size; r += 2)
        expect += r;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, sub);
    CHECK_EQ("split allreduce", expect, sum);
    MPI_Comm_free(&sub);
    report_ok(MPI_COMM_WORLD, "coll split even/odd allreduce");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    test_bcast();
    test_reductions(0);
    test_reductions(size - 1);
    test_reductions(-1);
    test_alltoall();
    test_alltoallv();
    test_gathers();
    test_scan_reduce_scatter();
    test_barrier();
    test_split();

    report_ok(MPI_COMM_WORLD, "collectives %d ranks", size);
    MPI_Finalize();
    return 0;
}
