/*
 * The Portals half of through_library: a library built against BXI's
 * portals4.h (8-byte handles), used by a program that makes no Portals call
 * of its own, as an OpenSHMEM program uses SOS's libsma.so. s4bxi-run --abi
 * auto must find the flavour here, in a library the program loads: with
 * another flavour's libportals the handles and option bits would be wrong.
 *
 * Each rank puts its rank into the next rank's ME (ring) and checks what its
 * predecessor put into its own.
 */
#include "e2e_common.h"

#define RING_PT 9

int through_library_ring(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    ptl_handle_ct_t ct;
    E2E_OK(PtlCTAlloc(ni, &ct));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, RING_PT, &pt));
    static int received = -1;
    static int mine;
    mine = e2e_rank;
    ptl_handle_me_t me = e2e_append_me(ni, RING_PT, &received, sizeof received, ct,
                                       PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE |
                                           PTL_ME_EVENT_LINK_DISABLE);
    ptl_handle_md_t md = e2e_bind_md(ni, &mine, sizeof mine);
    e2e_barrier(); /* every ME is in place */
    E2E_OK(PtlPut(md, 0, sizeof mine, PTL_NO_ACK_REQ, e2e_peer((e2e_rank + 1) % e2e_size), RING_PT, 0, 0, NULL, 0));
    ptl_ct_event_t done;
    E2E_OK(PtlCTWait(ct, 1, &done));
    const int predecessor = (e2e_rank + e2e_size - 1) % e2e_size;
    E2E_CHECK(done.success == 1 && done.failure == 0, "counter: %llu successes, %llu failures",
              (unsigned long long)done.success, (unsigned long long)done.failure);
    E2E_CHECK(received == predecessor, "received %d, expected rank %d's rank", received, predecessor);
    e2e_barrier(); /* nobody unlinks before every Put landed */
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, RING_PT));
    E2E_OK(PtlCTFree(ct));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("through_library");
}
