/*
 * Shared helpers of the self-checking MPI test programs.
 *
 * Conventions of every program:
 *   - success: "OK <what>" lines on stdout (printed by rank 0 after a barrier,
 *     so an OK line means every rank passed that test), exit status 0;
 *   - failure: one line on stderr,
 *       FAIL rank R: <test>: <expected/actual> (file:line)
 *     then MPI_Abort(MPI_COMM_WORLD, 3);
 *   - numeric arguments are optional; a non-numeric argument (such as the
 *     marker the end-to-end harness appends) is ignored.
 *
 * Include this header first: it selects the POSIX/GNU feature set used by
 * the programs (usleep, clock_gettime, nanosleep, getrusage(RUSAGE_THREAD)).
 */
#ifndef MPI_CHECK_H
#define MPI_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define MPI_CHECK_ABORT_CODE 3

static inline int chk_world_rank(void)
{
    int initialized = 0, finalized = 0, rank = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* Reports one broken expectation and aborts the whole job. */
static void chk_fail(const char *file, int line, const char *test,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5), noreturn));
static void chk_fail(const char *file, int line, const char *test,
                     const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "FAIL rank %d: %s: %s (%s:%d)\n", chk_world_rank(), test,
            msg, file, line);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, MPI_CHECK_ABORT_CODE);
    exit(MPI_CHECK_ABORT_CODE); /* not reached with a working MPI_Abort */
}

/* CHECK(cond, test, fmt, ...): fails with the formatted message. */
#define CHECK(cond, test, ...)                                                \
    do {                                                                      \
        if (!(cond))                                                          \
            chk_fail(__FILE__, __LINE__, (test), __VA_ARGS__);                \
    } while (0)

/* Integer and floating-point equality with "expected X, got Y" messages. */
#define CHECK_EQ(test, expected, actual)                                      \
    do {                                                                      \
        long long chk_e_ = (long long)(expected);                             \
        long long chk_a_ = (long long)(actual);                               \
        if (chk_e_ != chk_a_)                                                 \
            chk_fail(__FILE__, __LINE__, (test), "%s: expected %lld, got %lld", \
                     #actual, chk_e_, chk_a_);                                \
    } while (0)

#define CHECK_DBL(test, expected, actual, tol)                                \
    do {                                                                      \
        double chk_e_ = (double)(expected);                                   \
        double chk_a_ = (double)(actual);                                     \
        if (!(chk_a_ - chk_e_ <= (tol) && chk_e_ - chk_a_ <= (tol)))          \
            chk_fail(__FILE__, __LINE__, (test),                              \
                     "%s: expected %.17g, got %.17g", #actual, chk_e_, chk_a_); \
    } while (0)

/* Barrier on comm, then rank 0 of comm prints "OK <what>". */
static inline void report_ok(MPI_Comm comm, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void report_ok(MPI_Comm comm, const char *fmt, ...)
{
    int rank;
    MPI_Barrier(comm);
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fputs("OK ", stdout);
        vprintf(fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
        fflush(stdout);
    }
}

/* argv[i] as a number if present and numeric, otherwise def. */
static inline long arg_long(int argc, char **argv, int i, long def)
{
    if (i >= argc || argv[i][0] == '\0')
        return def;
    char *end;
    long v = strtol(argv[i], &end, 0);
    return *end == '\0' ? v : def;
}

/* Deterministic data pattern: byte i of a buffer sent by `rank` in
 * iteration `iter`. Every 8-byte word comes from a hash of (rank, iter,
 * word index), so misrouted, stale, shifted or truncated data is caught. */
static inline uint64_t pat_word(int rank, int iter, size_t word)
{
    uint64_t x = ((uint64_t)(uint32_t)rank << 32 | (uint32_t)iter) ^
                 ((uint64_t)word * 0x9E3779B97F4A7C15ull);
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

static inline unsigned char pat_byte(int rank, int iter, size_t i)
{
    return (unsigned char)(pat_word(rank, iter, i / 8) >> (8 * (i % 8)));
}

/* The word in memory order of its bytes (byte b = bits 8b..8b+7). */
static inline uint64_t pat_le64(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(v);
#else
    return v;
#endif
}

static inline void pat_fill(void *buf, size_t n, int rank, int iter)
{
    unsigned char *p = buf;
    size_t words = n / 8;
    for (size_t w = 0; w < words; ++w) {
        uint64_t v = pat_le64(pat_word(rank, iter, w));
        memcpy(p + w * 8, &v, 8);
    }
    for (size_t i = words * 8; i < n; ++i)
        p[i] = pat_byte(rank, iter, i);
}

/* Fails on the first byte that differs from pat_fill(rank, iter). */
#define PAT_CHECK(test, buf, n, rank, iter)                                   \
    pat_check_at(__FILE__, __LINE__, (test), (buf), (n), (rank), (iter))

static inline void pat_check_at(const char *file, int line, const char *test,
                                const void *buf, size_t n, int rank, int iter)
{
    const unsigned char *p = buf;
    size_t words = n / 8;
    for (size_t w = 0; w < words; ++w) {
        uint64_t v;
        memcpy(&v, p + w * 8, 8);
        if (v != pat_le64(pat_word(rank, iter, w)))
            goto mismatch;
    }
    for (size_t i = words * 8; i < n; ++i)
        if (p[i] != pat_byte(rank, iter, i))
            goto mismatch;
    return;
mismatch:
    for (size_t i = 0; i < n; ++i)
        if (p[i] != pat_byte(rank, iter, i))
            chk_fail(file, line, test,
                     "byte %zu of %zu (pattern of rank %d iteration %d): "
                     "expected 0x%02x, got 0x%02x",
                     i, n, rank, iter, pat_byte(rank, iter, i), p[i]);
}

/* Poison value for receive buffers and guard zones. */
#define PAT_POISON 0xA5

/* Fails if any of the n bytes at buf is not PAT_POISON (overrun check). */
#define POISON_CHECK(test, buf, n)                                            \
    do {                                                                      \
        const unsigned char *chk_p_ = (const unsigned char *)(buf);           \
        for (size_t chk_i_ = 0; chk_i_ < (size_t)(n); ++chk_i_)               \
            if (chk_p_[chk_i_] != PAT_POISON)                                 \
                chk_fail(__FILE__, __LINE__, (test),                          \
                         "guard byte %zu overwritten: expected 0x%02x, "      \
                         "got 0x%02x", chk_i_, PAT_POISON, chk_p_[chk_i_]);   \
    } while (0)

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p != NULL, "malloc", "cannot allocate %zu bytes", n);
    return p;
}

/* Clocks read directly, for comparison with MPI_Wtime. */
static inline double mono_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* CPU time of the calling thread (getrusage, not virtualised by the
 * emulator), to burn a given amount of real CPU. */
static inline double thread_cpu_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

#endif /* MPI_CHECK_H */
