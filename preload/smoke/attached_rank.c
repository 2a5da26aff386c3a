/* The rank side of the fake-server check (fake_server.cpp starts it as rank 0
 * of a one-rank run). Each step is matched by the fake server's script; this
 * side checks what the program sees through the ABI. */
#include <portals4.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rank FAILED: %s\n", what);
        ++failures;
    }
}

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int segment_fd = atoi(getenv("S4BXI_SHM_FD"));
    if (argc > 1) {
        /* The image exec'd by the rank below: still the rank, on the same clock. */
        check(seconds(CLOCK_MONOTONIC) >= 20.0, "the exec'd image continues the rank's simulated time");
        PtlFini();
        if (failures == 0)
            printf("attached_rank (after exec): all checks passed\n");
        return failures == 0 ? 0 : 1;
    }
    check(fcntl(segment_fd, F_GETFD) != -1, "the rank keeps the segment descriptor (for exec)");

    /* Hello was answered at simulated time 1 s. */
    double t = seconds(CLOCK_MONOTONIC);
    check(t >= 1.0 && t < 1.5, "monotonic clock starts at the Hello reply");
    check(seconds(CLOCK_REALTIME) - 1000000000.0 - t < 0.5, "realtime clock is epoch + simulated time");

    check(PtlInit() == PTL_OK, "PtlInit");
    t = seconds(CLOCK_MONOTONIC);
    check(t >= 5.0 && t < 5.5, "time restarts from each reply");

    ptl_ni_limits_t desired = {0}, actual = {0};
    desired.max_entries = 123;
    desired.max_msg_size = 1 << 20;
    ptl_handle_ni_t ni = 0;
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, 17, &desired, &actual, &ni) == PTL_OK,
          "PtlNIInit");
    check(ni == 42, "NI handle from the reply");
    check(actual.max_eqs == 9 && actual.max_volatile_size == 77, "actual limits from the reply");
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, 0, NULL, NULL, &ni) ==
              PTL_ARG_INVALID,
          "PtlNIInit rejects options it cannot encode, without a round trip");

    ptl_md_t md = {(void *)0x1000, 64, PTL_MD_EVENT_CT_ACK | PTL_IOVEC, PTL_EQ_NONE, PTL_CT_NONE};
    ptl_handle_md_t mdh = 0;
    check(PtlMDBind(ni, &md, &mdh) == PTL_ARG_INVALID, "server's ArgInvalid becomes PTL_ARG_INVALID");

    /* Burn CPU: the next request carries it as compute, and the clock moves. */
    double before = seconds(CLOCK_MONOTONIC);
    clock_t start = clock();
    volatile unsigned long sink = 0;
    while ((double)(clock() - start) / CLOCKS_PER_SEC < 0.05)
        ++sink;
    check(seconds(CLOCK_MONOTONIC) - before >= 0.04, "compute advances the simulated clock (cpu factor 1)");

    ptl_event_t ev;
    check(PtlEQGet(PTL_EQ_NONE, &ev) == PTL_EQ_DROPPED, "PtlEQGet returns PTL_EQ_DROPPED");
    check(ev.type == PTL_EVENT_PUT_OVERFLOW && ev.ptl_list == PTL_OVERFLOW_LIST, "event kind and list");
    check(ev.ni_fail_type == PTL_NI_PERM_VIOLATION, "event failure kind");
    check(ev.start == (void *)0x2000 && ev.user_ptr == (void *)0x3000 && ev.mlength == 8 && ev.initiator.phys.nid == 3 &&
              ev.initiator.phys.pid == 4,
          "event fields");

    t = seconds(CLOCK_MONOTONIC);
    check(usleep(250000) == 0, "usleep");
    check(seconds(CLOCK_MONOTONIC) - t >= 0.25, "usleep advances simulated time");

    struct timespec target = {20, 0};
    check(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, NULL) == 0, "clock_nanosleep absolute");
    t = seconds(CLOCK_MONOTONIC);
    check(t >= 20.0 && t < 20.5, "clock_nanosleep absolute reaches the target");

    struct timespec bad = {0, -1};
    check(nanosleep(&bad, NULL) == -1, "nanosleep rejects a bad timespec without a round trip");

    /* A forked child is not the rank: real time, and Portals refuses. */
    pid_t child = fork();
    if (child == 0) {
        int ok = seconds(CLOCK_REALTIME) > 1.5e9 && PtlInit() == PTL_FAIL && fcntl(segment_fd, F_GETFD) == -1;
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "forked child gets pass-through behaviour");

    if (failures != 0)
        return 1;
    printf("attached_rank: all checks passed before exec\n");
    fflush(stdout);
    execl(argv[0], argv[0], "after-exec", (char *)NULL);
    return 1;
}
