/*
 * Ranks that wait on memory, as SHMEM-style codes do, with no call the
 * emulator would see while they wait:
 *   put     rank 1 spins until a flag that rank 0 Puts (after a 100 us sleep)
 *           is set; its measured wait is the flag's arrival, within one sync
 *           quantum, and never less;
 *   atomic  the same with a PtlAtomic (sum) into the flag;
 *   thread  the same as put, rank 1 spinning in a helper thread while its
 *           main thread waits in pthread_join;
 *   barrier every rank adds one to a counter of rank 0 with PtlAtomic, rank 0
 *           spins until it reaches the rank count then Puts a release flag to
 *           each rank, which spins on it; three rounds.
 */
#include "conformance_common.h"

#include <pthread.h>
#include <stdint.h>

#define PT_FLAG 5

static volatile uint64_t flag;
static volatile uint64_t counter;
static uint64_t one = 1;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static void spin_until(volatile uint64_t *word, uint64_t value)
{
    while (*word < value)
        ; /* no call: only preemption lets the simulation deliver */
}

static void *spinning_thread(void *unused)
{
    (void)unused;
    spin_until(&flag, 1);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "put";
    ptl_handle_ni_t ni = e2e_init(NULL);
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_FLAG, &pt));
    /* Match bits 1: the flag; 2: the counter. */
    const unsigned options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE;
    cf_append(ni, PT_FLAG, (void *)&flag, sizeof flag, 1, options, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
    cf_append(ni, PT_FLAG, (void *)&counter, sizeof counter, 2, options, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
    ptl_handle_md_t md = cf_bind(ni, &one, sizeof one, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    e2e_barrier_init(ni);
    e2e_barrier();

    ptl_event_t ev;
    if (strcmp(mode, "barrier") == 0) {
        for (uint64_t round = 1; round <= 3; ++round) {
            E2E_OK(PtlAtomic(md, 0, sizeof one, PTL_ACK_REQ, e2e_peer(0), PT_FLAG, 2, 0, NULL, 0, PTL_SUM,
                             PTL_UINT64_T));
            E2E_OK(PtlEQWait(eq, &ev));
            E2E_CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK, "round %llu: increment failed",
                      (unsigned long long)round);
            if (e2e_rank == 0) {
                spin_until(&counter, round * (uint64_t)e2e_size);
                for (int r = 0; r < e2e_size; ++r) {
                    E2E_OK(PtlAtomic(md, 0, sizeof one, PTL_ACK_REQ, e2e_peer(r), PT_FLAG, 1, 0, NULL, 0, PTL_SUM,
                                     PTL_UINT64_T));
                    E2E_OK(PtlEQWait(eq, &ev));
                }
            }
            spin_until(&flag, round);
        }
        E2E_CHECK(flag == 3, "released %llu times, expected 3", (unsigned long long)flag);
        printf("memory_spin: rank %d passed 3 barriers\n", e2e_rank);
    } else {
        e2e_require_ranks(2);
        if (e2e_rank == 0) {
            e2e_sleep_ns(100000);
            const double sent = now_us();
            if (strcmp(mode, "atomic") == 0)
                E2E_OK(PtlAtomic(md, 0, sizeof one, PTL_ACK_REQ, e2e_peer(1), PT_FLAG, 1, 0, NULL, 0, PTL_SUM,
                                 PTL_UINT64_T));
            else
                E2E_OK(PtlPut(md, 0, sizeof one, PTL_ACK_REQ, e2e_peer(1), PT_FLAG, 1, 0, NULL, 0));
            E2E_OK(PtlEQWait(eq, &ev));
            E2E_CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK, "the flag's ACK failed");
            printf("memory_spin: sent at %.3f us\n", sent);
        } else {
            const double start = now_us();
            if (strcmp(mode, "thread") == 0) {
                pthread_t helper;
                pthread_create(&helper, NULL, spinning_thread, NULL);
                pthread_join(helper, NULL);
            } else {
                spin_until(&flag, 1);
            }
            const double seen = now_us();
            printf("memory_spin: waited %.3f us, seen at %.3f us\n", seen - start, seen);
        }
    }
    e2e_barrier();
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("memory_spin");
}
