/*
 * One-sided communication, any number of ranks >= 2, on a window from
 * MPI_Win_create and again on one from MPI_Win_allocate:
 *   fence    MPI_Put to the right neighbour, MPI_Get from the right
 *            neighbour, MPI_Accumulate(MPI_SUM) to both neighbours, each in
 *            an MPI_Win_fence epoch, data checked;
 *   passive  counters at rank 0, incremented k times by every rank:
 *            get + put under an exclusive lock, MPI_Fetch_and_op (fetched
 *            values must all differ) and a MPI_Compare_and_swap retry loop
 *            under exclusive locks, or shared ones with the argument
 *            "shared" (see atomics_lock); each final value must be N*k.
 * argv[1] (optional): k, increments per rank and counter (default 20).
 * Output (rank 0): "OK rma <test> (<window kind>)" per test, "OK onesided".
 */
#include "mpi_check.h"

#define M 1024 /* ints per region */
enum { PUT = 0, GET = 1, ACC = 2, REGIONS = 3 };

static int rank, size, left, right, k_incr;

static int val(int owner, int region, int i) { return owner * 100003 + region * 10007 + i; }

static void test_fence(MPI_Win win, int *base, const char *kind)
{
    int *src = xmalloc(sizeof(int) * M), *dst = xmalloc(sizeof(int) * M);

    /* Put: my values into the PUT region of my right neighbour. */
    for (int i = 0; i < M; ++i) {
        base[PUT * M + i] = -1;
        base[GET * M + i] = val(rank, GET, i);
        base[ACC * M + i] = i;
        src[i] = val(rank, PUT, i);
        dst[i] = -1;
    }
    MPI_Win_fence(0, win);
    MPI_Put(src, M, MPI_INT, right, PUT * M, M, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < M; ++i)
        CHECK(base[PUT * M + i] == val(left, PUT, i), "put",
              "%s window [%d]: expected %d, got %d", kind, i, val(left, PUT, i),
              base[PUT * M + i]);
    report_ok(MPI_COMM_WORLD, "rma fence put (%s)", kind);

    /* Get: the GET region of my right neighbour. */
    MPI_Get(dst, M, MPI_INT, right, GET * M, M, MPI_INT, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < M; ++i)
        CHECK(dst[i] == val(right, GET, i), "get", "%s window [%d]: expected %d, got %d",
              kind, i, val(right, GET, i), dst[i]);
    report_ok(MPI_COMM_WORLD, "rma fence get (%s)", kind);

    /* Accumulate: rank r adds r + 1 to every element of both neighbours'
     * ACC regions (the same one twice with 2 ranks). */
    for (int i = 0; i < M; ++i)
        src[i] = rank + 1;
    MPI_Accumulate(src, M, MPI_INT, left, ACC * M, M, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(src, M, MPI_INT, right, ACC * M, M, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    int add = (left + 1) + (right + 1);
    for (int i = 0; i < M; ++i)
        CHECK(base[ACC * M + i] == i + add, "accumulate",
              "%s window [%d]: expected %d, got %d", kind, i, i + add, base[ACC * M + i]);
    MPI_Win_fence(0, win);
    free(src);
    free(dst);
    report_ok(MPI_COMM_WORLD, "rma fence accumulate (%s)", kind);
}

/* The lock taken around the atomics. Shared by default would be the natural
 * choice, but Open MPI 4.1's osc/portals4 takes a shared lock with a
 * PtlFetchAtomic whose result it reads before the operation completes (and
 * releases it with one whose reply lands in a stack frame already gone), so
 * under it MPI_LOCK_SHARED fails at random with MPI_ERR_RMA_SYNC, on BXI as
 * here; exclusive locks use a completed compare-and-swap. The argument
 * "shared" asks for shared locks (with another osc component). */
static int atomics_lock = MPI_LOCK_EXCLUSIVE;

/* Counters (ints: 64-bit MPI_Compare_and_swap crashes stock Open MPI 4.1 over
 * btl/vader, open-mpi/ompi#7967) at displacements 0, 1, 2 of rank 0's window. */
static void test_passive(MPI_Win win, int *counters, const char *kind)
{
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        counters[0] = counters[1] = counters[2] = 0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Read-modify-write made atomic by the exclusive lock. */
    for (int i = 0; i < k_incr; ++i) {
        int v = -1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        ++v;
        MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
    }

    /* Fetch-and-add under a shared lock; the fetched values are gathered. */
    int *fetched = xmalloc(sizeof(int) * k_incr);
    const int one = 1;
    for (int i = 0; i < k_incr; ++i) {
        MPI_Win_lock(atomics_lock, 0, 0, win);
        MPI_Fetch_and_op(&one, &fetched[i], MPI_INT, 0, 1, MPI_SUM, win);
        MPI_Win_unlock(0, win);
    }

    /* Compare-and-swap: read, try cur -> cur + 1, retry on contention. */
    long retries = 0;
    MPI_Win_lock(atomics_lock, 0, 0, win);
    for (int i = 0; i < k_incr;) {
        int cur, next, old;
        MPI_Fetch_and_op(NULL, &cur, MPI_INT, 0, 2, MPI_NO_OP, win);
        MPI_Win_flush(0, win);
        next = cur + 1;
        MPI_Compare_and_swap(&next, &cur, &old, MPI_INT, 0, 2, win);
        MPI_Win_flush(0, win);
        if (old == cur)
            ++i;
        else
            ++retries;
        CHECK(retries < 1000000, "compare_and_swap", "%s window: no progress", kind);
    }
    MPI_Win_unlock(0, win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Every rank reads the final values. */
    int final[3] = {-1, -1, -1};
    MPI_Win_lock(atomics_lock, 0, 0, win);
    MPI_Get(final, 3, MPI_INT, 0, 0, 3, MPI_INT, win);
    MPI_Win_unlock(0, win);
    const int want = size * k_incr;
    CHECK(final[0] == want, "exclusive lock get/put", "%s window: counter expected %d, got %d",
          kind, want, final[0]);
    CHECK(final[1] == want, "fetch_and_op", "%s window: counter expected %d, got %d",
          kind, want, final[1]);
    CHECK(final[2] == want, "compare_and_swap", "%s window: counter expected %d, got %d",
          kind, want, final[2]);

    /* The fetched values are exactly 0 .. N*k-1, each once. */
    int *all = rank == 0 ? xmalloc(sizeof(int) * want) : NULL;
    MPI_Gather(fetched, k_incr, MPI_INT, all, k_incr, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        char *seen = xmalloc((size_t)want);
        memset(seen, 0, (size_t)want);
        for (int i = 0; i < want; ++i) {
            CHECK(all[i] >= 0 && all[i] < want && !seen[all[i]], "fetch_and_op",
                  "%s window: fetched value %d out of range or seen twice (rank %d)",
                  kind, all[i], i / k_incr);
            seen[all[i]] = 1;
        }
        free(seen);
        free(all);
    }
    free(fetched);
    report_ok(MPI_COMM_WORLD, "rma passive exclusive/fetch_and_op/compare_and_swap "
              "counters = %d (%s)", want, kind);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "onesided", "needs at least 2 ranks, got %d", size);
    k_incr = (int)arg_long(argc, argv, 1, 20);
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "shared") == 0)
            atomics_lock = MPI_LOCK_SHARED;
    CHECK(k_incr >= 1, "onesided", "bad increment count %d", k_incr);
    left = (rank + size - 1) % size;
    right = (rank + 1) % size;

    /* MPI_Win_create over malloc'ed memory. */
    int *mem = xmalloc(sizeof(int) * REGIONS * M);
    MPI_Win win;
    MPI_Win_create(mem, sizeof(int) * REGIONS * M, sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    test_fence(win, mem, "created");
    MPI_Win_free(&win);
    free(mem);

    int *cnt = xmalloc(3 * sizeof(int));
    MPI_Win_create(cnt, rank == 0 ? 3 * sizeof(int) : 0, sizeof(int),
                   MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    test_passive(win, cnt, "created");
    MPI_Win_free(&win);
    free(cnt);

    /* The same on MPI_Win_allocate'd memory. */
    void *base;
    MPI_Win_allocate(sizeof(int) * REGIONS * M, sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    test_fence(win, base, "allocated");
    MPI_Win_free(&win);
    MPI_Win_allocate(rank == 0 ? 3 * sizeof(int) : 0, sizeof(int),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    test_passive(win, base, "allocated");
    MPI_Win_free(&win);

    report_ok(MPI_COMM_WORLD, "onesided %d ranks", size);
    MPI_Finalize();
    return 0;
}
