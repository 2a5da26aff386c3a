/*
 * polls_before_pmi: polls that the process answers itself right before
 * simulated time goes on without it reach the server first, at the simulated
 * time they were made: before a PMI command, which the server serves at once
 * and in simulated time (a barrier that waits for a later rank ends later),
 * and before the server parks the rank asleep in the kernel. Replayed only
 * after, they would find events that had not landed when the program polled.
 *
 *   polls_before_pmi LIBRARY        (2 ranks; LIBRARY: libs4bxi-pmi.so,
 *                                    loaded as Open MPI's pmix/flux component
 *                                    does)
 *   polls_before_pmi LIBRARY park   the same with a sleep in the kernel (a raw
 *                                    system call, 300 ms) instead of the PMI
 *                                    barrier (run with a short s4bxi/park-after)
 *
 * Rank 0 Puts to rank 1, sleeps 20 simulated microseconds and enters a PMI
 * barrier. Rank 1 polls a queue where nothing comes, then the queue where
 * the Put's event lands (nothing there yet: both are answered by the process
 * when its horizon allows), enters the barrier (or sleeps in the kernel), and
 * after it waits for the Put's event. Prints "polls_before_pmi: rank R: all
 * checks passed".
 */
#include "e2e_common.h"

#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PT_TARGET 3

static int (*pmi_init)(int *);
static int (*pmi_barrier)(void);
static int (*pmi_finalize)(void);

static void *lookup(void *dso, const char *name)
{
    void *symbol = dlsym(dso, name);
    if (symbol == NULL)
        E2E_DIE("dlsym(%s): %s", name, dlerror());
    return symbol;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        E2E_DIE("usage: polls_before_pmi LIBRARY [park]");
    const int park = argc > 2 && strcmp(argv[2], "park") == 0;
    void *dso = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (dso == NULL)
        E2E_DIE("dlopen(%s): %s", argv[1], dlerror());
    *(void **)&pmi_init = lookup(dso, "PMI_Init");
    *(void **)&pmi_barrier = lookup(dso, "PMI_Barrier");
    *(void **)&pmi_finalize = lookup(dso, "PMI_Finalize");
    int spawned = 0;
    E2E_CHECK(pmi_init(&spawned) == 0, "PMI_Init");

    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    static uint64_t buffer;
    ptl_handle_eq_t quiet, target;
    E2E_OK(PtlEQAlloc(ni, 8, &quiet));
    E2E_OK(PtlEQAlloc(ni, 8, &target));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, target, PT_TARGET, &pt));
    ptl_handle_me_t me = e2e_append_me(ni, pt, &buffer, sizeof buffer, PTL_CT_NONE,
                                       PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_md_t md = e2e_bind_md(ni, &buffer, sizeof buffer);
    e2e_barrier();

    ptl_event_t event;
    if (e2e_rank == 0) {
        buffer = 0x5EEDULL;
        E2E_OK(PtlPut(md, 0, sizeof buffer, PTL_NO_ACK_REQ, e2e_peer(1), PT_TARGET, 0, 0, NULL, 0));
        e2e_sleep_ns(20000);
        if (!park)
            E2E_CHECK(pmi_barrier() == 0, "PMI_Barrier");
    } else {
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(quiet, &event));
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(target, &event));
        if (park) {
            /* Asleep in the kernel without the emulator knowing: parked. */
            struct timespec delay = {0, 300000000L};
            syscall(SYS_nanosleep, &delay, NULL);
        } else {
            E2E_CHECK(pmi_barrier() == 0, "PMI_Barrier");
        }
        E2E_OK(PtlEQWait(target, &event));
        E2E_CHECK(event.type == PTL_EVENT_PUT && buffer == 0x5EEDULL, "the Put's event and data");
    }

    e2e_barrier();
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlEQFree(quiet));
    E2E_OK(PtlEQFree(target));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    pmi_finalize();
    return e2e_finish("polls_before_pmi");
}
