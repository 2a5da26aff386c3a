/*
 * Acknowledgment kinds and event options (Portals 4.1, sections 3.10-3.13).
 *
 * Initiator side (rank 0):
 *  - PTL_ACK_REQ: a full ACK event, counted by PTL_MD_EVENT_CT_ACK;
 *  - PTL_CT_ACK_REQ: counted only, bytes (mlength) with PTL_MD_EVENT_CT_BYTES,
 *    a failure counts one failure;
 *  - PTL_OC_ACK_REQ: counted only, one per operation even with
 *    PTL_MD_EVENT_CT_BYTES and even when the target dropped the message;
 *  - PTL_NO_ACK_REQ: nothing; PTL_ME_ACK_DISABLE at the target: nothing either;
 *  - PTL_MD_EVENT_SUCCESS_DISABLE: no SEND/ACK/REPLY for successes, failures
 *    still reported; PTL_MD_EVENT_SEND_DISABLE: no SEND;
 *  - PTL_MD_EVENT_CT_SEND and PTL_MD_EVENT_CT_REPLY with bytes.
 * Target side (rank 1): PTL_ME_EVENT_COMM_DISABLE (counted, not reported),
 * PTL_ME_EVENT_SUCCESS_DISABLE, PTL_ME_EVENT_LINK_DISABLE,
 * PTL_ME_EVENT_UNLINK_DISABLE, PTL_ME_EVENT_CT_COMM, and the drop counter.
 * An ACK says in ptl_list which list the entry that took the Put was on (a
 * program tells expected from unexpected deliveries by it: OpenMPI does).
 */
#include "conformance_common.h"

#define PT_A 14
#define NOBODY 0x99ULL

/* The current generation of Sandia's portals4.h has no ACK_DISABLE: there
 * the entry at 0x2 is a plain one and the Puts to it ask for no ACK, so that
 * the initiator sees the same events (SEND only) in every flavour. */
#ifdef PTL_ME_ACK_DISABLE
#define ME_ACK_DISABLE PTL_ME_ACK_DISABLE
#define ACK_TO_ENTRY_0x2(kind) (kind)
#else
#define ME_ACK_DISABLE 0
#define ACK_TO_ENTRY_0x2(kind) PTL_NO_ACK_REQ
#endif

static unsigned char src[128], dst[64];
static unsigned char b1[256], b2[64], b3[64], b4[64], b5[64], b6[64], b7[64], b8[10], b9[64];
static char E1, E2, E3, E4, E5, E6, E7, E8, E9;

static unsigned char src_byte(size_t k) { return (unsigned char)(k * 5 + 3); }

static void initiator(ptl_handle_ni_t ni)
{
    ptl_process_t peer = e2e_peer(1);
    ptl_handle_eq_t eq, eq_sd;
    ptl_handle_ct_t c1, c2, c3, c4, c5;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlEQAlloc(ni, 16, &eq_sd));
    ptl_handle_ct_t *cts[] = {&c1, &c2, &c3, &c4, &c5};
    for (int k = 0; k < 5; ++k)
        E2E_OK(PtlCTAlloc(ni, cts[k]));
    for (size_t k = 0; k < sizeof src; ++k)
        src[k] = src_byte(k);
    ptl_handle_md_t full = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_CT_ACK, eq, c1);
    ptl_handle_md_t bytes = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES, PTL_EQ_NONE, c2);
    ptl_handle_md_t send = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_CT_SEND | PTL_MD_EVENT_CT_BYTES, PTL_EQ_NONE, c3);
    ptl_handle_md_t reply = cf_bind(ni, dst, sizeof dst, PTL_MD_EVENT_CT_REPLY | PTL_MD_EVENT_CT_BYTES, eq, c4);
    ptl_handle_md_t sd = cf_bind(ni, dst, sizeof dst,
                                 PTL_MD_EVENT_SUCCESS_DISABLE | PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY, eq_sd, c5);
    ptl_handle_md_t nosend = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    ptl_event_t ev;

    /* The four acknowledgment requests, on one MD. */
    E2E_OK(PtlPut(full, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x1, 0, &E1, 1));
    cf_expect(eq, PTL_EVENT_SEND, "PTL_ACK_REQ: SEND");
    ev = cf_expect(eq, PTL_EVENT_ACK, "PTL_ACK_REQ: ACK");
    E2E_CHECK(ev.mlength == 8 && ev.user_ptr == &E1, "ACK: mlength %llu, user_ptr %p", (unsigned long long)ev.mlength,
              ev.user_ptr);
    E2E_CHECK(ev.ptl_list == PTL_PRIORITY_LIST, "ACK of a Put taken by a priority entry: ptl_list %d", (int)ev.ptl_list);
    cf_wait_ct(c1, 1, 0, "PTL_ACK_REQ counted by PTL_MD_EVENT_CT_ACK");
    E2E_OK(PtlPut(full, 0, 8, PTL_CT_ACK_REQ, peer, PT_A, 0x1, 8, NULL, 2));
    cf_expect(eq, PTL_EVENT_SEND, "PTL_CT_ACK_REQ: SEND");
    cf_wait_ct(c1, 2, 0, "PTL_CT_ACK_REQ counted");
    E2E_OK(PtlPut(full, 0, 8, PTL_OC_ACK_REQ, peer, PT_A, 0x1, 16, NULL, 3));
    cf_expect(eq, PTL_EVENT_SEND, "PTL_OC_ACK_REQ: SEND");
    cf_wait_ct(c1, 3, 0, "PTL_OC_ACK_REQ counted");
    E2E_OK(PtlPut(full, 0, 8, PTL_NO_ACK_REQ, peer, PT_A, 0x1, 24, NULL, 4));
    cf_expect(eq, PTL_EVENT_SEND, "PTL_NO_ACK_REQ: SEND");
    /* The target's entry disables acknowledgments of every kind. */
    E2E_OK(PtlPut(full, 0, 8, ACK_TO_ENTRY_0x2(PTL_ACK_REQ), peer, PT_A, 0x2, 0, NULL, 5));
    cf_expect(eq, PTL_EVENT_SEND, "PTL_ME_ACK_DISABLE, PTL_ACK_REQ: SEND");
    E2E_OK(PtlPut(full, 0, 8, ACK_TO_ENTRY_0x2(PTL_CT_ACK_REQ), peer, PT_A, 0x2, 8, NULL, 6));
    cf_expect(eq, PTL_EVENT_SEND, "PTL_ME_ACK_DISABLE, PTL_CT_ACK_REQ: SEND");

    /* Bytes: the modified length (truncated to 10) for CT_ACK, one for OC_ACK. */
    E2E_OK(PtlPut(bytes, 0, 100, PTL_CT_ACK_REQ, peer, PT_A, 0x8, 0, NULL, 7));
    cf_wait_ct(c2, 10, 0, "PTL_CT_ACK_REQ with PTL_MD_EVENT_CT_BYTES counts mlength");
    E2E_OK(PtlPut(bytes, 0, 100, PTL_OC_ACK_REQ, peer, PT_A, 0x8, 0, NULL, 8));
    cf_wait_ct(c2, 11, 0, "PTL_OC_ACK_REQ counts one operation, not bytes");
    /* Failures: the message matches nothing. */
    E2E_OK(PtlPut(bytes, 0, 8, PTL_CT_ACK_REQ, peer, PT_A, NOBODY, 0, NULL, 9));
    cf_wait_ct(c2, 11, 1, "PTL_CT_ACK_REQ of a dropped message counts a failure");
    E2E_OK(PtlPut(bytes, 0, 8, PTL_OC_ACK_REQ, peer, PT_A, NOBODY, 0, NULL, 10));
    cf_wait_ct(c2, 12, 1, "PTL_OC_ACK_REQ of a dropped message: the operation completed");
    E2E_OK(PtlPut(full, 0, 8, PTL_ACK_REQ, peer, PT_A, NOBODY, 0, NULL, 11));
    cf_expect(eq, PTL_EVENT_SEND, "dropped Put: SEND");
    cf_expect_fail(eq, PTL_EVENT_ACK, PTL_NI_DROPPED, 0, "dropped Put: ACK");
    cf_wait_ct(c1, 3, 1, "PTL_ACK_REQ of a dropped message counts a failure");

    /* PTL_MD_EVENT_SUCCESS_DISABLE: failures only. */
    E2E_OK(PtlPut(sd, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x1, 32, NULL, 12));
    cf_wait_ct(c5, 1, 0, "PTL_MD_EVENT_SUCCESS_DISABLE still counts");
    E2E_OK(PtlPut(sd, 0, 8, PTL_ACK_REQ, peer, PT_A, NOBODY, 0, NULL, 13));
    cf_expect_fail(eq_sd, PTL_EVENT_ACK, PTL_NI_DROPPED, 0, "PTL_MD_EVENT_SUCCESS_DISABLE: failed ACK");
    cf_wait_ct(c5, 1, 1, "PTL_MD_EVENT_SUCCESS_DISABLE: failure counted");
    E2E_OK(PtlGet(sd, 0, 8, peer, PT_A, 0x1, 200, NULL));
    cf_wait_ct(c5, 2, 1, "PTL_MD_EVENT_SUCCESS_DISABLE: REPLY counted");
    cf_expect_empty(eq_sd, "PTL_MD_EVENT_SUCCESS_DISABLE: no SEND, ACK or REPLY for successes");

    /* PTL_MD_EVENT_SEND_DISABLE. */
    E2E_OK(PtlPut(nosend, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x1, 40, NULL, 14));
    cf_expect_fail(eq, PTL_EVENT_ACK, PTL_NI_OK, 0, "PTL_MD_EVENT_SEND_DISABLE: ACK without SEND");

    /* CT_SEND and CT_REPLY in bytes. */
    E2E_OK(PtlPut(send, 0, 40, PTL_NO_ACK_REQ, peer, PT_A, 0x3, 0, NULL, 15));
    cf_wait_ct(c3, 40, 0, "PTL_MD_EVENT_CT_SEND with bytes");
    E2E_OK(PtlGet(reply, 0, 30, peer, PT_A, 0x1, 200, NULL));
    ev = cf_expect(eq, PTL_EVENT_REPLY, "Get: REPLY");
    E2E_CHECK(ev.mlength == 30, "REPLY mlength %llu", (unsigned long long)ev.mlength);
    cf_wait_ct(c4, 30, 0, "PTL_MD_EVENT_CT_REPLY with bytes");

    /* To the entries with event options. */
    E2E_OK(PtlPut(full, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x4, 0, NULL, 16));
    cf_expect(eq, PTL_EVENT_ACK, "PTL_ME_EVENT_SUCCESS_DISABLE entry: ACK");
    E2E_OK(PtlPut(full, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x5, 0, NULL, 17));
    cf_expect(eq, PTL_EVENT_ACK, "use-once entry with PTL_ME_EVENT_UNLINK_DISABLE: ACK");
    E2E_OK(PtlPut(full, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x6, 0, NULL, 18));
    cf_expect(eq, PTL_EVENT_ACK, "use-once entry: ACK");
    E2E_OK(PtlPut(full, 0, 8, PTL_ACK_REQ, peer, PT_A, 0x9, 0, &E9, 19));
    ev = cf_expect(eq, PTL_EVENT_ACK, "overflow entry: ACK");
    E2E_CHECK(ev.ptl_list == PTL_OVERFLOW_LIST && ev.user_ptr == &E9,
              "ACK of a Put taken by an overflow entry: ptl_list %d (PTL_OVERFLOW_LIST is %d)", (int)ev.ptl_list,
              (int)PTL_OVERFLOW_LIST);

    e2e_barrier(); /* 2: all sent */
    e2e_barrier(); /* 3: the target saw everything */
    cf_expect_empty(eq, "no ACK for PTL_CT_ACK_REQ, PTL_OC_ACK_REQ, PTL_NO_ACK_REQ or PTL_ME_ACK_DISABLE");
    cf_check_ct(c1, 7, 1, "PTL_MD_EVENT_CT_ACK in the end");
    cf_check_ct(c2, 12, 1, "byte counter in the end");
    E2E_OK(PtlMDRelease(full));
    E2E_OK(PtlMDRelease(bytes));
    E2E_OK(PtlMDRelease(send));
    E2E_OK(PtlMDRelease(reply));
    E2E_OK(PtlMDRelease(sd));
    E2E_OK(PtlMDRelease(nosend));
    for (int k = 0; k < 5; ++k)
        E2E_OK(PtlCTFree(*cts[k]));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(eq_sd));
}

static void target(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_handle_ct_t t1, t3;
    ptl_pt_index_t pt;
    ptl_sr_value_t drops0, drops1;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlCTAlloc(ni, &t1));
    E2E_OK(PtlCTAlloc(ni, &t3));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_A, &pt));
    E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops0));
    const unsigned base = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    ptl_handle_me_t h[9];
    h[0] = cf_append(ni, PT_A, b1, sizeof b1, 0x1, base | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM, t1, PTL_PRIORITY_LIST,
                     &E1);
    h[1] = cf_append(ni, PT_A, b2, sizeof b2, 0x2, base | ME_ACK_DISABLE, PTL_CT_NONE, PTL_PRIORITY_LIST, &E2);
    h[2] = cf_append(ni, PT_A, b3, sizeof b3, 0x3,
                     base | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_CT_BYTES, t3,
                     PTL_PRIORITY_LIST, &E3);
    h[3] = cf_append(ni, PT_A, b4, sizeof b4, 0x4, base | PTL_ME_EVENT_SUCCESS_DISABLE, PTL_CT_NONE,
                     PTL_PRIORITY_LIST, &E4);
    h[4] = cf_append(ni, PT_A, b5, sizeof b5, 0x5, base | PTL_ME_USE_ONCE | PTL_ME_EVENT_UNLINK_DISABLE,
                     PTL_CT_NONE, PTL_PRIORITY_LIST, &E5);
    h[5] = cf_append(ni, PT_A, b6, sizeof b6, 0x6, base | PTL_ME_USE_ONCE, PTL_CT_NONE, PTL_PRIORITY_LIST, &E6);
    h[6] = cf_append(ni, PT_A, b7, sizeof b7, 0x7, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_PRIORITY_LIST, &E7);
    h[7] = cf_append(ni, PT_A, b8, sizeof b8, 0x8, base, PTL_CT_NONE, PTL_PRIORITY_LIST, &E8);
    h[8] = cf_append(ni, PT_A, b9, sizeof b9, 0x9, base | PTL_ME_UNEXPECTED_HDR_DISABLE, PTL_CT_NONE,
                     PTL_OVERFLOW_LIST, &E9);
    ptl_event_t ev = cf_expect(eq, PTL_EVENT_LINK, "append without PTL_ME_EVENT_LINK_DISABLE");
    E2E_CHECK(ev.user_ptr == &E7, "LINK user_ptr %p, expected %p", ev.user_ptr, (void *)&E7);
    cf_expect_empty(eq, "PTL_ME_EVENT_LINK_DISABLE: one LINK event only");
    e2e_barrier(); /* 1: entries posted */
    e2e_barrier(); /* 2: all sent */

    /* Count the events per entry. */
    int puts[9] = {0}, gets = 0, unlinks[9] = {0}, rc;
    while ((rc = PtlEQGet(eq, &ev)) == PTL_OK) {
        int which = -1;
        char *markers[] = {&E1, &E2, &E3, &E4, &E5, &E6, &E7, &E8, &E9};
        for (int k = 0; k < 9; ++k)
            if (ev.user_ptr == markers[k])
                which = k;
        if (which < 0) {
            e2e_fail("target: %s event with an unknown user_ptr %p", e2e_event_name(ev.type), ev.user_ptr);
            continue;
        }
        if (ev.type == PTL_EVENT_PUT) {
            ++puts[which];
            if (which == 7)
                E2E_CHECK(ev.mlength == 10 && ev.rlength == 100, "truncated PUT: mlength %llu rlength %llu",
                          (unsigned long long)ev.mlength, (unsigned long long)ev.rlength);
        } else if (ev.type == PTL_EVENT_GET && which == 0) {
            ++gets;
        } else if (ev.type == PTL_EVENT_AUTO_UNLINK) {
            ++unlinks[which];
        } else {
            e2e_fail("target: unexpected %s event for entry E%d", e2e_event_name(ev.type), which + 1);
        }
    }
    E2E_CHECK(rc == PTL_EQ_EMPTY, "target: PtlEQGet returned %s", e2e_rc_name(rc));
    const int want_puts[9] = {6, 2, 0, 0, 1, 1, 0, 2, 1};
    for (int k = 0; k < 9; ++k)
        E2E_CHECK(puts[k] == want_puts[k], "entry E%d: %d PUT events, expected %d", k + 1, puts[k], want_puts[k]);
    E2E_CHECK(gets == 2, "entry E1: %d GET events, expected 2", gets);
    E2E_CHECK(unlinks[4] == 0 && unlinks[5] == 1, "AUTO_UNLINK events: %d for E5 (PTL_ME_EVENT_UNLINK_DISABLE), "
              "%d for E6; expected 0 and 1", unlinks[4], unlinks[5]);
    cf_check_ct(t1, 8, 0, "PTL_ME_EVENT_CT_COMM of E1 (6 Puts, 2 Gets)");
    cf_check_ct(t3, 40, 0, "PTL_ME_EVENT_COMM_DISABLE entry still counts (bytes)");
    for (int k = 0; k < 8; ++k)
        E2E_CHECK(b4[k] == src_byte((size_t)k), "PTL_ME_EVENT_SUCCESS_DISABLE: the data is delivered (byte %d)", k);
    E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops1));
    E2E_CHECK(drops1 - drops0 == 4, "drop counter grew by %d, expected 4", drops1 - drops0);
    e2e_barrier(); /* 3 */

    for (int k = 0; k < 9; ++k)
        if (k != 4 && k != 5)
            E2E_OK(PtlMEUnlink(h[k]));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h[4])); /* used up, even without its event */
    E2E_OK(PtlPTFree(ni, PT_A));
    E2E_OK(PtlCTFree(t1));
    E2E_OK(PtlCTFree(t3));
    E2E_OK(PtlEQFree(eq));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    if (e2e_rank == 0) {
        e2e_barrier(); /* 1 */
        initiator(ni);
    } else {
        target(ni);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("ack_kinds");
}
