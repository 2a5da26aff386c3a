/*
 * MPI_Wtime, every rank:
 *   t0; ~20 ms of CPU (measured with getrusage); t1; usleep(2000); t2;
 *   checks t1 > t0, t2 - t1 >= 2 ms, 0 < MPI_Wtick() <= 1 ms, and that
 *   MPI_Wtime differences agree with CLOCK_MONOTONIC differences (each
 *   MPI_Wtime reading is bracketed by two clock_gettime readings, so only
 *   lower/upper bounds from the same instants are used: no timing
 *   assumption, only 1 us + 1e-6 relative slack for rounding).
 * Then a ping-pong of 8 B between ranks 0 and 1 (others wait in a barrier).
 * argv[1] (optional): ping-pong iterations (default 1000).
 * Output: per rank "wtime <t1-t0> <t2-t1> <wtick> rank R" and "busy loop cpu
 * <thread CPU seconds of the ~20 ms loop> rank R"; rank 0:
 * "pingpong8 <mean half round-trip in us> us", "OK wtime N ranks".
 */
#include "mpi_check.h"
#include <unistd.h>

/* One MPI_Wtime reading bracketed by CLOCK_MONOTONIC readings. */
struct stamp { double mono_before, wtime, mono_after; };

static struct stamp stamp_now(void)
{
    struct stamp s;
    s.mono_before = mono_now();
    s.wtime = MPI_Wtime();
    s.mono_after = mono_now();
    return s;
}

/* The MPI_Wtime interval must lie within the bracketing monotonic bounds. */
static void check_agree(const char *what, struct stamp a, struct stamp b)
{
    double w = b.wtime - a.wtime;
    double lo = b.mono_before - a.mono_after, hi = b.mono_after - a.mono_before;
    double slack = 1e-6 + 1e-6 * (hi > 0 ? hi : 0);
    CHECK(w >= lo - slack && w <= hi + slack, "wtime vs CLOCK_MONOTONIC",
          "%s: MPI_Wtime advanced %.9f s, CLOCK_MONOTONIC between %.9f and %.9f s",
          what, w, lo, hi);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iters = (int)arg_long(argc, argv, 1, 1000);
    CHECK(iters >= 1, "wtime", "bad iteration count %d", iters);

    struct stamp s0 = stamp_now();
    volatile unsigned long sink = 0;
    double c0 = thread_cpu_now();
    while (thread_cpu_now() - c0 < 0.02)
        for (unsigned long i = 0; i < 100000; ++i)
            sink += i * i ^ (sink >> 3);
    double busy_cpu = thread_cpu_now() - c0;
    struct stamp s1 = stamp_now();
    usleep(2000);
    struct stamp s2 = stamp_now();

    double busy = s1.wtime - s0.wtime, slept = s2.wtime - s1.wtime;
    double tick = MPI_Wtick();
    CHECK(busy > 0, "wtime busy loop", "t1 - t0 = %.9f s, expected > 0", busy);
    CHECK(slept >= 0.002 - 1e-6, "wtime usleep", "t2 - t1 = %.9f s, expected >= 0.002",
          slept);
    CHECK(tick > 0 && tick <= 1e-3, "wtick", "MPI_Wtick() = %g, expected in (0, 1e-3]",
          tick);
    check_agree("busy loop", s0, s1);
    check_agree("usleep", s1, s2);
    check_agree("whole", s0, s2);
    printf("wtime %.9f %.9f %.3e rank %d\n", busy, slept, tick, rank);
    printf("busy loop cpu %.9f rank %d\n", busy_cpu, rank);
    fflush(stdout);
    report_ok(MPI_COMM_WORLD, "wtime advances and agrees with CLOCK_MONOTONIC");

    /* 8-byte ping-pong. */
    if (size >= 2 && rank < 2) {
        int peer = 1 - rank;
        uint64_t out = 0, in = 0;
        MPI_Sendrecv(&out, 8, MPI_BYTE, peer, 1, &in, 8, MPI_BYTE, peer, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* warm-up */
        double t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
            if (rank == 0) {
                out = pat_word(0, i, 0);
                MPI_Send(&out, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
                MPI_Recv(&in, 8, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(in == pat_word(1, i, 0), "pingpong8",
                      "iteration %d: expected 0x%016llx, got 0x%016llx", i,
                      (unsigned long long)pat_word(1, i, 0), (unsigned long long)in);
            } else {
                MPI_Recv(&in, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK(in == pat_word(0, i, 0), "pingpong8",
                      "iteration %d: expected 0x%016llx, got 0x%016llx", i,
                      (unsigned long long)pat_word(0, i, 0), (unsigned long long)in);
                out = pat_word(1, i, 0);
                MPI_Send(&out, 8, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        CHECK(t > 0, "pingpong8", "elapsed %.9f s for %d iterations", t, iters);
        if (rank == 0) {
            printf("pingpong8 %.3f us\n", t / (2.0 * iters) * 1e6);
            fflush(stdout);
        }
    }
    report_ok(MPI_COMM_WORLD, "wtime %d ranks", size);
    MPI_Finalize();
    return 0;
}
