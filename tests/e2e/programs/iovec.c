/*
 * I/O vectors (Portals 4.1, section 3.10.1, PTL_IOVEC): an MD, ME or LE whose
 * start is an array of ptl_iovec_t and whose length is the number of
 * elements behaves as one virtually contiguous region, offsets included.
 *
 * Rank 0 puts from a 4-segment MD (5, 17, 200 and 2000 bytes: the payload
 * goes by PIO or by DMA as its size says) into a 3-segment ME of rank 1,
 * with local and remote offsets that cross segment boundaries; gets into a
 * 3-segment MD; applies an atomic to an item that straddles two segments of
 * the target; truncation at the end of the vector. PUT events report the
 * address of the first byte. Both sides rebuild the virtual region and
 * compare every byte. Then the argument checks: offsets beyond the vector's
 * total length, more elements than max_iovecs.
 */
#include "conformance_common.h"

#define PT_V 15
#define TOTAL_SRC 2222
#define TOTAL_TGT 2307

static unsigned char s1[5], s2[17], s3[200], s4[2000];
static unsigned char d1[3], d2[50], d3[11];
static unsigned char t1[7], t2[1000], t3[1300];
static ptl_iovec_t src_vec[4], dst_vec[3], tgt_vec[3];
static unsigned char expected[TOTAL_TGT];
static int32_t addend = 1000000;

static unsigned char src_byte(size_t v) { return (unsigned char)(v * 7 + 11); }

static void set_vec(ptl_iovec_t *vec, int i, void *base, size_t len)
{
    vec[i].iov_base = base;
    vec[i].iov_len = len;
}

/* Copies between a vector and a flat buffer, at a virtual offset. */
static void gather(const ptl_iovec_t *vec, int n, size_t offset, unsigned char *out, size_t len)
{
    size_t v = 0;
    for (int i = 0; i < n && len > 0; ++i) {
        for (size_t k = 0; k < vec[i].iov_len && len > 0; ++k, ++v)
            if (v >= offset) {
                *out++ = ((unsigned char *)vec[i].iov_base)[k];
                --len;
            }
    }
}

static void scatter(const ptl_iovec_t *vec, int n, const unsigned char *in, size_t len)
{
    for (int i = 0; i < n && len > 0; ++i)
        for (size_t k = 0; k < vec[i].iov_len && len > 0; ++k, --len)
            ((unsigned char *)vec[i].iov_base)[k] = *in++;
}

/* What the target's region holds at the end, computed from the sequence of
 * operations (both ranks compute it). */
static void compute_expected(int upto_get)
{
    memset(expected, 0, sizeof expected);
    for (size_t k = 0; k < 2210; ++k) /* a: Put 2210 B from 3 to 5 */
        expected[5 + k] = src_byte(3 + k);
    for (size_t k = 0; k < 20; ++k) /* b: Put 20 B from 20 to 1000 */
        expected[1000 + k] = src_byte(20 + k);
    if (upto_get)
        return;
    int32_t item;
    memcpy(&item, expected + 1005, 4); /* d: SUM on the item at 1005 (1005..1008 straddle t2 | t3) */
    item = (int32_t)((uint32_t)item + (uint32_t)addend);
    memcpy(expected + 1005, &item, 4);
    for (size_t k = 0; k < 7; ++k) /* e: Put 20 B from 0 at 2300, truncated to 7 */
        expected[2300 + k] = src_byte(k);
}

static void initiator(ptl_handle_ni_t ni, const ptl_ni_limits_t *limits)
{
    ptl_process_t peer = e2e_peer(1);
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 32, &eq));
    set_vec(src_vec, 0, s1, sizeof s1);
    set_vec(src_vec, 1, s2, sizeof s2);
    set_vec(src_vec, 2, s3, sizeof s3);
    set_vec(src_vec, 3, s4, sizeof s4);
    set_vec(dst_vec, 0, d1, sizeof d1);
    set_vec(dst_vec, 1, d2, sizeof d2);
    set_vec(dst_vec, 2, d3, sizeof d3);
    unsigned char flat[TOTAL_SRC];
    for (size_t v = 0; v < TOTAL_SRC; ++v)
        flat[v] = src_byte(v);
    scatter(src_vec, 4, flat, TOTAL_SRC);
    E2E_CHECK(limits->max_iovecs > 0, "max_iovecs is %d", limits->max_iovecs);

    ptl_handle_md_t src = cf_bind(ni, src_vec, 4, PTL_IOVEC, eq, PTL_CT_NONE);
    ptl_handle_md_t dst = cf_bind(ni, dst_vec, 3, PTL_IOVEC, eq, PTL_CT_NONE);
    ptl_handle_md_t num = cf_bind(ni, &addend, sizeof addend, 0, eq, PTL_CT_NONE);
    ptl_event_t ev;

    E2E_OK(PtlPut(src, 3, 2210, PTL_ACK_REQ, peer, PT_V, 0x1, 5, NULL, 1)); /* a: DMA */
    ev = cf_expect(eq, PTL_EVENT_ACK, "a: Put across every segment");
    E2E_CHECK(ev.mlength == 2210, "a: ACK mlength %llu", (unsigned long long)ev.mlength);
    E2E_OK(PtlPut(src, 20, 20, PTL_ACK_REQ, peer, PT_V, 0x1, 1000, NULL, 2)); /* b: PIO */
    cf_expect(eq, PTL_EVENT_ACK, "b: small Put across boundaries");
    E2E_OK(PtlGet(dst, 2, 60, peer, PT_V, 0x1, 990, NULL)); /* c */
    ev = cf_expect(eq, PTL_EVENT_REPLY, "c: Get into a vector");
    E2E_CHECK(ev.mlength == 60, "c: REPLY mlength %llu", (unsigned long long)ev.mlength);
    compute_expected(1);
    unsigned char got[64];
    gather(dst_vec, 3, 0, got, 64);
    E2E_CHECK(got[0] == 0 && got[1] == 0 && got[62] == 0 && got[63] == 0,
              "c: the Get wrote outside its range of the vector");
    cf_check_bytes(got + 2, expected + 990, 60, "c: bytes gotten into the vector");
    E2E_OK(PtlAtomic(num, 0, 4, PTL_ACK_REQ, peer, PT_V, 0x1, 1005, NULL, 3, PTL_SUM, PTL_INT32_T)); /* d */
    cf_expect(eq, PTL_EVENT_ACK, "d: atomic on an item that straddles two segments");
    E2E_OK(PtlPut(src, 0, 20, PTL_ACK_REQ, peer, PT_V, 0x1, 2300, NULL, 4)); /* e */
    ev = cf_expect(eq, PTL_EVENT_ACK, "e: Put truncated at the end of the vector");
    E2E_CHECK(ev.mlength == 7, "e: ACK mlength %llu, expected 7", (unsigned long long)ev.mlength);

    /* The vector's total length bounds the offsets. */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(src, 2220, 5, PTL_ACK_REQ, peer, PT_V, 0x1, 0, NULL, 0));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlGet(dst, 0, 65, peer, PT_V, 0x1, 0, NULL));
    E2E_OK(PtlPut(src, 2220, 2, PTL_ACK_REQ, peer, PT_V, 0x2, 0, NULL, 5)); /* the last two bytes */
    cf_expect(eq, PTL_EVENT_ACK, "Put of the last two bytes of the vector");
    /* At most max_iovecs elements. */
    ptl_md_t md;
    ptl_handle_md_t h;
    memset(&md, 0, sizeof md);
    md.start = src_vec;
    md.length = (ptl_size_t)limits->max_iovecs + 1;
    md.options = PTL_IOVEC;
    md.eq_handle = PTL_EQ_NONE;
    md.ct_handle = PTL_CT_NONE;
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &md, &h));

    e2e_barrier(); /* 2 */
    e2e_barrier(); /* 3 */
    E2E_OK(PtlMDRelease(src));
    E2E_OK(PtlMDRelease(dst));
    E2E_OK(PtlMDRelease(num));
    cf_expect_empty(eq, "initiator EQ at the end");
    E2E_OK(PtlEQFree(eq));
}

static void target(ptl_handle_ni_t ni, const ptl_ni_limits_t *limits)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    unsigned char last[4] = {0, 0, 0, 0};
    ptl_iovec_t last_vec[2] = {{&last[0], 1}, {&last[3], 1}};
    E2E_OK(PtlEQAlloc(ni, 32, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_V, &pt));
    set_vec(tgt_vec, 0, t1, sizeof t1);
    set_vec(tgt_vec, 1, t2, sizeof t2);
    set_vec(tgt_vec, 2, t3, sizeof t3);
    ptl_handle_me_t h = cf_append(ni, PT_V, tgt_vec, 3, 0x1,
                                  PTL_IOVEC | PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE,
                                  PTL_PRIORITY_LIST, tgt_vec);
    ptl_handle_me_t h2 = cf_append(ni, PT_V, last_vec, 2, 0x2, PTL_IOVEC | PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                                   PTL_CT_NONE, PTL_PRIORITY_LIST, last_vec);
    ptl_me_t too_long = cf_me(tgt_vec, (ptl_size_t)limits->max_iovecs + 1, 0x3, PTL_IOVEC | PTL_ME_OP_PUT,
                              PTL_CT_NONE);
    ptl_handle_me_t h3;
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEAppend(ni, PT_V, &too_long, PTL_PRIORITY_LIST, NULL, &h3));
    e2e_barrier(); /* 1 */
    e2e_barrier(); /* 2 */

    ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT, "target, a");
    E2E_CHECK(ev.start == t1 + 5 && ev.mlength == 2210 && ev.remote_offset == 5,
              "a: PUT start %p (expected %p), mlength %llu, remote_offset %llu", ev.start, (void *)(t1 + 5),
              (unsigned long long)ev.mlength, (unsigned long long)ev.remote_offset);
    ev = cf_expect(eq, PTL_EVENT_PUT, "target, b");
    E2E_CHECK(ev.start == t2 + 993, "b: PUT start %p, expected %p (byte 1000 of the vector)", ev.start,
              (void *)(t2 + 993));
    ev = cf_expect(eq, PTL_EVENT_GET, "target, c");
    E2E_CHECK(ev.start == t2 + 983 && ev.mlength == 60, "c: GET start %p, expected %p", ev.start, (void *)(t2 + 983));
    cf_expect(eq, PTL_EVENT_ATOMIC, "target, d");
    ev = cf_expect(eq, PTL_EVENT_PUT, "target, e");
    E2E_CHECK(ev.start == t3 + 1293 && ev.mlength == 7 && ev.rlength == 20, "e: PUT start %p, mlength %llu",
              ev.start, (unsigned long long)ev.mlength);
    cf_expect(eq, PTL_EVENT_PUT, "target, last two bytes");
    cf_expect_empty(eq, "target EQ");

    compute_expected(0);
    unsigned char region[TOTAL_TGT];
    gather(tgt_vec, 3, 0, region, TOTAL_TGT);
    cf_check_bytes(region, expected, TOTAL_TGT, "the target's vector");
    E2E_CHECK(last[0] == src_byte(2220) && last[1] == 0 && last[2] == 0 && last[3] == src_byte(2221),
              "two one-byte segments: {0x%02x 0x%02x 0x%02x 0x%02x}", last[0], last[1], last[2], last[3]);
    e2e_barrier(); /* 3 */

    E2E_OK(PtlMEUnlink(h));
    E2E_OK(PtlMEUnlink(h2));
    E2E_OK(PtlPTFree(ni, PT_V));
    E2E_OK(PtlEQFree(eq));
}

int main(void)
{
    ptl_ni_limits_t limits;
    ptl_handle_ni_t ni = e2e_init(&limits);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    if (e2e_rank == 0) {
        e2e_barrier(); /* 1 */
        initiator(ni, &limits);
    } else {
        target(ni, &limits);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("iovec");
}
