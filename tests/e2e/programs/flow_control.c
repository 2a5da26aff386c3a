/*
 * Flow control (Portals 4.1, sections 2.x and 3.5: PTL_PT_FLOWCTRL,
 * PTL_EVENT_PT_DISABLED, PtlPTEnable) and full event queues.
 *
 * Rank 0 sends, rank 1 owns flow-controlled portal table entries:
 *  1. a message that matches no entry disables the entry: PT_DISABLED in its
 *     EQ, PTL_NI_PT_DISABLED in the initiator's ACK (or REPLY, or failure
 *     count), and every later message fails the same way without a new
 *     event until PtlPTEnable;
 *  2. a full EQ disables the entry too (the PT_DISABLED event uses the slot
 *     the EQ keeps for it); the message that found it full is not delivered;
 *     PTL_ME_EVENT_FLOWCTRL_DISABLE silences the event of its entry;
 *  3. so does running out of unexpected headers (an NI with
 *     max_unexpected_headers 2); an append that consumes them makes room;
 *  4. without flow control a full EQ loses events (PTL_EQ_DROPPED) but the
 *     messages are delivered;
 *  5. PTL_PT_FLOWCTRL needs an EQ (PTL_PT_EQ_NEEDED).
 */
#include "conformance_common.h"

#define PT_F 11
#define PT_N 12
#define PT_U 13

static unsigned char src[64], fbuf[64], nbuf[64], ubuf[64], pbuf[64];

static unsigned char pat(int k) { return (unsigned char)(0x40 + k); }

static void sender(ptl_handle_ni_t ni, ptl_handle_ni_t phys, ptl_process_t peer_phys)
{
    ptl_process_t peer = e2e_peer(1);
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    E2E_OK(PtlEQAlloc(ni, 32, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    for (int i = 0; i < 64; ++i)
        src[i] = pat(i);
    ptl_handle_md_t md = cf_bind(ni, src, sizeof src, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t mdc = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct);

    /* 1. No entry: disabled. */
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_F, 0x1, 0, NULL, 1));
    cf_expect_fail(eq, PTL_EVENT_ACK, PTL_NI_PT_DISABLED, 1, "Put without an entry");
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_F, 0x1, 0, NULL, 2));
    cf_expect_fail(eq, PTL_EVENT_ACK, PTL_NI_PT_DISABLED, 1, "Put to the disabled entry");
    E2E_OK(PtlGet(md, 0, 8, peer, PT_F, 0x1, 0, NULL));
    cf_expect_fail(eq, PTL_EVENT_REPLY, PTL_NI_PT_DISABLED, 1, "Get from the disabled entry");
    E2E_OK(PtlPut(mdc, 0, 8, PTL_CT_ACK_REQ, peer, PT_F, 0x1, 0, NULL, 3));
    cf_wait_ct(ct, 0, 1, "counting ACK from the disabled entry");
    e2e_barrier(); /* 2 */
    e2e_barrier(); /* 3: rank 1 appended and enabled */
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_F, 0x1, 0, NULL, 4));
    cf_expect(eq, PTL_EVENT_ACK, "Put after PtlPTEnable");
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_F, 0x2, 0, NULL, 5));
    cf_expect_fail(eq, PTL_EVENT_ACK, PTL_NI_PT_DISABLED, 1, "Put that matches nothing, again");
    e2e_barrier(); /* 4 */

    /* 2. Full EQ: four events fit, the fifth message disables. */
    e2e_barrier(); /* 5: rank 1 enabled again */
    for (int k = 0; k < 5; ++k) {
        E2E_OK(PtlPut(md, (ptl_size_t)k * 8, 8, PTL_ACK_REQ, peer, PT_F, 0x1, (ptl_size_t)k * 8, NULL, 10 + k));
        cf_expect_fail(eq, PTL_EVENT_ACK, k < 4 ? PTL_NI_OK : PTL_NI_PT_DISABLED, 1, "Put into a filling EQ");
    }
    e2e_barrier(); /* 6 */
    e2e_barrier(); /* 7: rank 1 drained its EQ and swapped the entry */
    for (int k = 0; k < 5; ++k) {
        E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_F, 0x1, 0, NULL, 20 + k));
        cf_expect_fail(eq, PTL_EVENT_ACK, k < 4 ? PTL_NI_OK : PTL_NI_PT_DISABLED, 1,
                       "Put into a filling EQ, PTL_ME_EVENT_FLOWCTRL_DISABLE");
    }
    e2e_barrier(); /* 8 */
    e2e_barrier(); /* 9: rank 1 set up the physical NI */

    /* 3. Unexpected headers run out (physical NI, max_unexpected_headers 2). */
    ptl_handle_eq_t peq;
    E2E_OK(PtlEQAlloc(phys, 16, &peq));
    ptl_handle_md_t pmd = cf_bind(phys, src, sizeof src, 0, peq, PTL_CT_NONE);
    for (int k = 0; k < 3; ++k) {
        E2E_OK(PtlPut(pmd, 0, 8, PTL_ACK_REQ, peer_phys, PT_U, 0x7, (ptl_size_t)k * 8, NULL, 30 + k));
        cf_expect_fail(peq, PTL_EVENT_ACK, k < 2 ? PTL_NI_OK : PTL_NI_PT_DISABLED, 1, "unexpected Put");
    }
    e2e_barrier(); /* 10 */
    e2e_barrier(); /* 11: rank 1 consumed the headers and enabled */
    E2E_OK(PtlPut(pmd, 0, 8, PTL_ACK_REQ, peer_phys, PT_U, 0x8, 0, NULL, 33));
    cf_expect(peq, PTL_EVENT_ACK, "unexpected Put once headers were consumed");
    e2e_barrier(); /* 12 */
    e2e_barrier(); /* 13: rank 1 posted its entry */

    /* 4. No flow control: events lost, messages delivered. */
    for (int k = 0; k < 3; ++k) {
        E2E_OK(PtlPut(md, (ptl_size_t)k * 8, 8, PTL_ACK_REQ, peer, PT_N, 0x1, (ptl_size_t)k * 8, NULL, 40 + k));
        cf_expect(eq, PTL_EVENT_ACK, "Put into a full EQ without flow control");
    }
    e2e_barrier(); /* 14 */

    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMDRelease(mdc));
    E2E_OK(PtlMDRelease(pmd));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(peq));
}

static void expect_disabled_event(ptl_handle_eq_t eq, ptl_pt_index_t pt, ptl_match_bits_t bits, const char *what)
{
    ptl_event_t ev = cf_expect_fail(eq, PTL_EVENT_PT_DISABLED, PTL_NI_PT_DISABLED, 0, what);
    E2E_CHECK(ev.pt_index == pt && ev.match_bits == bits && ev.initiator.rank == 0,
              "%s: PT_DISABLED with pt_index %u, match_bits 0x%llx, initiator %u", what, ev.pt_index,
              (unsigned long long)ev.match_bits, ev.initiator.rank);
}

static void owner(ptl_handle_ni_t ni, ptl_handle_ni_t phys)
{
    ptl_handle_eq_t feq, neq;
    ptl_pt_index_t pt;
    ptl_sr_value_t drops0, drops1;
    E2E_OK(PtlEQAlloc(ni, 4, &feq));
    E2E_OK(PtlEQAlloc(ni, 2, &neq));
    E2E_EXPECT_RC(PTL_PT_EQ_NEEDED, PtlPTAlloc(ni, PTL_PT_FLOWCTRL, PTL_EQ_NONE, PT_F, &pt));
    E2E_OK(PtlPTAlloc(ni, PTL_PT_FLOWCTRL, feq, PT_F, &pt));
    E2E_OK(PtlPTAlloc(ni, 0, neq, PT_N, &pt));
    E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops0));

    /* 1. */
    e2e_barrier(); /* 1 */
    e2e_barrier(); /* 2 */
    expect_disabled_event(feq, PT_F, 0x1, "no entry");
    cf_expect_empty(feq, "one PT_DISABLED only, however many messages fail");
    E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops1));
    E2E_CHECK(drops1 - drops0 == 4, "drop counter grew by %d, expected 4", drops1 - drops0);
    ptl_handle_me_t me = cf_append(ni, PT_F, fbuf, sizeof fbuf, 0x1, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                                   PTL_CT_NONE, PTL_PRIORITY_LIST, fbuf);
    E2E_OK(PtlPTEnable(ni, PT_F));
    e2e_barrier(); /* 3 */
    e2e_barrier(); /* 4 */
    ptl_event_t ev = cf_expect(feq, PTL_EVENT_PUT, "Put after PtlPTEnable");
    E2E_CHECK(ev.hdr_data == 4, "Put after PtlPTEnable: hdr_data %llu", (unsigned long long)ev.hdr_data);
    expect_disabled_event(feq, PT_F, 0x2, "a message that matches nothing");
    cf_expect_empty(feq, "after the second PT_DISABLED");
    E2E_OK(PtlPTEnable(ni, PT_F));

    /* 2. */
    memset(fbuf, 0, sizeof fbuf);
    e2e_barrier(); /* 5 */
    e2e_barrier(); /* 6 */
    for (int k = 0; k < 4; ++k) {
        int rc = PtlEQGet(feq, &ev);
        E2E_CHECK(rc == PTL_OK && ev.type == PTL_EVENT_PUT && ev.hdr_data == (ptl_hdr_data_t)(10 + k),
                  "full EQ, event %d: rc %s, %s, hdr_data %llu", k, e2e_rc_name(rc), e2e_event_name(ev.type),
                  (unsigned long long)ev.hdr_data);
    }
    expect_disabled_event(feq, PT_F, 0x1, "EQ full");
    cf_expect_empty(feq, "after the PT_DISABLED of a full EQ");
    for (int k = 0; k < 40; ++k) {
        unsigned char want = k < 32 ? pat(k) : 0;
        if (fbuf[k] != want) {
            e2e_fail("full EQ: byte %d is 0x%02x, expected 0x%02x (the fifth Put must not be delivered)", k,
                     fbuf[k], want);
            break;
        }
    }
    E2E_OK(PtlMEUnlink(me));
    me = cf_append(ni, PT_F, fbuf, sizeof fbuf, 0x1,
                   PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_FLOWCTRL_DISABLE, PTL_CT_NONE,
                   PTL_PRIORITY_LIST, fbuf);
    E2E_OK(PtlPTEnable(ni, PT_F));
    e2e_barrier(); /* 7 */
    e2e_barrier(); /* 8 */
    for (int k = 0; k < 4; ++k)
        cf_expect(feq, PTL_EVENT_PUT, "full EQ with PTL_ME_EVENT_FLOWCTRL_DISABLE");
    cf_expect_empty(feq, "PTL_ME_EVENT_FLOWCTRL_DISABLE: no PT_DISABLED");
    E2E_EXPECT_RC(PTL_OK, PtlPTEnable(ni, PT_F));

    /* 3. */
    ptl_handle_eq_t ueq;
    E2E_OK(PtlEQAlloc(phys, 16, &ueq));
    E2E_OK(PtlPTAlloc(phys, PTL_PT_FLOWCTRL, ueq, PT_U, &pt));
    ptl_me_t over = cf_me(ubuf, sizeof ubuf, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE);
    over.ignore_bits = ~(ptl_match_bits_t)0;
    over.match_id.phys.nid = PTL_NID_ANY;
    over.match_id.phys.pid = PTL_PID_ANY;
    ptl_handle_me_t ho, hp;
    E2E_OK(PtlMEAppend(phys, PT_U, &over, PTL_OVERFLOW_LIST, NULL, &ho));
    e2e_barrier(); /* 9 */
    e2e_barrier(); /* 10 */
    for (int k = 0; k < 2; ++k) {
        ev = cf_expect(ueq, PTL_EVENT_PUT, "unexpected Put kept");
        E2E_CHECK(ev.ptl_list == PTL_OVERFLOW_LIST, "unexpected Put: ptl_list %d", (int)ev.ptl_list);
    }
    ev = cf_expect_fail(ueq, PTL_EVENT_PT_DISABLED, PTL_NI_PT_DISABLED, 0, "no room for a third header");
    ptl_me_t prio = cf_me(pbuf, sizeof pbuf, 0x7, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE);
    prio.match_id.phys.nid = PTL_NID_ANY;
    prio.match_id.phys.pid = PTL_PID_ANY;
    E2E_OK(PtlMEAppend(phys, PT_U, &prio, PTL_PRIORITY_LIST, NULL, &hp));
    cf_expect(ueq, PTL_EVENT_PUT_OVERFLOW, "append consuming the first header");
    cf_expect(ueq, PTL_EVENT_PUT_OVERFLOW, "append consuming the second header");
    E2E_OK(PtlPTEnable(phys, PT_U));
    e2e_barrier(); /* 11 */
    e2e_barrier(); /* 12 */
    cf_expect(ueq, PTL_EVENT_PUT, "unexpected Put after the headers were consumed");

    /* 4. */
    memset(nbuf, 0, sizeof nbuf);
    ptl_handle_me_t hn = cf_append(ni, PT_N, nbuf, sizeof nbuf, 0x1, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                                   PTL_CT_NONE, PTL_PRIORITY_LIST, nbuf);
    e2e_barrier(); /* 13 */
    e2e_barrier(); /* 14 */
    int got = 0, dropped = 0, rc;
    while ((rc = PtlEQGet(neq, &ev)) == PTL_OK || rc == PTL_EQ_DROPPED) {
        ++got;
        dropped += rc == PTL_EQ_DROPPED;
    }
    E2E_CHECK(got == 2 && dropped == 1, "EQ of 2 without flow control: %d events read, %d PTL_EQ_DROPPED; "
              "expected 2 and 1", got, dropped);
    for (int k = 0; k < 24; ++k)
        if (nbuf[k] != pat(k)) {
            e2e_fail("without flow control every message is delivered: byte %d is 0x%02x", k, nbuf[k]);
            break;
        }

    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlMEUnlink(hn));
    E2E_OK(PtlMEUnlink(ho));
    E2E_OK(PtlMEUnlink(hp));
    E2E_OK(PtlPTFree(ni, PT_F));
    E2E_OK(PtlPTFree(ni, PT_N));
    E2E_OK(PtlPTFree(phys, PT_U));
    E2E_OK(PtlEQFree(feq));
    E2E_OK(PtlEQFree(neq));
    E2E_OK(PtlEQFree(ueq));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);

    /* A physical NI that keeps at most two unexpected headers. */
    ptl_ni_limits_t desired, actual;
    memset(&desired, 0, sizeof desired);
    desired.max_unexpected_headers = 2;
    ptl_handle_ni_t phys;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, &desired, &actual, &phys));
    E2E_CHECK(actual.max_unexpected_headers == 2, "max_unexpected_headers granted %d, asked 2",
              actual.max_unexpected_headers);
    ptl_process_t map[2];
    ptl_size_t map_size;
    E2E_OK(PtlGetMap(ni, 2, map, &map_size));

    if (e2e_rank == 0) {
        e2e_barrier(); /* 1: the owner is set up */
        sender(ni, phys, map[1]);
    } else {
        owner(ni, phys);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(phys));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("flow_control");
}
