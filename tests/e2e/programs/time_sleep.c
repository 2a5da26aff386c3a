/*
 * Time virtualisation of sleeps: sleep(30), usleep, nanosleep,
 * clock_nanosleep (relative and absolute), and poll() and select() on no
 * descriptor with a timeout (sleeps too) must advance the program's own
 * clocks (CLOCK_MONOTONIC, CLOCK_REALTIME, gettimeofday, time) by the
 * requested amount within 1 ms, without waiting for real. No Portals call:
 * the time hooks must work in a program that never calls the library.
 * With compute simulated (the default, factor 1), the CPU time the program
 * spends between two readings is simulated time too: each upper bound adds
 * the thread CPU time measured across the same span (the first printf and the
 * first calls' symbol binding took 1.2 ms of CPU on a loaded CI machine).
 * Prints the clocks so that the test can compare runs.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/select.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;
static const char *rank = "?";

static double ts(clockid_t id)
{
    struct timespec t;
    if (clock_gettime(id, &t) != 0) {
        fprintf(stderr, "FAIL (rank %s): clock_gettime(%d) failed\n", rank,
                (int)id);
        exit(1);
    }
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double tv(void)
{
    struct timeval t;
    gettimeofday(&t, NULL);
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

/* CPU time of this thread, which the emulator does not virtualise. */
static double cpu(void)
{
    return ts(CLOCK_THREAD_CPUTIME_ID);
}

/* Checks one span; `computed` is the thread CPU time spent across it. */
static void expect_advance(const char *clock, const char *how, double before,
                           double after, double want, double computed)
{
    double got = after - before;
    if (got < want - 1e-3 || got > want + 1e-3 + computed) {
        fprintf(stderr,
                "FAIL (rank %s): %s advanced by %.9f s across %s, expected "
                "%.3f s +- 1 ms (+ %.6f s of CPU time spent meanwhile)\n",
                rank, clock, got, how, want, computed);
        ++failures;
    }
}

int main(void)
{
    if (getenv("PMI_RANK"))
        rank = getenv("PMI_RANK");

    double c0 = cpu();
    double m0 = ts(CLOCK_MONOTONIC), r0 = ts(CLOCK_REALTIME), g0 = tv();
    time_t s0 = time(NULL);
    printf("rank %s start: monotonic %.9f realtime %.9f\n", rank, m0, r0);

    unsigned left = sleep(30);
    double m1 = ts(CLOCK_MONOTONIC), r1 = ts(CLOCK_REALTIME), g1 = tv();
    time_t s1 = time(NULL);
    double c1 = cpu();
    if (left != 0) {
        fprintf(stderr, "FAIL (rank %s): sleep(30) returned %u\n", rank, left);
        ++failures;
    }
    expect_advance("CLOCK_MONOTONIC", "sleep(30)", m0, m1, 30.0, c1 - c0);
    expect_advance("CLOCK_REALTIME", "sleep(30)", r0, r1, 30.0, c1 - c0);
    expect_advance("gettimeofday", "sleep(30)", g0, g1, 30.0, c1 - c0);
    if (s1 - s0 < 29 || s1 - s0 > 31) {
        fprintf(stderr, "FAIL (rank %s): time() advanced by %ld s across "
                "sleep(30)\n", rank, (long)(s1 - s0));
        ++failures;
    }
    printf("rank %s after sleep(30): monotonic +%.9f s, gettimeofday +%.9f s\n",
           rank, m1 - m0, g1 - g0);

    if (usleep(250000) != 0) {
        fprintf(stderr, "FAIL (rank %s): usleep failed\n", rank);
        ++failures;
    }
    double m2 = ts(CLOCK_MONOTONIC), c2 = cpu();
    expect_advance("CLOCK_MONOTONIC", "usleep(250000)", m1, m2, 0.25, c2 - c1);

    struct timespec req = {1, 500000000L}, rem = {0, 0};
    if (nanosleep(&req, &rem) != 0) {
        fprintf(stderr, "FAIL (rank %s): nanosleep failed\n", rank);
        ++failures;
    }
    double m3 = ts(CLOCK_MONOTONIC), c3 = cpu();
    expect_advance("CLOCK_MONOTONIC", "nanosleep(1.5 s)", m2, m3, 1.5, c3 - c2);

    struct timespec rel = {0, 750000000L};
    int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, &rel, NULL);
    double m4 = ts(CLOCK_MONOTONIC), c4 = cpu();
    if (rc != 0) {
        fprintf(stderr, "FAIL (rank %s): clock_nanosleep returned %d\n", rank,
                rc);
        ++failures;
    }
    expect_advance("CLOCK_MONOTONIC", "clock_nanosleep(0.75 s)", m3, m4,
                   0.75, c4 - c3);

    struct timespec now, until;
    double c5_start = cpu();
    clock_gettime(CLOCK_MONOTONIC, &now);
    until = now;
    until.tv_sec += 1;
    rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL);
    double m5 = ts(CLOCK_MONOTONIC), c5 = cpu();
    if (rc != 0) {
        fprintf(stderr, "FAIL (rank %s): clock_nanosleep(TIMER_ABSTIME) "
                "returned %d\n", rank, rc);
        ++failures;
    }
    expect_advance("CLOCK_MONOTONIC", "clock_nanosleep(TIMER_ABSTIME, +1 s)",
                   (double)now.tv_sec + (double)now.tv_nsec * 1e-9, m5, 1.0,
                   c5 - c5_start);

    /* poll() on nothing for 200 ms, select() on nothing for 0.3 s. */
    rc = poll(NULL, 0, 200);
    double m6 = ts(CLOCK_MONOTONIC), c6 = cpu();
    if (rc != 0) {
        fprintf(stderr, "FAIL (rank %s): poll(NULL, 0, 200) returned %d\n", rank, rc);
        ++failures;
    }
    expect_advance("CLOCK_MONOTONIC", "poll(NULL, 0, 200)", m5, m6, 0.2, c6 - c5);
    struct timeval wait = {0, 300000};
    rc = select(0, NULL, NULL, NULL, &wait);
    double m7 = ts(CLOCK_MONOTONIC), c7 = cpu();
    if (rc != 0 || wait.tv_sec != 0 || wait.tv_usec != 0) {
        fprintf(stderr, "FAIL (rank %s): select(0, ..., 0.3 s) returned %d, %ld.%06ld s left\n", rank, rc,
                (long)wait.tv_sec, (long)wait.tv_usec);
        ++failures;
    }
    expect_advance("CLOCK_MONOTONIC", "select(0, ..., 0.3 s)", m6, m7, 0.3, c7 - c6);

    double r5 = ts(CLOCK_REALTIME), c8 = cpu();
    expect_advance("CLOCK_REALTIME", "all the sleeps", r0, r5, 34.0, c8 - c0);
    printf("rank %s total: monotonic +%.9f s, realtime +%.9f s\n", rank,
           m5 - m0, r5 - r0);

    if (failures) {
        fprintf(stderr, "time_sleep: rank %s: %d check(s) FAILED\n", rank,
                failures);
        return 1;
    }
    printf("time_sleep: rank %s: all checks passed\n", rank);
    return 0;
}
