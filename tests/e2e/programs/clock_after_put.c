/*
 * The clock right after a PtlPut or PtlGet shows the end of the call, also
 * when the emulator answers the call before the PCIe write of its command
 * (s4bxi/early-put-answer): the write takes a quarter of a microsecond of
 * simulated time, which the clock must include. Prints the duration of each
 * call as the clock shows it, so that a run with early answers and one
 * without can be compared; rank 1 checks the data it received.
 */
#include "e2e_common.h"

#define PT 5
#define ROUNDS 4

static unsigned char src[8], dst[8 * ROUNDS], fetched[8];

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void check_duration(const char *call, int round, long long before, long long after)
{
    printf("clock_after_put: %s %d took %lld ns\n", call, round, after - before);
    /* The command's PCIe write alone is 250 ns of latency on the default platform. */
    if (after - before < 250)
        e2e_fail("%s %d: the clock moved %lld ns over the call, less than its PCIe command write", call, round,
                 after - before);
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt));
    for (size_t k = 0; k < sizeof dst; ++k)
        dst[k] = (unsigned char)(k + 1);
    ptl_handle_me_t me = e2e_append_me(ni, PT, dst, sizeof dst, PTL_CT_NONE, PTL_ME_OP_PUT | PTL_ME_OP_GET);
    e2e_barrier();
    if (e2e_rank == 0) {
        ptl_md_t md;
        memset(&md, 0, sizeof md);
        md.start = src;
        md.length = sizeof src;
        md.eq_handle = PTL_EQ_NONE;
        md.ct_handle = PTL_CT_NONE;
        ptl_handle_md_t put_md;
        E2E_OK(PtlMDBind(ni, &md, &put_md));
        md.start = fetched;
        md.length = sizeof fetched;
        md.eq_handle = eq;
        ptl_handle_md_t get_md;
        E2E_OK(PtlMDBind(ni, &md, &get_md));
        for (int round = 0; round < ROUNDS; ++round) {
            memset(src, 0xA0 + round, sizeof src);
            long long before = now_ns();
            E2E_OK(PtlPut(put_md, 0, sizeof src, PTL_NO_ACK_REQ, e2e_peer(1), PT, 0, (ptl_size_t)round * 8, NULL, 0));
            check_duration("PtlPut", round, before, now_ns());
        }
        long long before = now_ns();
        E2E_OK(PtlGet(get_md, 0, sizeof fetched, e2e_peer(1), PT, 0, 0, NULL));
        check_duration("PtlGet", 0, before, now_ns());
        ptl_event_t event;
        E2E_OK(PtlEQWait(eq, &event));
        if (event.type != PTL_EVENT_REPLY)
            e2e_fail("expected the REPLY event, got %s", e2e_event_name(event.type));
        E2E_OK(PtlMDRelease(put_md));
        E2E_OK(PtlMDRelease(get_md));
    }
    e2e_barrier();
    if (e2e_rank == 1)
        for (int round = 0; round < ROUNDS; ++round)
            for (int k = 0; k < 8; ++k)
                if (dst[round * 8 + k] != (unsigned char)(0xA0 + round))
                    e2e_fail("byte %d of Put %d: 0x%02x", k, round, dst[round * 8 + k]);
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT));
    E2E_OK(PtlEQFree(eq));
    e2e_barrier_fini();
    return e2e_finish("clock_after_put");
}
