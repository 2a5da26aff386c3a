/*
 * Rank 0's node has a slow PCIe link (the platform sets it): its PtlPut
 * spends 20 us of simulated time writing its command. Rank 1 Puts into
 * rank 0's memory a few microseconds after rank 0 began its PtlPut, so that
 * the data lands while rank 0 is still in its call: with early answers
 * (s4bxi/early-put-answer), rank 0 would be running then, which the
 * emulator must notice and report. Both check the data they received.
 */
#include "e2e_common.h"

#define PT 6

static unsigned char out[8], in[8];

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt));
    ptl_handle_me_t me = e2e_append_me(ni, PT, in, sizeof in, PTL_CT_NONE, PTL_ME_OP_PUT);
    ptl_handle_md_t md = e2e_bind_md(ni, out, sizeof out);
    memset(out, 0x30 + e2e_rank, sizeof out);
    e2e_barrier();
    if (e2e_rank == 1)
        e2e_sleep_ns(3000); /* rank 0 is in its PtlPut by then */
    E2E_OK(PtlPut(md, 0, sizeof out, PTL_NO_ACK_REQ, e2e_peer(1 - e2e_rank), PT, 0, 0, NULL, 0));
    e2e_barrier();
    for (size_t k = 0; k < sizeof in; ++k)
        if (in[k] != 0x30 + (1 - e2e_rank))
            e2e_fail("byte %zu: 0x%02x", k, in[k]);
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT));
    e2e_barrier_fini();
    return e2e_finish("slow_command_write");
}
