/*
 * Completion reporting: full events and counting events.
 *
 * EQ part (rank 0 initiates, rank 1 is the target): SEND, ACK, REPLY at the
 * initiator and PUT, GET at the target, with every field the specification
 * defines for them (mlength, rlength, match_bits, hdr_data, user_ptr,
 * initiator, start, pt_index, remote_offset, ptl_list), truncation, no ACK
 * for PTL_NO_ACK_REQ, PtlEQGet/PtlEQPoll on an empty queue.
 *
 * CT part: MD counters for ACK, REPLY and SEND (PTL_MD_EVENT_CT_*), byte
 * counting, ME counters at the target woken by remote traffic (PtlCTWait),
 * PtlCTGet, PtlCTSet, PtlCTInc, PtlCTPoll.
 */
#include "e2e_common.h"

#include <stdint.h>

#define PT_EV 1
#define PT_CT 2
#define HDR_A 0xCAFEF00D12345678ULL
#define HDR_D 0x0123456789ABCDEFULL

static unsigned char tp[256], tt[256], tg[256], tc[4096], tcb[4096];
static unsigned char src[4096];
/* Distinct addresses used as user_ptr values. */
static char U_put, U_trunc, U_get, U_noack, UT_put, UT_trunc, UT_get;

static unsigned char pat(int salt, size_t i)
{
    return (unsigned char)(salt * 37 + i * 7 + (i >> 5));
}

static void append(ptl_handle_ni_t ni, ptl_pt_index_t pt, void *start,
                   ptl_size_t len, uint64_t bits, unsigned opts,
                   ptl_handle_ct_t ct, void *user_ptr, ptl_handle_me_t *h)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = start;
    me.length = len;
    me.ct_handle = ct;
    me.uid = PTL_UID_ANY;
    me.options = opts | PTL_ME_EVENT_LINK_DISABLE;
    me.match_id.rank = PTL_RANK_ANY;
    me.match_bits = bits;
    me.ignore_bits = 0;
    E2E_OK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, user_ptr, h));
}

static void check_ct(ptl_ct_event_t got, ptl_size_t success,
                     ptl_size_t failure, const char *what)
{
    E2E_CHECK(got.success == success && got.failure == failure,
              "%s: counter is {success %llu, failure %llu}, expected "
              "{%llu, %llu}",
              what, (unsigned long long)got.success,
              (unsigned long long)got.failure, (unsigned long long)success,
              (unsigned long long)failure);
}

/* Next event that is not a SEND when skip_send, checked for kind. */
static ptl_event_t next_event(ptl_handle_eq_t eq, ptl_event_kind_t kind,
                              const char *what)
{
    ptl_event_t ev;
    E2E_OK(PtlEQWait(eq, &ev));
    if (ev.type != kind)
        E2E_DIE("%s: got a %s event, expected %s", what,
                e2e_event_name(ev.type), e2e_event_name(kind));
    E2E_CHECK(ev.ni_fail_type == PTL_NI_OK, "%s: ni_fail_type %d", what,
              ev.ni_fail_type);
    return ev;
}

static void initiator_eq_part(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_handle_md_t md_h;
    ptl_md_t md;
    ptl_event_t ev;
    unsigned int which = 99;

    E2E_OK(PtlEQAlloc(ni, 32, &eq));
    memset(&md, 0, sizeof md);
    md.start = src;
    md.length = sizeof src;
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE;
    E2E_OK(PtlMDBind(ni, &md, &md_h));
    for (size_t i = 0; i < sizeof src; ++i)
        src[i] = pat(1, i);

    /* Empty queue. */
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &ev));
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(&eq, 1, 0, &ev, &which));
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(&eq, 1, 2, &ev, &which));

    /* a) Put with ACK: SEND then ACK. */
    E2E_OK(PtlPut(md_h, 0, 100, PTL_ACK_REQ, e2e_peer(1), PT_EV, 0x10, 0,
                  &U_put, HDR_A));
    ev = next_event(eq, PTL_EVENT_SEND, "Put a, first event");
    E2E_CHECK(ev.user_ptr == &U_put, "Put a: SEND user_ptr %p, expected %p",
              ev.user_ptr, (void *)&U_put);
    ev = next_event(eq, PTL_EVENT_ACK, "Put a, second event");
    E2E_CHECK(ev.user_ptr == &U_put, "Put a: ACK user_ptr %p, expected %p",
              ev.user_ptr, (void *)&U_put);
    E2E_CHECK(ev.mlength == 100, "Put a: ACK mlength %llu, expected 100",
              (unsigned long long)ev.mlength);

    /* b) Put into a shorter entry: the ACK reports the truncated length. */
    E2E_OK(PtlPut(md_h, 0, 100, PTL_ACK_REQ, e2e_peer(1), PT_EV, 0x11, 0,
                  &U_trunc, 0));
    ev = next_event(eq, PTL_EVENT_SEND, "Put b, first event");
    ev = next_event(eq, PTL_EVENT_ACK, "Put b, second event");
    E2E_CHECK(ev.user_ptr == &U_trunc, "Put b: ACK user_ptr %p, expected %p",
              ev.user_ptr, (void *)&U_trunc);
    E2E_CHECK(ev.mlength == 50, "Put b: ACK mlength %llu, expected 50",
              (unsigned long long)ev.mlength);

    /* c) Get: REPLY only, no SEND. */
    memset(src + 1024, 0, 200);
    E2E_OK(PtlGet(md_h, 1024, 200, e2e_peer(1), PT_EV, 0x20, 0, &U_get));
    ev = next_event(eq, PTL_EVENT_REPLY, "Get c");
    E2E_CHECK(ev.user_ptr == &U_get, "Get c: REPLY user_ptr %p, expected %p",
              ev.user_ptr, (void *)&U_get);
    E2E_CHECK(ev.mlength == 200, "Get c: REPLY mlength %llu, expected 200",
              (unsigned long long)ev.mlength);
    for (size_t i = 0; i < 200; ++i)
        if (src[1024 + i] != pat(9, i)) {
            e2e_fail("Get c: byte %zu is 0x%02x, expected 0x%02x", i,
                     src[1024 + i], pat(9, i));
            break;
        }

    /* d) Put without ACK: a SEND event and nothing else. */
    E2E_OK(PtlPut(md_h, 0, 10, PTL_NO_ACK_REQ, e2e_peer(1), PT_EV, 0x10, 0,
                  &U_noack, HDR_D));
    ev = next_event(eq, PTL_EVENT_SEND, "Put d");
    E2E_CHECK(ev.user_ptr == &U_noack, "Put d: SEND user_ptr %p, expected %p",
              ev.user_ptr, (void *)&U_noack);

    e2e_barrier(); /* 1: all sent */
    e2e_barrier(); /* 2: the target has seen all four messages */
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &ev));
    if (ev.type == PTL_EVENT_ACK)
        e2e_fail("an ACK arrived for a PTL_NO_ACK_REQ Put");

    E2E_OK(PtlMDRelease(md_h));
    E2E_OK(PtlEQFree(eq));
}

static void target_eq_part(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    ptl_handle_me_t h_p, h_t, h_g;
    ptl_event_t ev;

    E2E_OK(PtlEQAlloc(ni, 32, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_EV, &pt));
    for (size_t i = 0; i < sizeof tg; ++i)
        tg[i] = pat(9, i);
    append(ni, PT_EV, tp, sizeof tp, 0x10, PTL_ME_OP_PUT, PTL_CT_NONE,
           &UT_put, &h_p);
    append(ni, PT_EV, tt, 50, 0x11, PTL_ME_OP_PUT, PTL_CT_NONE, &UT_trunc,
           &h_t);
    append(ni, PT_EV, tg, sizeof tg, 0x20, PTL_ME_OP_GET, PTL_CT_NONE,
           &UT_get, &h_g);

    e2e_barrier(); /* 0: entries are posted (done by the caller's peer too) */
    e2e_barrier(); /* 1 */

    ev = next_event(eq, PTL_EVENT_PUT, "target, Put a");
    E2E_CHECK(ev.user_ptr == &UT_put, "Put a: PUT user_ptr %p, expected %p",
              ev.user_ptr, (void *)&UT_put);
    E2E_CHECK(ev.start == tp, "Put a: start %p, expected %p", ev.start,
              (void *)tp);
    E2E_CHECK(ev.match_bits == 0x10, "Put a: match_bits 0x%llx",
              (unsigned long long)ev.match_bits);
    E2E_CHECK(ev.hdr_data == HDR_A, "Put a: hdr_data 0x%llx, expected 0x%llx",
              (unsigned long long)ev.hdr_data, HDR_A);
    E2E_CHECK(ev.rlength == 100 && ev.mlength == 100,
              "Put a: rlength %llu mlength %llu, expected 100 100",
              (unsigned long long)ev.rlength, (unsigned long long)ev.mlength);
    E2E_CHECK(ev.remote_offset == 0, "Put a: remote_offset %llu",
              (unsigned long long)ev.remote_offset);
    E2E_CHECK(ev.initiator.rank == 0, "Put a: initiator rank %u",
              ev.initiator.rank);
    E2E_CHECK(ev.pt_index == PT_EV, "Put a: pt_index %u", ev.pt_index);
    E2E_CHECK(ev.ptl_list == PTL_PRIORITY_LIST, "Put a: ptl_list %d",
              ev.ptl_list);
    for (size_t i = 0; i < 100; ++i)
        if (tp[i] != pat(1, i)) {
            e2e_fail("Put a: byte %zu is 0x%02x", i, tp[i]);
            break;
        }

    ev = next_event(eq, PTL_EVENT_PUT, "target, Put b");
    E2E_CHECK(ev.user_ptr == &UT_trunc, "Put b: PUT user_ptr %p, expected %p",
              ev.user_ptr, (void *)&UT_trunc);
    E2E_CHECK(ev.rlength == 100 && ev.mlength == 50,
              "Put b: rlength %llu mlength %llu, expected 100 50",
              (unsigned long long)ev.rlength, (unsigned long long)ev.mlength);
    E2E_CHECK(ev.match_bits == 0x11, "Put b: match_bits 0x%llx",
              (unsigned long long)ev.match_bits);
    E2E_CHECK(tt[49] == pat(1, 49) && tt[50] == 0,
              "Put b: truncation boundary wrong (byte 49 0x%02x, byte 50 "
              "0x%02x)", tt[49], tt[50]);

    ev = next_event(eq, PTL_EVENT_GET, "target, Get c");
    E2E_CHECK(ev.user_ptr == &UT_get, "Get c: GET user_ptr %p, expected %p",
              ev.user_ptr, (void *)&UT_get);
    E2E_CHECK(ev.rlength == 200 && ev.mlength == 200,
              "Get c: rlength %llu mlength %llu, expected 200 200",
              (unsigned long long)ev.rlength, (unsigned long long)ev.mlength);
    E2E_CHECK(ev.match_bits == 0x20, "Get c: match_bits 0x%llx",
              (unsigned long long)ev.match_bits);
    E2E_CHECK(ev.initiator.rank == 0, "Get c: initiator rank %u",
              ev.initiator.rank);
    E2E_CHECK(ev.start == tg, "Get c: start %p, expected %p", ev.start,
              (void *)tg);

    ev = next_event(eq, PTL_EVENT_PUT, "target, Put d");
    E2E_CHECK(ev.hdr_data == HDR_D && ev.mlength == 10 &&
                  ev.user_ptr == &UT_put,
              "Put d: hdr_data 0x%llx mlength %llu user_ptr %p",
              (unsigned long long)ev.hdr_data, (unsigned long long)ev.mlength,
              ev.user_ptr);

    e2e_barrier(); /* 2 */
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &ev));
    E2E_OK(PtlMEUnlink(h_p));
    E2E_OK(PtlMEUnlink(h_t));
    E2E_OK(PtlMEUnlink(h_g));
    E2E_OK(PtlPTFree(ni, PT_EV));
    E2E_OK(PtlEQFree(eq));
}

static void initiator_ct_part(ptl_handle_ni_t ni)
{
    ptl_handle_ct_t ct, ctb, cts;
    ptl_handle_md_t md_c, md_b, md_s;
    ptl_md_t md;
    ptl_ct_event_t v;
    unsigned int which = 99;

    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlCTAlloc(ni, &ctb));
    E2E_OK(PtlCTAlloc(ni, &cts));
    E2E_OK(PtlCTGet(ct, &v));
    check_ct(v, 0, 0, "new counter");

    memset(&md, 0, sizeof md);
    md.start = src;
    md.length = sizeof src;
    md.eq_handle = PTL_EQ_NONE;
    md.ct_handle = ct;
    md.options = PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_REPLY;
    E2E_OK(PtlMDBind(ni, &md, &md_c));
    md.ct_handle = ctb;
    md.options = PTL_MD_EVENT_CT_ACK | PTL_MD_EVENT_CT_BYTES;
    E2E_OK(PtlMDBind(ni, &md, &md_b));
    md.ct_handle = cts;
    md.options = PTL_MD_EVENT_CT_SEND;
    E2E_OK(PtlMDBind(ni, &md, &md_s));

    for (size_t i = 0; i < sizeof src; ++i)
        src[i] = pat(3, i);
    memset(src + 2048, 0, 1024);

    e2e_barrier(); /* 3: target counters are posted */

    for (int i = 0; i < 5; ++i)
        E2E_OK(PtlPut(md_c, (ptl_size_t)i * 64, 64, PTL_CT_ACK_REQ,
                      e2e_peer(1), PT_CT, 0x30, (ptl_size_t)i * 64, NULL, 0));
    E2E_OK(PtlCTWait(ct, 5, &v));
    check_ct(v, 5, 0, "after 5 acknowledged Puts");

    for (int i = 0; i < 3; ++i)
        E2E_OK(PtlGet(md_c, 2048 + (ptl_size_t)i * 64, 64, e2e_peer(1), PT_CT,
                      0x30, (ptl_size_t)i * 64, NULL));
    E2E_OK(PtlCTWait(ct, 8, &v));
    check_ct(v, 8, 0, "after 3 Gets");
    E2E_OK(PtlCTGet(ct, &v));
    check_ct(v, 8, 0, "PtlCTGet after 3 Gets");
    for (size_t i = 0; i < 192; ++i)
        if (src[2048 + i] != pat(3, i)) {
            e2e_fail("CT Get: byte %zu is 0x%02x, expected 0x%02x", i,
                     src[2048 + i], pat(3, i));
            break;
        }

    for (int i = 0; i < 3; ++i)
        E2E_OK(PtlPut(md_b, 0, 100, PTL_CT_ACK_REQ, e2e_peer(1), PT_CT, 0x31,
                      (ptl_size_t)i * 100, NULL, 0));
    E2E_OK(PtlCTWait(ctb, 300, &v));
    check_ct(v, 300, 0, "byte counter after 3 Puts of 100 B");

    for (int i = 0; i < 2; ++i)
        E2E_OK(PtlPut(md_s, 0, 8, PTL_NO_ACK_REQ, e2e_peer(1), PT_CT, 0x31,
                      1000, NULL, 0));
    E2E_OK(PtlCTWait(cts, 2, &v));
    check_ct(v, 2, 0, "SEND counter after 2 Puts");

    /* Local manipulation. */
    ptl_ct_event_t set10 = {10, 0}, inc5 = {5, 0}, fail2 = {0, 2},
                   zero = {0, 0};
    E2E_OK(PtlCTSet(ct, set10));
    E2E_OK(PtlCTGet(ct, &v));
    check_ct(v, 10, 0, "after PtlCTSet {10, 0}");
    E2E_OK(PtlCTInc(ct, inc5));
    E2E_OK(PtlCTGet(ct, &v));
    check_ct(v, 15, 0, "after PtlCTInc {5, 0}");
    E2E_OK(PtlCTWait(ct, 15, &v));
    check_ct(v, 15, 0, "PtlCTWait on a reached value");
    E2E_OK(PtlCTInc(ct, fail2));
    E2E_OK(PtlCTGet(ct, &v));
    check_ct(v, 15, 2, "after PtlCTInc {0, 2}");
    E2E_OK(PtlCTSet(ct, zero));
    E2E_OK(PtlCTGet(ct, &v));
    check_ct(v, 0, 0, "after PtlCTSet {0, 0}");
    ptl_size_t test = 1;
    E2E_EXPECT_RC(PTL_CT_NONE_REACHED,
                  PtlCTPoll(&ct, &test, 1, 0, &v, &which));
    E2E_OK(PtlCTInc(ct, inc5));
    E2E_OK(PtlCTPoll(&ct, &test, 1, 0, &v, &which));
    E2E_CHECK(which == 0, "PtlCTPoll: which %u, expected 0", which);
    check_ct(v, 5, 0, "PtlCTPoll result");

    e2e_barrier(); /* 4 */
    E2E_OK(PtlMDRelease(md_c));
    E2E_OK(PtlMDRelease(md_b));
    E2E_OK(PtlMDRelease(md_s));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlCTFree(ctb));
    E2E_OK(PtlCTFree(cts));
}

static void target_ct_part(ptl_handle_ni_t ni)
{
    ptl_handle_ct_t ct, ctb;
    ptl_pt_index_t pt;
    ptl_handle_me_t h_c, h_b;
    ptl_ct_event_t v;

    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlCTAlloc(ni, &ctb));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_CT, &pt));
    append(ni, PT_CT, tc, sizeof tc, 0x30,
           PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_CT_COMM, ct, NULL,
           &h_c);
    append(ni, PT_CT, tcb, sizeof tcb, 0x31,
           PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_CT_BYTES, ctb,
           NULL, &h_b);

    e2e_barrier(); /* 3 */
    /* Blocks until rank 0's traffic arrives: 5 Puts + 3 Gets. */
    E2E_OK(PtlCTWait(ct, 8, &v));
    check_ct(v, 8, 0, "target counter after 5 Puts and 3 Gets");
    E2E_OK(PtlCTWait(ctb, 316, &v));
    check_ct(v, 316, 0, "target byte counter after 3x100 B + 2x8 B");
    for (size_t i = 0; i < 320; ++i)
        if (tc[i] != pat(3, i)) {
            e2e_fail("CT Put: target byte %zu is 0x%02x, expected 0x%02x", i,
                     tc[i], pat(3, i));
            break;
        }

    e2e_barrier(); /* 4 */
    E2E_OK(PtlMEUnlink(h_c));
    E2E_OK(PtlMEUnlink(h_b));
    E2E_OK(PtlPTFree(ni, PT_CT));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlCTFree(ctb));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);

    if (e2e_rank == 0) {
        e2e_barrier(); /* 0 */
        initiator_eq_part(ni);
        initiator_ct_part(ni);
    } else {
        target_eq_part(ni);
        target_ct_part(ni);
    }

    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("eq_ct_events");
}
