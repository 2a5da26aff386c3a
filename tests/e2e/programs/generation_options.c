/*
 * The options that only the current generation of Sandia's portals4.h names
 * (docs/sandia-abi-generations.md), as the header's documentation and the
 * specification describe them:
 *  1. PTL_PT_ALLOC_DISABLED: PtlPTAlloc allocates the entry disabled (what
 *     PtlPTAlloc checks is unchanged); entries may be appended to it; a
 *     message to it fails as at any disabled entry (PTL_NI_PT_DISABLED in the
 *     initiator's ACK and REPLY, counted as a drop, no event at the target,
 *     nothing written or read) until PtlPTEnable opens it;
 *  2. PTL_MD_UNRELIABLE: PtlMDBind accepts it; a Put without acknowledgment
 *     from such an MD (small, large, triggered) is delivered and complete
 *     with its SEND event; an acknowledged Put, a Get, the atomics and the
 *     triggered forms of those are refused with PTL_ARG_INVALID (the
 *     specification leaves them undefined). With the argument "loss" (one
 *     rank, run with --cfg=s4bxi/fault-drop-at:0/put, test_reliability.cpp):
 *     the first unreliable Put is lost for good, never sent again, and its
 *     SEND event comes all the same;
 *  3. PTL_ME_LOCAL_INC_UH_RLENGTH: a persistent, locally managed ME appended
 *     to the priority list moves its local offset by the rlength of each
 *     matching unexpected header it takes; min_free is checked after each
 *     header, and an ME left with less is not linked (PTL_EVENT_AUTO_UNLINK,
 *     none with PTL_ME_EVENT_UNLINK_DISABLE; the headers after it stay; a
 *     PtlMEUnlink of its handle answers PTL_OK, as Sandia's does); the
 *     next message lands at the moved offset (PTL_ME_MAY_ALIGN, ignored with
 *     the option, changes nothing); without the option the offset stays;
 *  4. counting searches: PtlMESearch/PtlLESearch with a counter count each
 *     match as a success (its mlength with PTL_ME_EVENT_CT_BYTES),
 *     SEARCH_ONLY and SEARCH_DELETE alike, and the end of a persistent
 *     entry's search as one failure; a use-once entry takes one header and
 *     counts a failure only when nothing matched; with or without
 *     PTL_ME_EVENT_CT_OVERFLOW (search_counters.c has Sandia's own cases).
 * Ranks pair up (0 sends to 1, 2 to 3, ...); a rank without a partner (one
 * rank, or the last of an odd number) sends to itself.
 */
#include "conformance_common.h"

#ifndef PTL_ME_LOCAL_INC_UH_RLENGTH
#error "generation_options.c is for the current generation of Sandia's portals4.h"
#endif

#define PT_D 20 /* allocated disabled */
#define PT_R 21 /* unreliable Puts */
#define PT_U 22 /* unexpected headers for PTL_ME_LOCAL_INC_UH_RLENGTH */
#define PT_S 23 /* unexpected headers for counting searches */
#define PT_L 24 /* the same, non-matching NI */

#define LARGE 4096
#define NCTS 10

static unsigned char src[2 * LARGE], got[64];
static unsigned char dbuf[64], rbuf[2 * LARGE], uover[256], sover[256], lover[256];
static unsigned char abuf[48], bbuf[64], cbuf[64], dmebuf[40], pbuf[64];
static char U_a, U_b, U_c, U_d, U_s, U_l;

static int partner;
static int sends, receives;

static unsigned char pat(size_t i) { return (unsigned char)(i * 7 + 3); }

/* The initiator's objects. */
static struct {
    ptl_process_t peer;
    ptl_handle_eq_t eq, eq2;
    ptl_handle_ct_t trig, uct;
    ptl_handle_md_t md, rmd, md2, umd;
} I;

/* The target's objects. */
static struct {
    ptl_handle_eq_t deq, ueq, seq, leq;
    ptl_handle_ct_t rct, cts[NCTS], lct;
    ptl_handle_me_t dme, rme, uover, sover, hb, hc;
    ptl_handle_le_t lover;
    ptl_sr_value_t drops;
} T;

static ptl_handle_me_t overflow_me(ptl_handle_ni_t ni, ptl_pt_index_t pt, unsigned char *buf, ptl_size_t length)
{
    ptl_me_t me = cf_me(buf, length, 0,
                        PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE,
                        PTL_CT_NONE);
    me.ignore_bits = ~(ptl_match_bits_t)0;
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(ni, pt, &me, PTL_OVERFLOW_LIST, NULL, &h));
    return h;
}

static void target_setup(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 16, &T.deq));
    E2E_OK(PtlEQAlloc(ni, 64, &T.ueq));
    E2E_OK(PtlEQAlloc(ni, 64, &T.seq));
    E2E_OK(PtlEQAlloc(ni2, 16, &T.leq));
    E2E_OK(PtlCTAlloc(ni, &T.rct));
    for (int i = 0; i < NCTS; ++i)
        E2E_OK(PtlCTAlloc(ni, &T.cts[i]));
    E2E_OK(PtlCTAlloc(ni2, &T.lct));

    /* 1. */
    E2E_EXPECT_RC(PTL_PT_EQ_NEEDED, PtlPTAlloc(ni, PTL_PT_ALLOC_DISABLED | PTL_PT_FLOWCTRL, PTL_EQ_NONE, PT_D, &pt));
    E2E_OK(PtlPTAlloc(ni, PTL_PT_ALLOC_DISABLED, T.deq, PT_D, &pt));
    E2E_CHECK(pt == PT_D, "PtlPTAlloc gave index %u, asked for %d", pt, PT_D);
    for (int i = 0; i < 8; ++i)
        dbuf[32 + i] = (unsigned char)(0xD0 + i);
    T.dme = cf_append(ni, PT_D, dbuf, sizeof dbuf, 0x1, PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE,
                      PTL_CT_NONE, PTL_PRIORITY_LIST, dbuf);

    /* 2. */
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_R, &pt));
    T.rme = cf_append(ni, PT_R, rbuf, sizeof rbuf, 0x2,
                      PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE,
                      T.rct, PTL_PRIORITY_LIST, NULL);

    /* 3 and 4: overflow entries that keep every header. */
    E2E_OK(PtlPTAlloc(ni, 0, T.ueq, PT_U, &pt));
    T.uover = overflow_me(ni, PT_U, uover, sizeof uover);
    E2E_OK(PtlPTAlloc(ni, 0, T.seq, PT_S, &pt));
    T.sover = overflow_me(ni, PT_S, sover, sizeof sover);
    E2E_OK(PtlPTAlloc(ni2, 0, T.leq, PT_L, &pt));
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = lover;
    le.length = sizeof lover;
    le.ct_handle = PTL_CT_NONE;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_LINK_DISABLE;
    E2E_OK(PtlLEAppend(ni2, PT_L, &le, PTL_OVERFLOW_LIST, NULL, &T.lover));

    E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &T.drops));
}

static void initiator_setup(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    I.peer = e2e_peer(partner);
    E2E_OK(PtlEQAlloc(ni, 64, &I.eq));
    E2E_OK(PtlEQAlloc(ni2, 16, &I.eq2));
    E2E_OK(PtlCTAlloc(ni, &I.trig));
    E2E_OK(PtlCTAlloc(ni, &I.uct));
    I.md = cf_bind(ni, src, sizeof src, 0, I.eq, PTL_CT_NONE);
    I.rmd = cf_bind(ni, got, sizeof got, 0, I.eq, PTL_CT_NONE);
    I.md2 = cf_bind(ni2, src, sizeof src, 0, I.eq2, PTL_CT_NONE);
    I.umd = cf_bind(ni, src, sizeof src, PTL_MD_UNRELIABLE | PTL_MD_EVENT_CT_SEND, I.eq, I.uct);
}

static void put_acked(ptl_handle_md_t md, ptl_handle_eq_t eq, ptl_size_t offset, ptl_size_t length,
                      ptl_pt_index_t pt, ptl_match_bits_t bits, ptl_hdr_data_t hdr, const char *what)
{
    E2E_OK(PtlPut(md, offset, length, PTL_ACK_REQ, I.peer, pt, bits, 0, NULL, hdr));
    cf_expect(eq, PTL_EVENT_ACK, what);
}

/* 2: what an unreliable MD may and may not do. */
static void unreliable_puts(void)
{
    const ptl_handle_md_t umd = I.umd;
    int64_t operand = 1;
    E2E_OK(PtlPut(umd, 0, 8, PTL_NO_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 41));
    cf_expect(I.eq, PTL_EVENT_SEND, "unreliable Put");

    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(umd, 0, 8, PTL_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 0));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(umd, 0, 8, PTL_CT_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 0));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(umd, 0, 8, PTL_OC_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 0));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlGet(umd, 0, 8, I.peer, PT_R, 0x2, 0, NULL));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlAtomic(umd, 0, 8, PTL_NO_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 0, PTL_SUM, PTL_INT64_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlFetchAtomic(umd, 0, I.md, 0, 8, I.peer, PT_R, 0x2, 0, NULL, 0, PTL_SUM, PTL_INT64_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlFetchAtomic(I.rmd, 0, umd, 0, 8, I.peer, PT_R, 0x2, 0, NULL, 0, PTL_SUM, PTL_INT64_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlSwap(I.rmd, 0, umd, 0, 8, I.peer, PT_R, 0x2, 0, NULL, 0, &operand, PTL_SWAP, PTL_INT64_T));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlTriggeredPut(umd, 0, 8, PTL_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 0, I.trig, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredGet(umd, 0, 8, I.peer, PT_R, 0x2, 0, NULL, I.trig, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredAtomic(umd, 0, 8, PTL_NO_ACK_REQ, I.peer, PT_R, 0x2, 0, NULL, 0,
                                                      PTL_SUM, PTL_INT64_T, I.trig, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredFetchAtomic(I.rmd, 0, umd, 0, 8, I.peer, PT_R, 0x2, 0, NULL, 0,
                                                           PTL_SUM, PTL_INT64_T, I.trig, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredSwap(I.rmd, 0, umd, 0, 8, I.peer, PT_R, 0x2, 0, NULL, 0, &operand,
                                                    PTL_SWAP, PTL_INT64_T, I.trig, 1));
    cf_expect_empty(I.eq, "refused operations leave no event");

    /* Triggered, without acknowledgment: allowed. */
    E2E_OK(PtlTriggeredPut(umd, 8, 8, PTL_NO_ACK_REQ, I.peer, PT_R, 0x2, 8, NULL, 42, I.trig, 1));
    cf_expect_empty(I.eq, "the triggered unreliable Put waits for its threshold");
    ptl_ct_event_t one = {1, 0};
    E2E_OK(PtlCTInc(I.trig, one));
    cf_expect(I.eq, PTL_EVENT_SEND, "triggered unreliable Put");

    /* Large (read from host memory by the NIC): SEND once it is read. */
    E2E_OK(PtlPut(umd, LARGE, LARGE, PTL_NO_ACK_REQ, I.peer, PT_R, 0x2, 64, NULL, 43));
    cf_expect(I.eq, PTL_EVENT_SEND, "large unreliable Put");
    cf_wait_ct(I.uct, 3, 0, "PTL_MD_EVENT_CT_SEND of the unreliable MD");
    /* Complete with their SEND events: the MD is free. */
    E2E_EXPECT_RC(PTL_OK, PtlMDRelease(umd));
}

static void initiator_phase1(void)
{
    /* 1. */
    E2E_OK(PtlPut(I.md, 0, 8, PTL_ACK_REQ, I.peer, PT_D, 0x1, 0, NULL, 1));
    cf_expect_fail(I.eq, PTL_EVENT_ACK, PTL_NI_PT_DISABLED, 1, "Put to an entry allocated disabled");
    E2E_OK(PtlGet(I.rmd, 0, 8, I.peer, PT_D, 0x1, 32, NULL));
    cf_expect_fail(I.eq, PTL_EVENT_REPLY, PTL_NI_PT_DISABLED, 1, "Get from an entry allocated disabled");
    for (int i = 0; i < 8; ++i)
        E2E_CHECK(got[i] == 0, "the Get from a disabled entry brought data (byte %d is 0x%02x)", i, got[i]);

    /* 2. */
    unreliable_puts();

    /* 3: five headers of 8 bytes, two of 16, two of 32. */
    for (int k = 0; k < 5; ++k)
        put_acked(I.md, I.eq, (ptl_size_t)k * 8, 8, PT_U, 0x55, 1 + k, "unexpected Put, 8 B");
    for (int k = 0; k < 2; ++k)
        put_acked(I.md, I.eq, 64 + (ptl_size_t)k * 16, 16, PT_U, 0x66, 6 + k, "unexpected Put, 16 B");
    for (int k = 0; k < 2; ++k)
        put_acked(I.md, I.eq, 128 + (ptl_size_t)k * 32, 32, PT_U, 0x77, 8 + k, "unexpected Put, 32 B");

    /* 4: three headers of 8 bytes and one of 16; two on the non-matching NI. */
    for (int k = 0; k < 3; ++k)
        put_acked(I.md, I.eq, 200 + (ptl_size_t)k * 8, 8, PT_S, 0x10, 21 + k, "unexpected Put to search");
    put_acked(I.md, I.eq, 240, 16, PT_S, 0x20, 24, "unexpected Put to search, 16 B");
    for (int k = 0; k < 2; ++k) { /* an LE places by remote offset */
        E2E_OK(PtlPut(I.md2, 300 + (ptl_size_t)k * 8, 8, PTL_ACK_REQ, I.peer, PT_L, 0, (ptl_size_t)k * 8, NULL,
                      31 + (ptl_hdr_data_t)k));
        cf_expect(I.eq2, PTL_EVENT_ACK, "unexpected Put to an LE");
    }
}

static void expect_overflow(ptl_handle_eq_t eq, ptl_event_kind_t kind, const unsigned char *buf, size_t offset,
                            ptl_size_t rlength, ptl_hdr_data_t hdr, void *user_ptr, const char *what)
{
    ptl_event_t ev = cf_expect(eq, kind, what);
    E2E_CHECK(ev.hdr_data == hdr && ev.rlength == rlength && ev.mlength == rlength &&
                  ev.start == (const void *)(buf + offset) && ev.user_ptr == user_ptr &&
                  ev.ptl_list == PTL_OVERFLOW_LIST,
              "%s: %s with hdr_data %llu (expected %llu), rlength %llu mlength %llu (expected %llu), start %p "
              "(expected %p), user_ptr %p (expected %p), ptl_list %d",
              what, e2e_event_name(ev.type), (unsigned long long)ev.hdr_data, (unsigned long long)hdr,
              (unsigned long long)ev.rlength, (unsigned long long)ev.mlength, (unsigned long long)rlength, ev.start,
              (const void *)(buf + offset), ev.user_ptr, user_ptr, (int)ev.ptl_list);
}

static ptl_handle_me_t append_inc(ptl_handle_ni_t ni, unsigned char *buf, ptl_size_t length, ptl_size_t min_free,
                                  ptl_match_bits_t bits, unsigned options, void *user_ptr)
{
    ptl_me_t me = cf_me(buf, length, bits, PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | options, PTL_CT_NONE);
    me.min_free = min_free;
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(ni, PT_U, &me, PTL_PRIORITY_LIST, user_ptr, &h));
    return h;
}

/* 3. The headers sit in `uover` one after the other: 5 x 8 B (0x55) from 0,
 * 2 x 16 B (0x66) from 40, 2 x 32 B (0x77) from 72. */
static void local_inc_uh_rlength(ptl_handle_ni_t ni)
{
    /* 48 bytes, min_free 30: 8, 16, then 24 taken leaves 24 < 30. */
    ptl_handle_me_t h = append_inc(ni, abuf, sizeof abuf, 30, 0x55, PTL_ME_LOCAL_INC_UH_RLENGTH, &U_a);
    for (int k = 0; k < 3; ++k)
        expect_overflow(T.ueq, PTL_EVENT_PUT_OVERFLOW, uover, (size_t)k * 8, 8, 1 + k, &U_a,
                        "PTL_ME_LOCAL_INC_UH_RLENGTH, headers taken until min_free");
    ptl_event_t ev = cf_expect(T.ueq, PTL_EVENT_AUTO_UNLINK, "less than min_free left after the third header");
    E2E_CHECK(ev.user_ptr == &U_a && ev.pt_index == PT_U, "AUTO_UNLINK: user_ptr %p (expected %p), pt_index %u",
              ev.user_ptr, (void *)&U_a, ev.pt_index);
    cf_expect_empty(T.ueq, "the used-up ME is not linked");
    E2E_OK(PtlMEUnlink(h)); /* never linked, but its handle is the program's to unlink */

    /* 64 bytes, min_free 8: the two headers left (16 B) are taken, it links;
     * PTL_ME_MAY_ALIGN is ignored. */
    T.hb = append_inc(ni, bbuf, sizeof bbuf, 8, 0x55, PTL_ME_LOCAL_INC_UH_RLENGTH | PTL_ME_MAY_ALIGN, &U_b);
    for (int k = 0; k < 2; ++k)
        expect_overflow(T.ueq, PTL_EVENT_PUT_OVERFLOW, uover, 24 + (size_t)k * 8, 8, 4 + k, &U_b,
                        "PTL_ME_LOCAL_INC_UH_RLENGTH, room left");
    ev = cf_expect(T.ueq, PTL_EVENT_LINK, "PTL_ME_LOCAL_INC_UH_RLENGTH with room left links");
    E2E_CHECK(ev.user_ptr == &U_b, "LINK user_ptr %p, expected %p", ev.user_ptr, (void *)&U_b);

    /* Without the option the local offset does not move. */
    T.hc = append_inc(ni, cbuf, sizeof cbuf, 8, 0x66, 0, &U_c);
    for (int k = 0; k < 2; ++k)
        expect_overflow(T.ueq, PTL_EVENT_PUT_OVERFLOW, uover, 40 + (size_t)k * 16, 16, 6 + k, &U_c,
                        "PTL_ME_MANAGE_LOCAL alone");
    cf_expect(T.ueq, PTL_EVENT_LINK, "PTL_ME_MANAGE_LOCAL alone links");

    /* 40 bytes, min_free 16: the first 32-byte header leaves 8; silently. */
    h = append_inc(ni, dmebuf, sizeof dmebuf, 16, 0x77, PTL_ME_LOCAL_INC_UH_RLENGTH | PTL_ME_EVENT_UNLINK_DISABLE,
                   &U_d);
    expect_overflow(T.ueq, PTL_EVENT_PUT_OVERFLOW, uover, 72, 32, 8, &U_d, "PTL_ME_EVENT_UNLINK_DISABLE");
    cf_expect_empty(T.ueq, "PTL_ME_EVENT_UNLINK_DISABLE: neither AUTO_UNLINK nor LINK");
    E2E_OK(PtlMEUnlink(h));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(h)); /* once */
    /* The header after the one that used it up is still unexpected. */
    ptl_me_t pattern = cf_me(pbuf, sizeof pbuf, 0x77, PTL_ME_OP_PUT, PTL_CT_NONE);
    E2E_OK(PtlMESearch(ni, PT_U, &pattern, PTL_SEARCH_ONLY, &U_d));
    expect_overflow(T.ueq, PTL_EVENT_SEARCH, uover, 104, 32, 9, &U_d, "the header not taken");
    E2E_OK(PtlMESearch(ni, PT_U, &pattern, PTL_SEARCH_DELETE, &U_d));
    expect_overflow(T.ueq, PTL_EVENT_PUT_OVERFLOW, uover, 104, 32, 9, &U_d, "the header not taken, deleted");
    cf_expect_empty(T.ueq, "PTL_ME_LOCAL_INC_UH_RLENGTH checks");
}

static void search(ptl_handle_ni_t ni, ptl_match_bits_t bits, unsigned options, ptl_handle_ct_t ct,
                   ptl_search_op_t op)
{
    ptl_me_t me = cf_me(pbuf, sizeof pbuf, bits, PTL_ME_OP_PUT | options, ct);
    E2E_OK(PtlMESearch(ni, PT_S, &me, op, &U_s));
}

/* `n` events of `kind` for the headers from `first` on (8 bytes apart in
 * `buf`, from `offset`), then nothing. */
static void expect_found(ptl_handle_eq_t eq, ptl_event_kind_t kind, int n, ptl_hdr_data_t first, const unsigned char *buf,
                         size_t offset, ptl_size_t rlength, void *user_ptr, const char *what)
{
    for (int k = 0; k < n; ++k)
        expect_overflow(eq, kind, buf, offset + (size_t)k * rlength, rlength, first + (ptl_hdr_data_t)k, user_ptr,
                        what);
    cf_expect_empty(eq, what);
}

static void expect_no_match(ptl_handle_eq_t eq, void *user_ptr, const char *what)
{
    ptl_event_t ev = cf_expect_fail(eq, PTL_EVENT_SEARCH, PTL_NI_NO_MATCH, 0, what);
    E2E_CHECK(ev.user_ptr == user_ptr, "%s: user_ptr %p, expected %p", what, ev.user_ptr, user_ptr);
    cf_expect_empty(eq, what);
}

/* 4. The headers sit in `sover`: 3 x 8 B (0x10, hdr_data 21-23) from 0, then
 * 16 B (0x20, hdr_data 24) at 24; in `lover`: 2 x 8 B (hdr_data 31, 32). */
static void counting_searches(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    const ptl_handle_ct_t *ct = T.cts;
    const unsigned over = PTL_ME_EVENT_CT_OVERFLOW;

    /* SEARCH_ONLY: a success per match, a failure for the end; headers kept.
     * Counted before the call returns, as Sandia's implementation does. */
    search(ni, 0x10, over, ct[0], PTL_SEARCH_ONLY);
    cf_check_ct(ct[0], 3, 1, "SEARCH_ONLY: counted before PtlMESearch returns");
    expect_found(T.seq, PTL_EVENT_SEARCH, 3, 21, sover, 0, 8, &U_s, "SEARCH_ONLY");
    cf_wait_ct(ct[0], 3, 1, "SEARCH_ONLY: three matches, then the end");
    search(ni, 0x10, over, ct[0], PTL_SEARCH_ONLY);
    expect_found(T.seq, PTL_EVENT_SEARCH, 3, 21, sover, 0, 8, &U_s, "SEARCH_ONLY again");
    cf_wait_ct(ct[0], 6, 2, "SEARCH_ONLY again");
    search(ni, 0x10, over | PTL_ME_USE_ONCE, ct[1], PTL_SEARCH_ONLY);
    expect_found(T.seq, PTL_EVENT_SEARCH, 1, 21, sover, 0, 8, &U_s, "use-once SEARCH_ONLY");
    cf_wait_ct(ct[1], 1, 0, "use-once SEARCH_ONLY with a match: no failure");
    search(ni, 0x99, over, ct[2], PTL_SEARCH_ONLY);
    expect_no_match(T.seq, &U_s, "SEARCH_ONLY without a match");
    cf_wait_ct(ct[2], 0, 1, "SEARCH_ONLY without a match");
    search(ni, 0x99, over | PTL_ME_USE_ONCE, ct[3], PTL_SEARCH_ONLY);
    expect_no_match(T.seq, &U_s, "use-once SEARCH_ONLY without a match");
    cf_wait_ct(ct[3], 0, 1, "use-once SEARCH_ONLY without a match");
    search(ni, 0x10, 0, ct[4], PTL_SEARCH_ONLY);
    cf_check_ct(ct[4], 3, 1, "SEARCH_ONLY without PTL_ME_EVENT_CT_OVERFLOW counts all the same");
    expect_found(T.seq, PTL_EVENT_SEARCH, 3, 21, sover, 0, 8, &U_s, "SEARCH_ONLY without PTL_ME_EVENT_CT_OVERFLOW");
    search(ni, 0x20, over | PTL_ME_EVENT_CT_BYTES, ct[5], PTL_SEARCH_ONLY);
    expect_found(T.seq, PTL_EVENT_SEARCH, 1, 24, sover, 24, 16, &U_s, "SEARCH_ONLY, PTL_ME_EVENT_CT_BYTES");
    cf_wait_ct(ct[5], 16, 1, "SEARCH_ONLY, PTL_ME_EVENT_CT_BYTES counts the mlength");

    /* SEARCH_DELETE: the same counts; the headers go. */
    search(ni, 0x10, over | PTL_ME_USE_ONCE, ct[6], PTL_SEARCH_DELETE);
    expect_found(T.seq, PTL_EVENT_PUT_OVERFLOW, 1, 21, sover, 0, 8, &U_s, "use-once SEARCH_DELETE");
    cf_wait_ct(ct[6], 1, 0, "use-once SEARCH_DELETE with a match: no failure");
    search(ni, 0x10, over, ct[7], PTL_SEARCH_DELETE);
    cf_check_ct(ct[7], 2, 1, "SEARCH_DELETE: counted before PtlMESearch returns");
    expect_found(T.seq, PTL_EVENT_PUT_OVERFLOW, 2, 22, sover, 8, 8, &U_s, "SEARCH_DELETE");
    cf_wait_ct(ct[7], 2, 1, "SEARCH_DELETE: two matches, then the end");
    search(ni, 0x10, over, ct[7], PTL_SEARCH_DELETE);
    expect_no_match(T.seq, &U_s, "SEARCH_DELETE once the headers are gone");
    cf_wait_ct(ct[7], 2, 2, "SEARCH_DELETE once the headers are gone");
    search(ni, 0x10, over | PTL_ME_USE_ONCE, ct[8], PTL_SEARCH_DELETE);
    expect_no_match(T.seq, &U_s, "use-once SEARCH_DELETE without a match");
    cf_wait_ct(ct[8], 0, 1, "use-once SEARCH_DELETE without a match");
    search(ni, 0x20, over | PTL_ME_EVENT_CT_BYTES, ct[9], PTL_SEARCH_DELETE);
    expect_found(T.seq, PTL_EVENT_PUT_OVERFLOW, 1, 24, sover, 24, 16, &U_s, "SEARCH_DELETE, PTL_ME_EVENT_CT_BYTES");
    cf_wait_ct(ct[9], 16, 1, "SEARCH_DELETE, PTL_ME_EVENT_CT_BYTES");

    /* PtlLESearch counts the same way. */
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.uid = PTL_UID_ANY;
    le.ct_handle = T.lct;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_CT_OVERFLOW;
    E2E_OK(PtlLESearch(ni2, PT_L, &le, PTL_SEARCH_ONLY, &U_l));
    cf_check_ct(T.lct, 2, 1, "PtlLESearch SEARCH_ONLY: counted before it returns");
    expect_found(T.leq, PTL_EVENT_SEARCH, 2, 31, lover, 0, 8, &U_l, "PtlLESearch SEARCH_ONLY");
    cf_wait_ct(T.lct, 2, 1, "PtlLESearch SEARCH_ONLY");
    E2E_OK(PtlLESearch(ni2, PT_L, &le, PTL_SEARCH_DELETE, &U_l));
    expect_found(T.leq, PTL_EVENT_PUT_OVERFLOW, 2, 31, lover, 0, 8, &U_l, "PtlLESearch SEARCH_DELETE");
    cf_wait_ct(T.lct, 4, 2, "PtlLESearch SEARCH_DELETE");
}

static void target_phase2(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    /* 1. */
    cf_expect_empty(T.deq, "an entry allocated disabled reports nothing");
    ptl_sr_value_t drops;
    E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops));
    E2E_CHECK(drops - T.drops == 2, "drop counter grew by %d, expected 2", (int)(drops - T.drops));
    for (int i = 0; i < 8; ++i)
        E2E_CHECK(dbuf[i] == 0, "a Put to an entry allocated disabled wrote byte %d (0x%02x)", i, dbuf[i]);
    E2E_OK(PtlPTEnable(ni, PT_D));

    /* 2. */
    cf_wait_ct(T.rct, 3, 0, "the unreliable Puts arrived");
    cf_check_bytes(rbuf, src, 16, "unreliable Puts");
    cf_check_bytes(rbuf + 64, src + LARGE, LARGE, "large unreliable Put");

    /* 3, 4. */
    local_inc_uh_rlength(ni);
    counting_searches(ni, ni2);
}

static void initiator_phase3(void)
{
    E2E_OK(PtlPut(I.md, 500, 8, PTL_ACK_REQ, I.peer, PT_D, 0x1, 0, NULL, 2));
    ptl_event_t ev = cf_expect(I.eq, PTL_EVENT_ACK, "Put after PtlPTEnable");
    E2E_CHECK(ev.mlength == 8, "Put after PtlPTEnable: mlength %llu", (unsigned long long)ev.mlength);
    E2E_OK(PtlGet(I.rmd, 0, 8, I.peer, PT_D, 0x1, 32, NULL));
    cf_expect(I.eq, PTL_EVENT_REPLY, "Get after PtlPTEnable");
    for (int i = 0; i < 8; ++i)
        E2E_CHECK(got[i] == 0xD0 + i, "Get after PtlPTEnable: byte %d is 0x%02x", i, got[i]);
    put_acked(I.md, I.eq, 400, 8, PT_U, 0x55, 10, "Put to the ME whose offset moved");
    put_acked(I.md, I.eq, 408, 8, PT_U, 0x66, 11, "Put to the ME whose offset stayed");
}

static void target_phase4(void)
{
    ptl_event_t ev = cf_expect(T.deq, PTL_EVENT_PUT, "Put after PtlPTEnable");
    E2E_CHECK(ev.hdr_data == 2 && ev.user_ptr == dbuf, "Put after PtlPTEnable: hdr_data %llu, user_ptr %p",
              (unsigned long long)ev.hdr_data, ev.user_ptr);
    cf_check_bytes(dbuf, src + 500, 8, "Put after PtlPTEnable");
    cf_expect(T.deq, PTL_EVENT_GET, "Get after PtlPTEnable");
    cf_expect_empty(T.deq, "after PtlPTEnable");

    ev = cf_expect(T.ueq, PTL_EVENT_PUT, "Put to the ME whose offset moved");
    E2E_CHECK(ev.hdr_data == 10 && ev.user_ptr == &U_b && ev.start == (void *)(bbuf + 16) && ev.remote_offset == 16 &&
                  ev.mlength == 8,
              "Put to the ME whose offset moved: hdr_data %llu, user_ptr %p, start %p (expected %p), remote_offset "
              "%llu (expected 16)",
              (unsigned long long)ev.hdr_data, ev.user_ptr, ev.start, (void *)(bbuf + 16),
              (unsigned long long)ev.remote_offset);
    cf_check_bytes(bbuf + 16, src + 400, 8, "Put to the ME whose offset moved");
    ev = cf_expect(T.ueq, PTL_EVENT_PUT, "Put to the ME whose offset stayed");
    E2E_CHECK(ev.hdr_data == 11 && ev.user_ptr == &U_c && ev.start == (void *)cbuf && ev.remote_offset == 0,
              "Put to the ME whose offset stayed: hdr_data %llu, user_ptr %p, start %p (expected %p)",
              (unsigned long long)ev.hdr_data, ev.user_ptr, ev.start, (void *)cbuf);
    cf_check_bytes(cbuf, src + 408, 8, "Put to the ME whose offset stayed");
    cf_expect_empty(T.ueq, "the last Puts");
}

static void target_cleanup(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    E2E_OK(PtlMEUnlink(T.dme));
    E2E_OK(PtlMEUnlink(T.rme));
    E2E_OK(PtlMEUnlink(T.uover));
    E2E_OK(PtlMEUnlink(T.sover));
    E2E_OK(PtlMEUnlink(T.hb));
    E2E_OK(PtlMEUnlink(T.hc));
    E2E_OK(PtlLEUnlink(T.lover));
    E2E_OK(PtlPTFree(ni, PT_D));
    E2E_OK(PtlPTFree(ni, PT_R));
    E2E_OK(PtlPTFree(ni, PT_U));
    E2E_OK(PtlPTFree(ni, PT_S));
    E2E_OK(PtlPTFree(ni2, PT_L));
    E2E_OK(PtlCTFree(T.rct));
    for (int i = 0; i < NCTS; ++i)
        E2E_OK(PtlCTFree(T.cts[i]));
    E2E_OK(PtlCTFree(T.lct));
    E2E_OK(PtlEQFree(T.deq));
    E2E_OK(PtlEQFree(T.ueq));
    E2E_OK(PtlEQFree(T.seq));
    E2E_OK(PtlEQFree(T.leq));
}

static void initiator_cleanup(void)
{
    cf_expect_empty(I.eq, "no acknowledgment of an unreliable Put");
    E2E_OK(PtlMDRelease(I.md));
    E2E_OK(PtlMDRelease(I.rmd));
    E2E_OK(PtlMDRelease(I.md2));
    E2E_OK(PtlCTFree(I.trig));
    E2E_OK(PtlCTFree(I.uct));
    E2E_OK(PtlEQFree(I.eq));
    E2E_OK(PtlEQFree(I.eq2));
}

/* One rank, run with --cfg=s4bxi/fault-drop-at:0/put: the first Put on the
 * wire, an unreliable one, is lost; nothing sends it again. */
static void loss(ptl_handle_ni_t ni)
{
    e2e_require_ranks(1);
    ptl_process_t self = e2e_peer(0);
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_R, &pt));
    ptl_handle_me_t me = cf_append(ni, PT_R, rbuf, sizeof rbuf, 0x2,
                                   PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_COMM_DISABLE |
                                       PTL_ME_EVENT_LINK_DISABLE,
                                   ct, PTL_PRIORITY_LIST, NULL);
    ptl_handle_md_t umd = cf_bind(ni, src, sizeof src, PTL_MD_UNRELIABLE, eq, PTL_CT_NONE);
    ptl_handle_md_t md = cf_bind(ni, src, sizeof src, 0, eq, PTL_CT_NONE);
    E2E_OK(PtlPut(umd, 0, 8, PTL_NO_ACK_REQ, self, PT_R, 0x2, 0, NULL, 51));
    cf_expect(eq, PTL_EVENT_SEND, "the lost unreliable Put");
    E2E_OK(PtlPut(umd, 8, 8, PTL_NO_ACK_REQ, self, PT_R, 0x2, 8, NULL, 52));
    cf_expect(eq, PTL_EVENT_SEND, "the next unreliable Put");
    /* Sent after them on the same path: once it is acknowledged, they arrived
     * or never will. */
    E2E_OK(PtlPut(md, 16, 8, PTL_ACK_REQ, self, PT_R, 0x2, 16, NULL, 53));
    cf_expect(eq, PTL_EVENT_ACK, "a reliable Put after them");
    cf_wait_ct(ct, 2, 0, "the unreliable Put that was not lost and the reliable one");
    /* Longer than the retransmission timeout the test sets. */
    e2e_sleep_ns(1000000);
    cf_check_ct(ct, 2, 0, "no retransmission of the lost unreliable Put");
    for (int i = 0; i < 8; ++i)
        E2E_CHECK(rbuf[i] == 0, "the lost Put wrote byte %d (0x%02x)", i, rbuf[i]);
    cf_check_bytes(rbuf + 8, src + 8, 16, "the Puts that were not lost");
    cf_expect_empty(eq, "after the lost Put");
    printf("generation_options: the lost unreliable Put was not sent again\n");
    E2E_OK(PtlMDRelease(umd));
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT_R));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlEQFree(eq));
}

int main(int argc, char **argv)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    /* What initiators send, and targets expect. */
    for (size_t i = 0; i < sizeof src; ++i)
        src[i] = pat(i);
    if (argc > 1 && strcmp(argv[1], "loss") == 0) {
        loss(ni);
    } else {
        ptl_handle_ni_t ni2;
        E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni2));
        sends = e2e_rank % 2 == 0;
        partner = sends ? (e2e_rank + 1 < e2e_size ? e2e_rank + 1 : e2e_rank) : e2e_rank - 1;
        receives = !sends || partner == e2e_rank;
        if (receives)
            target_setup(ni, ni2);
        if (sends)
            initiator_setup(ni, ni2);
        e2e_barrier(); /* 1: the entries are there */
        if (sends)
            initiator_phase1();
        e2e_barrier(); /* 2: everything sent */
        if (receives)
            target_phase2(ni, ni2);
        e2e_barrier(); /* 3: enabled, MEs appended */
        if (sends)
            initiator_phase3();
        e2e_barrier(); /* 4 */
        if (receives) {
            target_phase4();
            target_cleanup(ni, ni2);
        }
        if (sends)
            initiator_cleanup();
        e2e_barrier(); /* 5 */
        if (sends && receives)
            printf("generation_options: rank %d checked every option on itself\n", e2e_rank);
        else if (receives)
            printf("generation_options: rank %d checked every option as the target of rank %d\n", e2e_rank,
                   partner);
        E2E_OK(PtlNIFini(ni2));
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("generation_options");
}
