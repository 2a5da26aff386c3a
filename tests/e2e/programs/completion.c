/*
 * Completion as the specification defines it (Portals 4.1, sections 3.10.3
 * and 3.15): a Put with PTL_NO_ACK_REQ is complete once its SEND event is
 * delivered, and its MD can then be released (PtlMDRelease returns PTL_OK),
 * whatever the NIC still does for reliability; a Put with PTL_ACK_REQ is
 * complete with its ACK. Small (8 B, kept in the NIC) and large (64 KiB, read
 * from host memory) payloads, repeated, from every rank to the next one
 * (around a ring; on one rank, to itself).
 */
#include "conformance_common.h"

#define PT_C 9
#define ROUNDS 4
#define LARGE (64 * 1024)

static unsigned char src[LARGE], dst[LARGE];

static void initiator(ptl_handle_ni_t ni, ptl_process_t peer)
{
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    const size_t sizes[] = {8, LARGE};
    int released = 0;
    for (int round = 0; round < ROUNDS; ++round)
        for (size_t s = 0; s < 2; ++s) {
            memset(src, round + (int)s + 1, sizes[s]);
            /* No acknowledgment: the SEND event ends the operation. */
            ptl_handle_md_t md = cf_bind(ni, src, sizes[s], 0, eq, PTL_CT_NONE);
            E2E_OK(PtlPut(md, 0, sizes[s], PTL_NO_ACK_REQ, peer, PT_C, 0, 0, NULL, 0));
            ptl_event_t ev = cf_expect(eq, PTL_EVENT_SEND, "PTL_NO_ACK_REQ: SEND");
            E2E_CHECK(ev.ni_fail_type == PTL_NI_OK, "SEND of %zu B failed (%d)", sizes[s], (int)ev.ni_fail_type);
            int rc = PtlMDRelease(md);
            E2E_CHECK(rc == PTL_OK, "PtlMDRelease right after the SEND event of a %zu B PTL_NO_ACK_REQ Put: %s",
                      sizes[s], e2e_rc_name(rc));
            released += rc == PTL_OK;
            if (rc != PTL_OK) { /* the NIC's reliability ends later: release it then */
                e2e_sleep_ns(100000);
                E2E_OK(PtlMDRelease(md));
            }
            /* With an acknowledgment: the ACK ends it. */
            md = cf_bind(ni, src, sizes[s], 0, eq, PTL_CT_NONE);
            E2E_OK(PtlPut(md, 0, sizes[s], PTL_ACK_REQ, peer, PT_C, 0, 0, NULL, 0));
            cf_expect(eq, PTL_EVENT_SEND, "PTL_ACK_REQ: SEND");
            cf_expect(eq, PTL_EVENT_ACK, "PTL_ACK_REQ: ACK");
            rc = PtlMDRelease(md);
            E2E_CHECK(rc == PTL_OK, "PtlMDRelease right after the ACK of a %zu B Put: %s", sizes[s], e2e_rc_name(rc));
            released += rc == PTL_OK;
        }
    printf("completion: %d MDs released at completion\n", released);
    E2E_OK(PtlEQFree(eq));
}

/* The entry the previous rank Puts to; its counter counts the Puts. */
static ptl_handle_ct_t target(ptl_handle_ni_t ni)
{
    ptl_handle_ct_t ct;
    E2E_OK(PtlCTAlloc(ni, &ct));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_C, &pt));
    cf_append(ni, PT_C, dst, sizeof dst, 0,
              PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE, ct,
              PTL_PRIORITY_LIST, NULL);
    return ct;
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    ptl_handle_ct_t ct = target(ni);
    e2e_barrier(); /* every entry is there */
    initiator(ni, e2e_peer((e2e_rank + 1) % e2e_size));
    cf_wait_ct(ct, 4 * ROUNDS, 0, "every Put arrived");
    e2e_barrier();
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("completion");
}
