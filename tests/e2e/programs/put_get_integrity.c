/*
 * Data integrity of PtlPut and PtlGet between two ranks, for sizes from 0 B
 * to 4 MiB (every power of two, plus the sizes around the inline, PIO and
 * event thresholds of the BXI model). Each rank puts to its peer and gets
 * from its peer; the data carry a pattern that depends on the size, the
 * owning rank and the operation, and guard bytes after the payload must stay
 * untouched. Then offsets (local and remote) are checked once.
 */
#include "e2e_common.h"

#include <stdint.h>

#define PT_DATA   1
#define BITS_PUT  0x1ULL
#define BITS_GET  0x2ULL
#define MAX_SIZE  (4u << 20)
#define GUARD     64
#define FILL_RECV 0xEE
#define FILL_GDST 0xDD

static unsigned char pattern(size_t size, int owner, int op, size_t i)
{
    /* Changes with every argument, and not periodic on small strides. */
    uint32_t x = (uint32_t)(i * 2654435761u) ^ (uint32_t)(size * 40503u) ^
                 (uint32_t)(owner * 0x9E37u) ^ (uint32_t)(op * 0x5bd1e995u);
    return (unsigned char)((x >> 13) ^ (x >> 3) ^ (i >> 8));
}

static void fill(unsigned char *buf, size_t size, int owner, int op)
{
    for (size_t i = 0; i < size; ++i)
        buf[i] = pattern(size, owner, op, i);
}

static int verify(const char *what, const unsigned char *buf, size_t size,
                  int owner, int op, unsigned char guard_fill)
{
    for (size_t i = 0; i < size; ++i) {
        if (buf[i] != pattern(size, owner, op, i)) {
            e2e_fail("%s of %zu B: byte %zu is 0x%02x, expected 0x%02x", what,
                     size, i, buf[i], pattern(size, owner, op, i));
            return 0;
        }
    }
    for (size_t i = size; i < size + GUARD; ++i) {
        if (buf[i] != guard_fill) {
            e2e_fail("%s of %zu B: guard byte %zu past the end was "
                     "overwritten (0x%02x)", what, size, i - size, buf[i]);
            return 0;
        }
    }
    return 1;
}

/* Wait for the ACK of a Put and the REPLY of a Get, in any order, ignoring
 * SEND events. */
static void wait_ack_and_reply(ptl_handle_eq_t eq, size_t ack_len,
                               size_t reply_len, const char *what)
{
    int acked = 0, replied = 0;
    ptl_event_t ev;
    for (int n = 0; n < 8 && !(acked && replied); ++n) {
        E2E_OK(PtlEQWait(eq, &ev));
        if (ev.ni_fail_type != PTL_NI_OK)
            e2e_fail("%s: %s event with ni_fail_type %d", what,
                     e2e_event_name(ev.type), ev.ni_fail_type);
        if (ev.type == PTL_EVENT_ACK) {
            acked = 1;
            E2E_CHECK(ev.mlength == ack_len, "%s: ACK mlength %llu, expected "
                      "%zu", what, (unsigned long long)ev.mlength, ack_len);
        } else if (ev.type == PTL_EVENT_REPLY) {
            replied = 1;
            E2E_CHECK(ev.mlength == reply_len, "%s: REPLY mlength %llu, "
                      "expected %zu", what, (unsigned long long)ev.mlength,
                      reply_len);
        } else if (ev.type != PTL_EVENT_SEND) {
            e2e_fail("%s: unexpected %s event on the MD EQ", what,
                     e2e_event_name(ev.type));
        }
    }
    if (!acked || !replied)
        E2E_DIE("%s: missing ACK or REPLY", what);
}

int main(void)
{
    static size_t sizes[128];
    size_t nsizes = 0;
    const size_t odd[] = {0,    1,    2,    3,     7,     9,      15,     17,
                          63,   65,   407,  409,   415,   417,    4095,   4097,
                          65535, 65537, 1000003, MAX_SIZE - 1};
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    const int me = e2e_rank, peer = 1 - e2e_rank;

    /* Sizes, sorted: the odd ones and every power of two from 8 B. */
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; ++i)
        sizes[nsizes++] = odd[i];
    for (size_t s = 8; s <= MAX_SIZE; s *= 2)
        sizes[nsizes++] = s;
    for (size_t i = 1; i < nsizes; ++i)
        for (size_t j = i; j > 0 && sizes[j - 1] > sizes[j]; --j) {
            size_t t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
        }

    unsigned char *psrc = malloc(MAX_SIZE);
    unsigned char *recv = malloc(MAX_SIZE + GUARD);
    unsigned char *gsrc = malloc(MAX_SIZE);
    unsigned char *gdst = malloc(MAX_SIZE + GUARD);
    if (!psrc || !recv || !gsrc || !gdst)
        E2E_DIE("out of memory");

    ptl_handle_eq_t md_eq, pt_eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &md_eq));
    E2E_OK(PtlEQAlloc(ni, 64, &pt_eq));
    E2E_OK(PtlPTAlloc(ni, 0, pt_eq, PT_DATA, &pt));

    ptl_me_t me_put, me_get;
    ptl_handle_me_t h_put, h_get;
    memset(&me_put, 0, sizeof me_put);
    me_put.start = recv;
    me_put.length = MAX_SIZE;
    me_put.ct_handle = PTL_CT_NONE;
    me_put.uid = PTL_UID_ANY;
    me_put.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    me_put.match_id.rank = (ptl_rank_t)peer;
    me_put.match_bits = BITS_PUT;
    me_get = me_put;
    me_get.start = gsrc;
    me_get.options = PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE;
    me_get.match_bits = BITS_GET;
    E2E_OK(PtlMEAppend(ni, PT_DATA, &me_put, PTL_PRIORITY_LIST, recv, &h_put));
    E2E_OK(PtlMEAppend(ni, PT_DATA, &me_get, PTL_PRIORITY_LIST, gsrc, &h_get));

    ptl_md_t md;
    ptl_handle_md_t h_psrc, h_gdst;
    memset(&md, 0, sizeof md);
    md.start = psrc;
    md.length = MAX_SIZE;
    md.options = 0;
    md.eq_handle = md_eq;
    md.ct_handle = PTL_CT_NONE;
    E2E_OK(PtlMDBind(ni, &md, &h_psrc));
    md.start = gdst;
    md.length = MAX_SIZE + GUARD;
    E2E_OK(PtlMDBind(ni, &md, &h_gdst));

    int bad_sizes = 0;
    for (size_t k = 0; k < nsizes; ++k) {
        const size_t s = sizes[k];
        const int before = e2e_failures;
        ptl_event_t ev;

        fill(psrc, s, me, 'P');
        fill(gsrc, s, me, 'G');
        memset(recv, FILL_RECV, s + GUARD);
        memset(gdst, FILL_GDST, s + GUARD);
        e2e_barrier();

        E2E_OK(PtlPut(h_psrc, 0, s, PTL_ACK_REQ, e2e_peer(peer), PT_DATA,
                      BITS_PUT, 0, (void *)(uintptr_t)(s + 1), s));
        E2E_OK(PtlGet(h_gdst, 0, s, e2e_peer(peer), PT_DATA, BITS_GET, 0,
                      (void *)(uintptr_t)(s + 2)));

        char what[64];
        snprintf(what, sizeof what, "%zu B", s);
        wait_ack_and_reply(md_eq, s, s, what);

        /* Target side: the peer's Put and Get, any order. */
        int put_seen = 0, get_seen = 0;
        while (!(put_seen && get_seen)) {
            E2E_OK(PtlEQWait(pt_eq, &ev));
            if (ev.type == PTL_EVENT_PUT) {
                put_seen = 1;
                E2E_CHECK(ev.mlength == s && ev.rlength == s,
                          "%zu B: PUT event mlength %llu rlength %llu", s,
                          (unsigned long long)ev.mlength,
                          (unsigned long long)ev.rlength);
                E2E_CHECK(ev.start == recv, "%zu B: PUT event start %p, "
                          "expected %p", s, ev.start, (void *)recv);
                E2E_CHECK(ev.hdr_data == s, "%zu B: PUT hdr_data %llu", s,
                          (unsigned long long)ev.hdr_data);
            } else if (ev.type == PTL_EVENT_GET) {
                get_seen = 1;
                E2E_CHECK(ev.mlength == s, "%zu B: GET event mlength %llu", s,
                          (unsigned long long)ev.mlength);
            } else {
                E2E_DIE("%zu B: unexpected %s event on the PT EQ", s,
                        e2e_event_name(ev.type));
            }
            E2E_CHECK(ev.ni_fail_type == PTL_NI_OK,
                      "%zu B: target %s event with ni_fail_type %d", s,
                      e2e_event_name(ev.type), ev.ni_fail_type);
        }

        verify("received Put", recv, s, peer, 'P', FILL_RECV);
        verify("Get reply", gdst, s, peer, 'G', FILL_GDST);
        if (e2e_failures != before)
            ++bad_sizes;
        e2e_barrier();
    }
    printf("put_get_integrity: rank %d checked %zu sizes from %zu B to %zu B\n",
           me, nsizes, sizes[0], sizes[nsizes - 1]);

    /* Offsets on both sides: local 3, remote 5, 100 bytes. */
    {
        ptl_event_t ev;
        const size_t s = 1000;
        fill(psrc, s, me, 'P');
        fill(gsrc, s, me, 'G');
        memset(recv, FILL_RECV, s + GUARD);
        memset(gdst, FILL_GDST, s + GUARD);
        e2e_barrier();
        E2E_OK(PtlPut(h_psrc, 3, 100, PTL_ACK_REQ, e2e_peer(peer), PT_DATA,
                      BITS_PUT, 5, NULL, 0));
        E2E_OK(PtlGet(h_gdst, 7, 100, e2e_peer(peer), PT_DATA, BITS_GET, 11,
                      NULL));
        wait_ack_and_reply(md_eq, 100, 100, "offset Put/Get");
        for (int n = 0; n < 2; ++n) {
            E2E_OK(PtlEQWait(pt_eq, &ev));
            if (ev.type == PTL_EVENT_PUT) {
                E2E_CHECK(ev.remote_offset == 5,
                          "offset Put: remote_offset %llu, expected 5",
                          (unsigned long long)ev.remote_offset);
                E2E_CHECK(ev.start == recv + 5,
                          "offset Put: start %p, expected %p", ev.start,
                          (void *)(recv + 5));
            }
        }
        for (size_t i = 0; i < s; ++i) {
            unsigned char want =
                (i >= 5 && i < 105) ? pattern(s, peer, 'P', i - 5 + 3)
                                    : FILL_RECV;
            if (recv[i] != want) {
                e2e_fail("offset Put: byte %zu is 0x%02x, expected 0x%02x", i,
                         recv[i], want);
                break;
            }
        }
        for (size_t i = 0; i < s; ++i) {
            unsigned char want =
                (i >= 7 && i < 107) ? pattern(s, peer, 'G', i - 7 + 11)
                                    : FILL_GDST;
            if (gdst[i] != want) {
                e2e_fail("offset Get: byte %zu is 0x%02x, expected 0x%02x", i,
                         gdst[i], want);
                break;
            }
        }
        e2e_barrier();
    }

    if (bad_sizes)
        fprintf(stderr, "put_get_integrity: rank %d: %d size(s) failed\n", me,
                bad_sizes);
    E2E_OK(PtlMDRelease(h_psrc));
    E2E_OK(PtlMDRelease(h_gdst));
    E2E_OK(PtlMEUnlink(h_put));
    E2E_OK(PtlMEUnlink(h_get));
    E2E_OK(PtlPTFree(ni, PT_DATA));
    E2E_OK(PtlEQFree(md_eq));
    E2E_OK(PtlEQFree(pt_eq));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    free(psrc);
    free(recv);
    free(gsrc);
    free(gdst);
    return e2e_finish("put_get_integrity");
}
