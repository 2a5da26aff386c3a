/*
 * Ranks 0 and 1 share a node; rank 2 is on another. Rank 1 fills the node's
 * command queue with 64 KiB Puts to rank 2 (read by DMA, slow to send), so
 * that rank 0's 8 B Put, posted RANK0_NS later, waits after its PCIe write
 * for a free slot; rank 2 Puts 8 B into rank 0's memory RANK2_NS after the
 * barrier, while rank 0 still waits. With early answers
 * (s4bxi/early-put-answer) rank 0 would be running then, unless the emulator
 * saw the full queue. Every rank checks the data it received.
 * Usage: put_into_full_queue [RANK0_NS (default 40000)] [RANK2_NS (default 41000)]
 */
#include "conformance_common.h"

#define PT_BIG 6
#define PT_SMALL 8 /* (7 is the barrier's) */
#define BIG (64 * 1024)
#define BIG_PUTS 120

static unsigned char big[BIG], small_out[8], small_in[8];

int main(int argc, char **argv)
{
    const long rank0_ns = argc > 1 ? atol(argv[1]) : 40000;
    const long rank2_ns = argc > 2 ? atol(argv[2]) : 41000;
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(3);
    e2e_barrier_init(ni);
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_BIG, &pt));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_SMALL, &pt));
    /* Rank 2 takes every big Put into `big` (overwritten), rank 0's small one
     * into `small_in`; rank 0 takes rank 2's into `small_in`. */
    ptl_handle_me_t me_big = e2e_append_me(ni, PT_BIG, big, sizeof big, PTL_CT_NONE, PTL_ME_OP_PUT);
    ptl_handle_ct_t sent, arrived;
    E2E_OK(PtlCTAlloc(ni, &sent));
    E2E_OK(PtlCTAlloc(ni, &arrived));
    ptl_handle_me_t me_small =
        e2e_append_me(ni, PT_SMALL, small_in, sizeof small_in, arrived, PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM);
    ptl_handle_md_t md_big = cf_bind(ni, big, sizeof big, PTL_MD_EVENT_CT_SEND, PTL_EQ_NONE, sent);
    ptl_handle_md_t md_small = e2e_bind_md(ni, small_out, sizeof small_out);
    memset(small_out, 0x40 + e2e_rank, sizeof small_out);
    memset(big, 0x11, sizeof big);
    e2e_barrier();
    if (e2e_rank == 1) {
        for (int k = 0; k < BIG_PUTS; ++k)
            E2E_OK(PtlPut(md_big, 0, sizeof big, PTL_NO_ACK_REQ, e2e_peer(2), PT_BIG, 0, 0, NULL, 0));
        ptl_ct_event_t count;
        E2E_OK(PtlCTWait(sent, BIG_PUTS, &count)); /* the NIC is done with `big` */
    } else {
        e2e_sleep_ns(e2e_rank == 0 ? rank0_ns : rank2_ns);
        E2E_OK(PtlPut(md_small, 0, sizeof small_out, PTL_NO_ACK_REQ, e2e_peer(e2e_rank == 0 ? 2 : 0), PT_SMALL, 0,
                      0, NULL, 0));
    }
    if (e2e_rank == 0 || e2e_rank == 2) {
        /* Rank 0's Put leaves after rank 1's big ones (one queue per node). */
        ptl_ct_event_t count;
        E2E_OK(PtlCTWait(arrived, 1, &count));
    }
    e2e_barrier();
    if (e2e_rank == 0 || e2e_rank == 2)
        for (size_t k = 0; k < sizeof small_in; ++k)
            if (small_in[k] != 0x40 + (e2e_rank == 0 ? 2 : 0))
                e2e_fail("byte %zu of the small Put: 0x%02x", k, small_in[k]);
    E2E_OK(PtlMDRelease(md_big));
    E2E_OK(PtlMDRelease(md_small));
    E2E_OK(PtlCTFree(sent));
    E2E_OK(PtlCTFree(arrived));
    E2E_OK(PtlMEUnlink(me_small));
    E2E_OK(PtlMEUnlink(me_big));
    E2E_OK(PtlPTFree(ni, PT_BIG));
    E2E_OK(PtlPTFree(ni, PT_SMALL));
    e2e_barrier_fini();
    return e2e_finish("put_into_full_queue");
}
