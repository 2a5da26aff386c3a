/*
 * When an MD is the program's again: as soon as the SEND event of the
 * operation that reads it (Sandia's implementation drops the operation's
 * reference to the MD before it posts SEND, src/ib/ptl_init.c,
 * early_send_event), even while the acknowledgment is on its way; an MD that
 * a reply lands in only once the reply is there. The cases of Sandia's
 * test_triggered_{ME,LE}_put: the initiator counts SEND on the MD's counter,
 * waits for one, and releases the MD at once:
 *  - a Put with PTL_ACK_REQ: PtlMDRelease answers PTL_OK after the SEND
 *    count, and the ACK still comes (event and count, on the MD's EQ and
 *    counter, which outlive it);
 *  - the same with a PtlTriggeredPut released by PtlCTInc;
 *  - a Get: its MD is PTL_IN_USE until the REPLY;
 *  - a PtlFetchAtomic: the MD of its operand is free after SEND, the MD of
 *    its result is PTL_IN_USE until the REPLY.
 * Every rank sends to the next one (around a ring; on one rank, to itself).
 * Whether the acknowledgment was still on its way at the release is printed
 * (it always is with s4bxi/compute:none).
 */
#include "conformance_common.h"

#define PT_M 12

static uint64_t target[4], src[4], result[4];

/* Waits for the first count of `ct`, then releases `md` at once; says
 * whether the acknowledgment had come by then (a second count). */
static int release_after_send_count(ptl_handle_md_t md, ptl_handle_ct_t ct, const char *what)
{
    ptl_ct_event_t v;
    E2E_OK(PtlCTWait(ct, 1, &v));
    int rc = PtlMDRelease(md);
    E2E_CHECK(rc == PTL_OK, "%s: PtlMDRelease right after the SEND count returned %s, expected PTL_OK", what,
              e2e_rc_name(rc));
    ptl_ct_event_t now;
    E2E_OK(PtlCTGet(ct, &now));
    return now.success + now.failure < 2;
}

/* The SEND and ACK events, and the counter at {2, 0}, after the release. */
static void expect_send_and_ack(ptl_handle_eq_t eq, ptl_handle_ct_t ct, const char *what)
{
    cf_expect_fail(eq, PTL_EVENT_SEND, PTL_NI_OK, 0, what);
    cf_expect_fail(eq, PTL_EVENT_ACK, PTL_NI_OK, 0, what);
    cf_wait_ct(ct, 2, 0, what);
    cf_expect_empty(eq, what);
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    const ptl_process_t next = e2e_peer((e2e_rank + 1) % e2e_size);

    ptl_pt_index_t pt;
    ptl_handle_me_t me;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_M, &pt));
    me = cf_append(ni, PT_M, target, sizeof target, 0x4D, PTL_ME_OP_PUT | PTL_ME_OP_GET, PTL_CT_NONE,
                   PTL_PRIORITY_LIST, NULL);
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct, trigger;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlCTAlloc(ni, &trigger));
    e2e_barrier(); /* every target is there */

    int in_flight = 0;
    const unsigned counting = PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_ACK;

    /* A Put with PTL_ACK_REQ. */
    src[0] = 0x1000 + (uint64_t)e2e_rank;
    ptl_handle_md_t md = cf_bind(ni, src, 8, counting, eq, ct);
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, next, PT_M, 0x4D, 0, NULL, 0));
    in_flight += release_after_send_count(md, ct, "PtlPut");
    expect_send_and_ack(eq, ct, "PtlPut, MD released after SEND");

    /* A triggered Put. */
    E2E_OK(PtlCTSet(ct, (ptl_ct_event_t){0, 0}));
    md = cf_bind(ni, src, 8, counting, eq, ct);
    E2E_OK(PtlTriggeredPut(md, 0, 8, PTL_ACK_REQ, next, PT_M, 0x4D, 8, NULL, 0, trigger, 1));
    E2E_OK(PtlCTInc(trigger, (ptl_ct_event_t){1, 0}));
    in_flight += release_after_send_count(md, ct, "PtlTriggeredPut");
    expect_send_and_ack(eq, ct, "PtlTriggeredPut, MD released after SEND");

    /* A Get: its MD holds the reply. */
    md = cf_bind(ni, result, 8, 0, eq, PTL_CT_NONE);
    E2E_OK(PtlGet(md, 0, 8, next, PT_M, 0x4D, 0, NULL));
    E2E_EXPECT_RC(PTL_IN_USE, PtlMDRelease(md));
    cf_expect(eq, PTL_EVENT_REPLY, "PtlGet");
    E2E_OK(PtlMDRelease(md));

    /* A fetching atomic: the operand's MD is free after SEND, not the result's. */
    src[1] = 5;
    ptl_handle_md_t operand = cf_bind(ni, &src[1], 8, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t fetched = cf_bind(ni, &result[1], 8, 0, eq, PTL_CT_NONE);
    E2E_OK(PtlFetchAtomic(fetched, 0, operand, 0, 8, next, PT_M, 0x4D, 16, NULL, 0, PTL_SUM, PTL_UINT64_T));
    cf_expect_fail(eq, PTL_EVENT_SEND, PTL_NI_OK, 0, "PtlFetchAtomic");
    E2E_OK(PtlMDRelease(operand));
    E2E_EXPECT_RC(PTL_IN_USE, PtlMDRelease(fetched));
    cf_expect(eq, PTL_EVENT_REPLY, "PtlFetchAtomic");
    E2E_OK(PtlMDRelease(fetched));
    cf_expect_empty(eq, "PtlFetchAtomic");

    e2e_barrier(); /* everything landed */
    const int from = (e2e_rank + e2e_size - 1) % e2e_size;
    E2E_CHECK(target[0] == 0x1000 + (uint64_t)from && target[1] == 0x1000 + (uint64_t)from && target[2] == 5,
              "the target holds %#llx %#llx %llu, expected %#llx twice and 5", (unsigned long long)target[0],
              (unsigned long long)target[1], (unsigned long long)target[2], 0x1000ULL + (unsigned long long)from);
    printf("md_release_after_send: rank %d released 2 MDs after SEND, %d with the acknowledgment in flight\n",
           e2e_rank, in_flight);
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlCTFree(trigger));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT_M));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("md_release_after_send");
}
