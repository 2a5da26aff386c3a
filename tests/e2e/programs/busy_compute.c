/*
 * Compute injection: burns about 0.2 s of CPU (measured with getrusage, which
 * the emulator does not virtualise) between two readings of the program's
 * CLOCK_MONOTONIC, and prints both durations on one line:
 *   busy_compute: rank R cpu_s=X simulated_s=Y
 * The test compares Y with X for several s4bxi/cpu-factor values and with
 * s4bxi/compute:none. An optional argument gives the CPU seconds to burn,
 * or, as work=N, a fixed amount of work instead (N rounds of the loop body),
 * whatever CPU time it takes: the same work with and without preemption.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double thread_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

static double mono(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    double burn = 0.2;
    long rounds = -1;
    if (argc > 1 && argv[1][0] >= '0' && argv[1][0] <= '9')
        burn = atof(argv[1]);
    else if (argc > 1 && strncmp(argv[1], "work=", 5) == 0)
        rounds = atol(argv[1] + 5);
    const char *rank = getenv("PMI_RANK") ? getenv("PMI_RANK") : "?";

    volatile unsigned long sink = 0;
    double t0 = mono();
    double c0 = thread_cpu();
    double c1 = c0;
    for (long round = 0; rounds >= 0 ? round < rounds : c1 - c0 < burn; ++round) {
        for (unsigned long i = 0; i < 200000; ++i)
            sink += i * i ^ (sink >> 3);
        c1 = thread_cpu();
    }
    double t1 = mono();
    printf("busy_compute: rank %s cpu_s=%.6f simulated_s=%.6f\n", rank,
           c1 - c0, t1 - t0);
    return 0;
}
