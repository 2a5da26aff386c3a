/*
 * A livelock the emulator must stop: rank 1 owns a flow-controlled portal
 * with no entry, so rank 0's first Put disables it, and rank 1 never enables
 * it again (it only sleeps, waiting for a message that never comes). Rank 0
 * retries every 10 simulated microseconds, forever: every Put fails with
 * PTL_NI_PT_DISABLED. With "bounded", rank 0 gives up after 200 retries and
 * both ranks end normally (no false livelock).
 */
#include "conformance_common.h"

#define PT_F 4

int main(int argc, char **argv)
{
    int bounded = argc > 1 && strcmp(argv[1], "bounded") == 0;
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    e2e_barrier_init(ni);
    if (e2e_rank == 1) {
        ptl_pt_index_t pt;
        E2E_OK(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, eq, PT_F, &pt));
        e2e_barrier();
        if (bounded) {
            e2e_barrier();
        } else {
            for (;;)
                e2e_sleep_ns(1000000);
        }
    } else {
        static char byte;
        ptl_handle_md_t retry_md = cf_bind(ni, &byte, 1, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
        e2e_barrier();
        for (long attempt = 0; !bounded || attempt < 200; ++attempt) {
            ptl_event_t ev;
            E2E_OK(PtlPut(retry_md, 0, 1, PTL_ACK_REQ, e2e_peer(1), PT_F, 0, 0, NULL, 0));
            E2E_OK(PtlEQWait(eq, &ev));
            if (ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK)
                break;
            e2e_sleep_ns(10000);
        }
        if (bounded)
            e2e_barrier();
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("retry_forever");
}
