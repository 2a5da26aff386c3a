/*
 * PtlStartBundle/PtlEndBundle (Portals 4.1, section 3.17: a hint; nested
 * bundles are counted; operations inside a bundle behave as outside),
 * PtlAtomicSync, and their return codes: PTL_ARG_INVALID for a handle that
 * is no NI, PTL_NO_INIT once the library is finalized.
 */
#include "conformance_common.h"

#define PT_B 17

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    static unsigned char src[32], dst[32];
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_B, &pt));
    ptl_handle_me_t me = cf_append(ni, PT_B, dst, sizeof dst, 0x1, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
    ptl_handle_md_t md = cf_bind(ni, src, sizeof src, 0, eq, PTL_CT_NONE);
    for (size_t k = 0; k < sizeof src; ++k)
        src[k] = (unsigned char)(k + 100);

    E2E_OK(PtlStartBundle(ni));
    E2E_OK(PtlStartBundle(ni)); /* nested */
    for (int k = 0; k < 4; ++k)
        E2E_OK(PtlPut(md, (ptl_size_t)k * 8, 8, PTL_ACK_REQ, e2e_peer(e2e_rank), PT_B, 0x1, (ptl_size_t)k * 8, NULL,
                      0));
    E2E_OK(PtlEndBundle(ni));
    E2E_OK(PtlEndBundle(ni));
    for (int k = 0; k < 4; ++k)
        cf_expect(eq, PTL_EVENT_ACK, "Put inside a bundle");
    cf_check_bytes(dst, src, sizeof src, "data sent inside a bundle");

    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlStartBundle(eq));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEndBundle(PTL_INVALID_HANDLE));
    E2E_OK(PtlAtomicSync());
    E2E_CHECK(PtlHandleIsEqual(ni, ni) != 0 && PtlHandleIsEqual(ni, eq) == 0,
              "PtlHandleIsEqual: true for one object, false for two");

    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT_B));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    E2E_EXPECT_RC(PTL_NO_INIT, PtlStartBundle(ni));
    E2E_EXPECT_RC(PTL_NO_INIT, PtlEndBundle(ni));
    E2E_EXPECT_RC(PTL_NO_INIT, PtlAtomicSync());
    return e2e_finish("bundles");
}
