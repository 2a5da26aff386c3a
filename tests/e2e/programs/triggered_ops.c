/*
 * Triggered operations (Portals 4.1, section 3.16): PtlTriggeredPut, Get,
 * Atomic, FetchAtomic, Swap, CTInc, CTSet and PtlCTCancelTriggered.
 *
 * Rank 0 triggers, rank 1 is the target:
 *  A. an operation waits until success + failure of its counter reaches the
 *     threshold (failures count), and sends the buffer as it is then, not as
 *     it was at the call;
 *  B. operations released together go in threshold order, and in issue
 *     order for equal thresholds;
 *  C. a threshold already reached releases the operation at once;
 *  D-E. Get, Atomic, FetchAtomic and Swap, triggered;
 *  F. PtlTriggeredCTInc and PtlTriggeredCTSet chain counters: an increment
 *     released by one counter releases an operation waiting on another;
 *  G. PtlCTCancelTriggered destroys pending operations (their MD is free
 *     again, nothing is ever sent); PtlCTFree too;
 *  H. argument errors.
 * Then every rank takes part in a ring where each Put that arrives releases,
 * from the target's NIC, the Put to the next rank (no rank calls anything
 * until the ring has gone round).
 */
#include "conformance_common.h"

#define PT_TRIG 6
#define PT_RING 8
#define BITS_DATA 0x1ULL
#define BITS_ATOM 0x2ULL
#define BITS_RING 0x77ULL

static unsigned char src[256], got[64];
static unsigned char tbuf[256];
static int64_t tatom[3];
static int64_t asrc[3], ares[2];
static unsigned char ring_buf[8];
static unsigned char ring_src[8];

static unsigned char pat(int salt, size_t i) { return (unsigned char)(salt * 29 + i * 3 + 1); }

static void fill(unsigned char *p, size_t n, int salt)
{
    for (size_t i = 0; i < n; ++i)
        p[i] = pat(salt, i);
}

static int matches(const unsigned char *p, size_t n, int salt)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i] != pat(salt, i))
            return 0;
    return 1;
}

/* Nothing arrives in `eq` for a while of simulated time. */
static void expect_quiet(ptl_handle_eq_t eq, const char *what)
{
    e2e_sleep_ns(500000);
    cf_expect_empty(eq, what);
}

static void initiator(ptl_handle_ni_t ni, const ptl_ni_limits_t *limits)
{
    ptl_process_t peer = e2e_peer(1);
    ptl_handle_eq_t eq;
    ptl_handle_ct_t a, b, c, d, e, f1, f2, f3, g, h, i;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    ptl_handle_ct_t *cts[] = {&a, &b, &c, &d, &e, &f1, &f2, &f3, &g, &h, &i};
    for (size_t k = 0; k < sizeof cts / sizeof cts[0]; ++k)
        E2E_OK(PtlCTAlloc(ni, cts[k]));
    ptl_handle_md_t md = cf_bind(ni, src, sizeof src, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t mdg = cf_bind(ni, got, sizeof got, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t mda = cf_bind(ni, asrc, sizeof asrc, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t mdr = cf_bind(ni, ares, sizeof ares, 0, eq, PTL_CT_NONE);
    E2E_CHECK(limits->max_triggered_ops > 0, "max_triggered_ops is %d", limits->max_triggered_ops);
    ptl_ct_event_t one = {1, 0}, one_failure = {0, 1};

    /* A: released at the threshold, with the buffer of that moment. */
    fill(src, 16, 1);
    E2E_OK(PtlTriggeredPut(md, 0, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 0, NULL, 1, a, 2));
    fill(src, 16, 2);
    expect_quiet(eq, "A: triggered Put before any increment");
    E2E_OK(PtlCTInc(a, one));
    expect_quiet(eq, "A: triggered Put at count 1 of 2");
    E2E_OK(PtlCTInc(a, one_failure));
    cf_expect(eq, PTL_EVENT_ACK, "A: triggered Put at count 2 (a failure counts)");
    fill(src, 16, 3); /* too late to matter */

    /* B: four operations released at once go in threshold order, then issue order. */
    fill(src + 16, 64, 4);
    E2E_OK(PtlTriggeredPut(md, 16, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 16, NULL, 30, b, 3));
    E2E_OK(PtlTriggeredPut(md, 32, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 32, NULL, 10, b, 1));
    E2E_OK(PtlTriggeredPut(md, 48, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 48, NULL, 20, b, 2));
    E2E_OK(PtlTriggeredPut(md, 64, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 64, NULL, 21, b, 2));
    expect_quiet(eq, "B: nothing released yet");
    ptl_ct_event_t five = {5, 0};
    E2E_OK(PtlCTSet(b, five));
    for (int k = 0; k < 4; ++k)
        cf_expect(eq, PTL_EVENT_ACK, "B: released together");

    /* C: a reached threshold releases at once (0 is always reached). */
    fill(src + 80, 32, 5);
    ptl_ct_event_t four = {4, 0};
    E2E_OK(PtlCTSet(c, four));
    E2E_OK(PtlTriggeredPut(md, 80, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 80, NULL, 40, c, 4));
    cf_expect(eq, PTL_EVENT_ACK, "C: threshold already reached");
    E2E_OK(PtlTriggeredPut(md, 96, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 96, NULL, 41, d, 0));
    cf_expect(eq, PTL_EVENT_ACK, "C: threshold 0");

    /* D: Get. */
    memset(got, 0, sizeof got);
    E2E_OK(PtlTriggeredGet(mdg, 0, 32, peer, PT_TRIG, BITS_DATA, 128, got, d, 1));
    expect_quiet(eq, "D: triggered Get not released");
    E2E_OK(PtlCTInc(d, one));
    ptl_event_t ev = cf_expect(eq, PTL_EVENT_REPLY, "D: triggered Get");
    E2E_CHECK(ev.user_ptr == got && ev.mlength == 32, "D: REPLY user_ptr %p mlength %llu", ev.user_ptr,
              (unsigned long long)ev.mlength);
    E2E_CHECK(matches(got, 32, 6), "D: the Get brought back other bytes than the target's");

    /* E: the atomics, released together: SUM, fetching SUM, CSWAP. */
    asrc[0] = 5;
    asrc[1] = 7;
    asrc[2] = 1000;
    int64_t operand = 300;
    E2E_OK(PtlTriggeredAtomic(mda, 0, 8, PTL_ACK_REQ, peer, PT_TRIG, BITS_ATOM, 0, NULL, 60, PTL_SUM, PTL_INT64_T,
                              e, 1));
    E2E_OK(PtlTriggeredFetchAtomic(mdr, 0, mda, 8, 8, peer, PT_TRIG, BITS_ATOM, 8, NULL, 61, PTL_SUM, PTL_INT64_T,
                                   e, 1));
    E2E_OK(PtlTriggeredSwap(mdr, 8, mda, 16, 8, peer, PT_TRIG, BITS_ATOM, 16, NULL, 62, &operand, PTL_CSWAP,
                            PTL_INT64_T, e, 1));
    asrc[0] = 50; /* the payload is read at release time */
    expect_quiet(eq, "E: triggered atomics not released");
    E2E_OK(PtlCTInc(e, one));
    cf_expect(eq, PTL_EVENT_ACK, "E: triggered PtlAtomic");
    cf_expect(eq, PTL_EVENT_REPLY, "E: triggered PtlFetchAtomic");
    cf_expect(eq, PTL_EVENT_REPLY, "E: triggered PtlSwap");
    E2E_CHECK(ares[0] == 200 && ares[1] == 300, "E: fetched %lld and %lld, expected 200 and 300",
              (long long)ares[0], (long long)ares[1]);

    /* F: counters chained by triggered increments and sets. */
    ptl_ct_event_t inc5 = {5, 0}, set7 = {7, 0};
    fill(src + 112, 16, 7);
    E2E_OK(PtlTriggeredPut(md, 112, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 112, NULL, 50, f2, 5));
    E2E_OK(PtlTriggeredCTInc(f2, inc5, f1, 1));
    E2E_OK(PtlTriggeredCTSet(f3, set7, f1, 1));
    expect_quiet(eq, "F: chain not started");
    cf_check_ct(f2, 0, 0, "F: second counter before the chain");
    E2E_OK(PtlCTInc(f1, one));
    cf_expect(eq, PTL_EVENT_ACK, "F: Put released by a triggered increment");
    cf_wait_ct(f2, 5, 0, "F: counter incremented by PtlTriggeredCTInc");
    cf_wait_ct(f3, 7, 0, "F: counter set by PtlTriggeredCTSet");
    ptl_ct_event_t more = {3, 0};
    E2E_OK(PtlCTInc(f3, more));
    E2E_OK(PtlTriggeredCTSet(f3, set7, f1, 1)); /* reached already: set at once, by the NIC */
    e2e_sleep_ns(10000);                         /* ... which writes it to host memory over PCIe */
    cf_check_ct(f3, 7, 0, "F: PtlTriggeredCTSet with a reached threshold");

    /* G: cancelled operations are never released, and free their MD. */
    unsigned char gbuf[16];
    fill(gbuf, sizeof gbuf, 9);
    ptl_handle_md_t mdc = cf_bind(ni, gbuf, sizeof gbuf, 0, eq, PTL_CT_NONE);
    E2E_OK(PtlTriggeredPut(mdc, 0, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 160, NULL, 99, g, 1));
    E2E_OK(PtlTriggeredCTInc(h, one, g, 1));
    E2E_EXPECT_RC(PTL_IN_USE, PtlMDRelease(mdc));
    E2E_OK(PtlCTCancelTriggered(g));
    E2E_OK(PtlMDRelease(mdc));
    E2E_OK(PtlCTInc(g, one));
    expect_quiet(eq, "G: cancelled Put");
    cf_check_ct(h, 0, 0, "G: counter of a cancelled PtlTriggeredCTInc");
    cf_check_ct(g, 1, 0, "G: the cancelled counter keeps its value");
    mdc = cf_bind(ni, gbuf, sizeof gbuf, 0, eq, PTL_CT_NONE);
    E2E_OK(PtlTriggeredPut(mdc, 0, 16, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 160, NULL, 98, i, 10));
    E2E_OK(PtlCTFree(i));
    E2E_OK(PtlMDRelease(mdc));
    expect_quiet(eq, "G: Put pending on a freed counter");

    /* H: arguments. */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredPut(md, 0, 8, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 0, NULL, 0,
                                                   PTL_CT_NONE, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredPut(md, 0, 8, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 0, NULL, 0, i,
                                                   1)); /* freed */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredPut(md, 250, 8, PTL_ACK_REQ, peer, PT_TRIG, BITS_DATA, 0, NULL, 0,
                                                   a, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredGet(md, 0, 8, peer, PT_TRIG, BITS_DATA, 0, NULL, PTL_CT_NONE, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredAtomic(mda, 0, 8, PTL_ACK_REQ, peer, PT_TRIG, BITS_ATOM, 0, NULL, 0,
                                                      PTL_SWAP, PTL_INT64_T, a, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredSwap(mdr, 0, mda, 0, 8, peer, PT_TRIG, BITS_ATOM, 0, NULL, 0, NULL,
                                                    PTL_CSWAP, PTL_INT64_T, a, 1));
    ptl_ct_event_t both = {1, 1};
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredCTInc(h, both, a, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredCTInc(i, one, a, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlTriggeredCTSet(h, one, PTL_CT_NONE, 1));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTCancelTriggered(i));
    expect_quiet(eq, "H: refused calls");

    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMDRelease(mdg));
    E2E_OK(PtlMDRelease(mda));
    E2E_OK(PtlMDRelease(mdr));
    for (size_t k = 0; k < sizeof cts / sizeof cts[0]; ++k)
        if (cts[k] != &i)
            E2E_OK(PtlCTFree(*cts[k]));
    E2E_OK(PtlEQFree(eq));
    printf("triggered_ops: pairwise part done\n");
}

static void target(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_TRIG, &pt));
    memset(tbuf, 0, sizeof tbuf);
    fill(tbuf + 128, 32, 6);
    tatom[0] = 100;
    tatom[1] = 200;
    tatom[2] = 300;
    ptl_handle_me_t hd = cf_append(ni, PT_TRIG, tbuf, sizeof tbuf, BITS_DATA,
                                   PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_CT_COMM,
                                   ct, PTL_PRIORITY_LIST, tbuf);
    ptl_handle_me_t ha = cf_append(ni, PT_TRIG, tatom, sizeof tatom, BITS_ATOM,
                                   PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                                   PTL_PRIORITY_LIST, tatom);
    e2e_barrier(); /* 1: entries posted */
    e2e_barrier(); /* 2: the initiator is done */

    const ptl_hdr_data_t put_order[] = {1, 10, 20, 21, 30, 40, 41};
    for (size_t k = 0; k < sizeof put_order / sizeof put_order[0]; ++k) {
        ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT, "target, triggered Puts");
        E2E_CHECK(ev.hdr_data == put_order[k], "target: Put number %zu has hdr_data %llu, expected %llu", k,
                  (unsigned long long)ev.hdr_data, (unsigned long long)put_order[k]);
    }
    cf_expect(eq, PTL_EVENT_GET, "target, triggered Get");
    ptl_event_t ev = cf_expect(eq, PTL_EVENT_ATOMIC, "target, triggered PtlAtomic");
    E2E_CHECK(ev.hdr_data == 60, "target: ATOMIC hdr_data %llu", (unsigned long long)ev.hdr_data);
    ev = cf_expect(eq, PTL_EVENT_FETCH_ATOMIC, "target, triggered PtlFetchAtomic");
    E2E_CHECK(ev.hdr_data == 61, "target: FETCH_ATOMIC hdr_data %llu", (unsigned long long)ev.hdr_data);
    ev = cf_expect(eq, PTL_EVENT_FETCH_ATOMIC, "target, triggered PtlSwap");
    E2E_CHECK(ev.hdr_data == 62 && ev.atomic_operation == PTL_CSWAP, "target: swap hdr_data %llu, operation %d",
              (unsigned long long)ev.hdr_data, (int)ev.atomic_operation);
    ev = cf_expect(eq, PTL_EVENT_PUT, "target, Put released by a chain");
    E2E_CHECK(ev.hdr_data == 50, "target: chained Put hdr_data %llu", (unsigned long long)ev.hdr_data);
    cf_expect_empty(eq, "target: nothing from cancelled operations");

    E2E_CHECK(matches(tbuf, 16, 2), "A: the target got the buffer as it was at the call or after the release, "
              "not at the release");
    E2E_CHECK(matches(tbuf + 16, 64, 4), "B: data of the Puts released together");
    E2E_CHECK(matches(tbuf + 80, 32, 5), "C: data of the Puts released at once");
    E2E_CHECK(matches(tbuf + 112, 16, 7), "F: data of the chained Put");
    for (size_t k = 160; k < 176; ++k)
        if (tbuf[k] != 0) {
            e2e_fail("G: a cancelled Put wrote the target (byte %zu)", k);
            break;
        }
    E2E_CHECK(tatom[0] == 150 && tatom[1] == 207 && tatom[2] == 1000,
              "E: target values %lld %lld %lld, expected 150 207 1000", (long long)tatom[0], (long long)tatom[1],
              (long long)tatom[2]);
    cf_check_ct(ct, 9, 0, "target: entry counter (7 Puts, 1 Get, 1 chained Put)");

    E2E_OK(PtlMEUnlink(hd));
    E2E_OK(PtlMEUnlink(ha));
    E2E_OK(PtlPTFree(ni, PT_TRIG));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlEQFree(eq));
}

/* Each arrival releases, from the receiving NIC, the Put to the next rank. */
static void ring(ptl_handle_ni_t ni)
{
    const int next = (e2e_rank + 1) % e2e_size, prev = (e2e_rank + e2e_size - 1) % e2e_size;
    ptl_handle_ct_t rct, mct;
    ptl_pt_index_t pt;
    E2E_OK(PtlCTAlloc(ni, &rct));
    E2E_OK(PtlCTAlloc(ni, &mct));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_RING, &pt));
    memset(ring_buf, 0xFF, sizeof ring_buf);
    memset(ring_src, e2e_rank, sizeof ring_src);
    ptl_handle_me_t me = cf_append(ni, PT_RING, ring_buf, sizeof ring_buf, BITS_RING,
                                   PTL_ME_OP_PUT | PTL_ME_EVENT_CT_COMM | PTL_ME_EVENT_LINK_DISABLE, rct,
                                   PTL_PRIORITY_LIST, NULL);
    ptl_handle_md_t md = cf_bind(ni, ring_src, sizeof ring_src, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, mct);
    if (e2e_rank != 0)
        E2E_OK(PtlTriggeredPut(md, 0, sizeof ring_src, PTL_CT_ACK_REQ, e2e_peer(next), PT_RING, BITS_RING, 0, NULL,
                               0, rct, 1));
    e2e_barrier(); /* everyone's trigger is in place */
    if (e2e_rank == 0)
        E2E_OK(PtlPut(md, 0, sizeof ring_src, PTL_CT_ACK_REQ, e2e_peer(next), PT_RING, BITS_RING, 0, NULL, 0));
    cf_wait_ct(rct, 1, 0, "ring: the Put from the previous rank");
    cf_wait_ct(mct, 1, 0, "ring: the acknowledgment of my Put");
    for (size_t k = 0; k < sizeof ring_buf; ++k)
        if (ring_buf[k] != (unsigned char)prev) {
            e2e_fail("ring: byte %zu is %d, expected %d (from rank %d)", k, ring_buf[k], prev, prev);
            break;
        }
    e2e_barrier();
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlPTFree(ni, PT_RING));
    E2E_OK(PtlCTFree(rct));
    E2E_OK(PtlCTFree(mct));
    if (e2e_rank == 0)
        printf("triggered_ops: ring of %d ranks done\n", e2e_size);
}

int main(void)
{
    ptl_ni_limits_t limits;
    ptl_handle_ni_t ni = e2e_init(&limits);
    if (e2e_size < 2)
        E2E_DIE("this program needs at least 2 ranks");
    e2e_barrier_init(ni);
    if (e2e_rank == 0) {
        e2e_barrier(); /* 1 */
        initiator(ni, &limits);
        e2e_barrier(); /* 2 */
    } else if (e2e_rank == 1) {
        target(ni);
    } else {
        e2e_barrier(); /* 1 */
        e2e_barrier(); /* 2 */
    }
    ring(ni);
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("triggered_ops");
}
