/*
 * Rank 1 Puts 8 B into rank 0's memory DELAY ns (simulated) after both left
 * a barrier, while rank 0 Puts BYTES to rank 1 right away: with a short delay
 * rank 1's data lands while rank 0 is still in its PtlPut (its PCIe writes:
 * the command, and a PIO payload from 17 to 416 B). With early answers
 * (s4bxi/early-put-answer) rank 0 would be running then, unless the emulator
 * saw that coming. Both check the data they received.
 * Usage: put_during_put [DELAY_NS (default 3000)] [BYTES (default 8, at most 512)]
 */
#include "e2e_common.h"

#define PT 6
#define MAX_BYTES 512

static unsigned char out[MAX_BYTES], in[MAX_BYTES];

int main(int argc, char **argv)
{
    const long delay_ns = argc > 1 ? atol(argv[1]) : 3000;
    const size_t bytes = argc > 2 ? (size_t)atol(argv[2]) : 8;
    if (bytes == 0 || bytes > MAX_BYTES)
        E2E_DIE("BYTES must be 1 to %d", MAX_BYTES);
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt));
    ptl_handle_me_t me = e2e_append_me(ni, PT, in, sizeof in, PTL_CT_NONE, PTL_ME_OP_PUT);
    ptl_handle_md_t md = e2e_bind_md(ni, out, sizeof out);
    memset(out, 0x30 + e2e_rank, sizeof out);
    const size_t sent = e2e_rank == 0 ? bytes : 8;
    const size_t received = e2e_rank == 0 ? 8 : bytes;
    e2e_barrier();
    if (e2e_rank == 1 && delay_ns > 0)
        e2e_sleep_ns(delay_ns);
    E2E_OK(PtlPut(md, 0, sent, PTL_NO_ACK_REQ, e2e_peer(1 - e2e_rank), PT, 0, 0, NULL, 0));
    e2e_barrier();
    for (size_t k = 0; k < received; ++k)
        if (in[k] != 0x30 + (1 - e2e_rank))
            e2e_fail("byte %zu: 0x%02x", k, in[k]);
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT));
    e2e_barrier_fini();
    return e2e_finish("put_during_put");
}
