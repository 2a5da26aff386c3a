/* Smoke check: a Portals program run with libportals preloaded but without
 * s4bxi-run must behave like a normal program for time, and fail its Portals
 * calls cleanly (PtlInit -> PTL_FAIL, others -> PTL_NO_INIT) after one
 * explanation on stderr. Exit status 0 means every check passed. */
#include <portals4.h>

#include <stdio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAILED: %s\n", what);
        ++failures;
    }
}

int main(void)
{
    /* The hook must pass through: compare with the kernel's own answer. */
    struct timespec hooked, raw;
    check(clock_gettime(CLOCK_REALTIME, &hooked) == 0, "clock_gettime returns 0");
    syscall(SYS_clock_gettime, CLOCK_REALTIME, &raw);
    long long delta = (long long)(raw.tv_sec - hooked.tv_sec) * 1000000000LL + (raw.tv_nsec - hooked.tv_nsec);
    check(delta >= 0 && delta < 1000000000LL, "clock_gettime(CLOCK_REALTIME) is the real time");

    struct timeval tv;
    check(gettimeofday(&tv, NULL) == 0 && tv.tv_sec - raw.tv_sec <= 1, "gettimeofday is the real time");
    check(time(NULL) - raw.tv_sec <= 1, "time is the real time");

    struct timespec before, after, nap = {0, 20000000};
    clock_gettime(CLOCK_MONOTONIC, &before);
    check(nanosleep(&nap, NULL) == 0, "nanosleep returns 0");
    clock_gettime(CLOCK_MONOTONIC, &after);
    long long slept = (long long)(after.tv_sec - before.tv_sec) * 1000000000LL + (after.tv_nsec - before.tv_nsec);
    check(slept >= 20000000LL, "nanosleep really sleeps");

    struct timespec bad = {0, 2000000000L};
    check(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL) != 0, "clock_nanosleep rejects a bad timespec");

    check(PtlInit() == PTL_FAIL, "PtlInit returns PTL_FAIL");
    ptl_handle_ni_t ni;
    check(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni) == PTL_NO_INIT,
          "PtlNIInit returns PTL_NO_INIT");
    ptl_ct_event_t ct;
    check(PtlCTGet(PTL_CT_NONE, &ct) == PTL_NO_INIT, "PtlCTGet returns PTL_NO_INIT");
    check(PtlAtomicSync() == PTL_NO_INIT, "PtlAtomicSync returns PTL_NO_INIT");
    check(PtlHandleIsEqual(PTL_EQ_NONE, PTL_EQ_NONE) == PTL_OK, "PtlHandleIsEqual works without the emulator");
    PtlFini();

    if (failures == 0)
        printf("not_under_emulator: all checks passed\n");
    return failures == 0 ? 0 : 1;
}
