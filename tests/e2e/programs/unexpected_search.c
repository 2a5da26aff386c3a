/*
 * Searching the unexpected list (Portals 4.1, section 3.12: PtlMESearch,
 * PtlLESearch), and the unexpected-list events around it.
 *
 * Rank 0 sends Puts, a Get and atomics that only overflow entries of rank 1
 * accept, so rank 1 keeps their headers. Rank 1 then searches:
 *  - PTL_SEARCH_ONLY reports each match with a PTL_EVENT_SEARCH (PTL_NI_OK,
 *    filled as an overflow event: start in the overflow buffer, lengths,
 *    match bits, hdr_data, initiator) and keeps the headers; a use-once entry
 *    stops at the first match; no match is one SEARCH event with
 *    PTL_NI_NO_MATCH and the user_ptr;
 *  - PTL_SEARCH_DELETE reports each match with the overflow event of its
 *    operation (PUT_/GET_/ATOMIC_/FETCH_ATOMIC_OVERFLOW), removes the header,
 *    and counts it with PTL_ME_EVENT_CT_OVERFLOW (built against the current
 *    generation of Sandia's portals4.h, a persistent search also counts its
 *    end as a failure: generation_options.c checks counting searches);
 *  - the search entry is never linked; an entry with
 *    PTL_ME_EVENT_COMM_DISABLE searches silently;
 *  - a use-once overflow entry that was used up gives AUTO_UNLINK at once and
 *    AUTO_FREE when its last header is deleted; an overflow entry with
 *    PTL_ME_UNEXPECTED_HDR_DISABLE keeps no header;
 *  - PtlLESearch on a non-matching NI; argument errors.
 */
#include "conformance_common.h"

#define PT_S 9
#define PT_L 10

static unsigned char obuf[512], ubuf[16], lbuf[64], pbuf[64], hbuf[16];
static unsigned char src[64], res[16];
static char U_search, U_over, U_use_once, U_le;

static void sender(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 32, &eq));
    ptl_handle_md_t md = cf_bind(ni, src, sizeof src, 0, eq, PTL_CT_NONE);
    ptl_handle_md_t mdr = cf_bind(ni, res, sizeof res, 0, eq, PTL_CT_NONE);
    ptl_process_t peer = e2e_peer(1);
    for (size_t i = 0; i < sizeof src; ++i)
        src[i] = (unsigned char)(i + 1);
    int64_t five = 5, six = 6;
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_S, 0x10, 0, NULL, 1));
    cf_expect(eq, PTL_EVENT_ACK, "m1");
    E2E_OK(PtlPut(md, 8, 16, PTL_ACK_REQ, peer, PT_S, 0x10, 0, NULL, 2));
    cf_expect(eq, PTL_EVENT_ACK, "m2");
    E2E_OK(PtlPut(md, 24, 8, PTL_ACK_REQ, peer, PT_S, 0x20, 0, NULL, 3));
    cf_expect(eq, PTL_EVENT_ACK, "m3");
    E2E_OK(PtlGet(mdr, 0, 8, peer, PT_S, 0x30, 0, NULL));
    cf_expect(eq, PTL_EVENT_REPLY, "m4");
    memcpy(src + 32, &five, 8);
    memcpy(src + 40, &six, 8);
    E2E_OK(PtlAtomic(md, 32, 8, PTL_ACK_REQ, peer, PT_S, 0x40, 0, NULL, 5, PTL_SUM, PTL_INT64_T));
    cf_expect(eq, PTL_EVENT_ACK, "m5");
    E2E_OK(PtlFetchAtomic(mdr, 8, md, 40, 8, peer, PT_S, 0x50, 0, NULL, 6, PTL_SUM, PTL_INT64_T));
    cf_expect(eq, PTL_EVENT_REPLY, "m6");
    E2E_OK(PtlPut(md, 48, 8, PTL_ACK_REQ, peer, PT_S, 0x5, 0, NULL, 7));
    cf_expect(eq, PTL_EVENT_ACK, "m7");
    E2E_OK(PtlPut(md, 56, 8, PTL_ACK_REQ, peer, PT_S, 0x60, 0, NULL, 9));
    cf_expect(eq, PTL_EVENT_ACK, "m9");
    /* To the LE of the non-matching NI. */
    ptl_handle_eq_t eq2;
    E2E_OK(PtlEQAlloc(ni2, 8, &eq2));
    ptl_handle_md_t md2 = cf_bind(ni2, src, sizeof src, 0, eq2, PTL_CT_NONE);
    E2E_OK(PtlPut(md2, 0, 32, PTL_ACK_REQ, peer, PT_L, 0, 0, NULL, 8));
    cf_expect(eq2, PTL_EVENT_ACK, "m8");
    e2e_barrier(); /* 1: all sent */
    e2e_barrier(); /* 2: rank 1 searched */
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMDRelease(mdr));
    E2E_OK(PtlMDRelease(md2));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(eq2));
}

static void search(ptl_handle_ni_t ni, ptl_match_bits_t bits, ptl_match_bits_t ignore, unsigned options,
                   ptl_handle_ct_t ct, ptl_search_op_t op)
{
    ptl_me_t me = cf_me(pbuf, sizeof pbuf, bits, PTL_ME_OP_PUT | PTL_ME_OP_GET | options, ct);
    me.ignore_bits = ignore;
    E2E_OK(PtlMESearch(ni, PT_S, &me, op, &U_search));
}

/* The next event must be a SEARCH or overflow event for message `hdr`,
 * placed at `offset` of the overflow buffer. */
static void expect_found(ptl_handle_eq_t eq, ptl_event_kind_t kind, ptl_hdr_data_t hdr, size_t offset,
                         ptl_size_t rlength, ptl_match_bits_t bits, const char *what)
{
    ptl_event_t ev = cf_expect(eq, kind, what);
    E2E_CHECK(ev.hdr_data == hdr && ev.start == obuf + offset && ev.rlength == rlength && ev.mlength == rlength &&
                  ev.match_bits == bits && ev.initiator.rank == 0 && ev.user_ptr == &U_search &&
                  ev.pt_index == PT_S && ev.ptl_list == PTL_OVERFLOW_LIST,
              "%s: hdr_data %llu (expected %llu), start %p (expected %p), rlength %llu mlength %llu (expected "
              "%llu), match_bits 0x%llx, initiator %u, user_ptr %p, ptl_list %d",
              what, (unsigned long long)ev.hdr_data, (unsigned long long)hdr, ev.start, (void *)(obuf + offset),
              (unsigned long long)ev.rlength, (unsigned long long)ev.mlength, (unsigned long long)rlength,
              (unsigned long long)ev.match_bits, ev.initiator.rank, ev.user_ptr, (int)ev.ptl_list);
}

static void expect_no_match(ptl_handle_eq_t eq, void *user_ptr, const char *what)
{
    ptl_event_t ev = cf_expect_fail(eq, PTL_EVENT_SEARCH, PTL_NI_NO_MATCH, 0, what);
    E2E_CHECK(ev.user_ptr == user_ptr, "%s: user_ptr %p, expected %p", what, ev.user_ptr, user_ptr);
}

static void searcher(ptl_handle_ni_t ni, ptl_handle_ni_t ni2)
{
    ptl_handle_eq_t eq, eq2;
    ptl_handle_ct_t ct;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlEQAlloc(ni2, 16, &eq2));
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_S, &pt));
    E2E_OK(PtlPTAlloc(ni2, 0, eq2, PT_L, &pt));
    ptl_me_t use_once = cf_me(ubuf, sizeof ubuf, 0x5,
                              PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE,
                              PTL_CT_NONE);
    ptl_handle_me_t hu, ho, hp;
    E2E_OK(PtlMEAppend(ni, PT_S, &use_once, PTL_OVERFLOW_LIST, &U_use_once, &hu));
    /* Keeps no header of what it receives. */
    ptl_handle_me_t hh = cf_append(ni, PT_S, hbuf, sizeof hbuf, 0x60,
                                   PTL_ME_OP_PUT | PTL_ME_UNEXPECTED_HDR_DISABLE | PTL_ME_EVENT_COMM_DISABLE |
                                       PTL_ME_EVENT_LINK_DISABLE,
                                   PTL_CT_NONE, PTL_OVERFLOW_LIST, NULL);
    ptl_me_t over = cf_me(obuf, sizeof obuf, 0,
                          PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_COMM_DISABLE |
                              PTL_ME_EVENT_LINK_DISABLE,
                          PTL_CT_NONE);
    over.ignore_bits = ~(ptl_match_bits_t)0;
    E2E_OK(PtlMEAppend(ni, PT_S, &over, PTL_OVERFLOW_LIST, &U_over, &ho));
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = lbuf;
    le.length = sizeof lbuf;
    le.ct_handle = PTL_CT_NONE;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_COMM_DISABLE | PTL_LE_EVENT_LINK_DISABLE;
    ptl_handle_le_t hl;
    E2E_OK(PtlLEAppend(ni2, PT_L, &le, PTL_OVERFLOW_LIST, &U_le, &hl));
    e2e_barrier(); /* 0: entries posted */
    e2e_barrier(); /* 1: all sent */

    ptl_event_t ev = cf_expect(eq, PTL_EVENT_AUTO_UNLINK, "the used-up use-once overflow entry");
    E2E_CHECK(ev.user_ptr == &U_use_once, "AUTO_UNLINK user_ptr %p", ev.user_ptr);
    cf_expect_empty(eq, "no AUTO_FREE while a header points into the entry");

    /* Search only: every match, headers kept. */
    for (int round = 0; round < 2; ++round) {
        search(ni, 0x10, 0, 0, PTL_CT_NONE, PTL_SEARCH_ONLY);
        expect_found(eq, PTL_EVENT_SEARCH, 1, 0, 8, 0x10, "SEARCH_ONLY, first match");
        expect_found(eq, PTL_EVENT_SEARCH, 2, 8, 16, 0x10, "SEARCH_ONLY, second match");
        cf_expect_empty(eq, "SEARCH_ONLY: two matches only");
    }
    search(ni, 0x10, 0, PTL_ME_USE_ONCE, PTL_CT_NONE, PTL_SEARCH_ONLY);
    expect_found(eq, PTL_EVENT_SEARCH, 1, 0, 8, 0x10, "use-once SEARCH_ONLY");
    cf_expect_empty(eq, "use-once SEARCH_ONLY stops at the first match");
    search(ni, 0x99, 0, 0, PTL_CT_NONE, PTL_SEARCH_ONLY);
    expect_no_match(eq, &U_search, "SEARCH_ONLY without a match");
    search(ni, 0x60, 0, 0, PTL_CT_NONE, PTL_SEARCH_ONLY);
    expect_no_match(eq, &U_search, "SEARCH_ONLY for a message of a PTL_ME_UNEXPECTED_HDR_DISABLE entry");
    E2E_CHECK(hbuf[0] == 57 && hbuf[7] == 64, "the PTL_ME_UNEXPECTED_HDR_DISABLE entry got the data");
    search(ni, 0x10, 0, PTL_ME_EVENT_COMM_DISABLE, PTL_CT_NONE, PTL_SEARCH_ONLY);
    search(ni, 0x99, 0, PTL_ME_EVENT_COMM_DISABLE, PTL_CT_NONE, PTL_SEARCH_DELETE);
    cf_expect_empty(eq, "searches with PTL_ME_EVENT_COMM_DISABLE");

    /* Search and delete: the overflow event of each operation, counted. */
    search(ni, 0x10, 0, PTL_ME_USE_ONCE | PTL_ME_EVENT_CT_OVERFLOW, ct, PTL_SEARCH_DELETE);
    expect_found(eq, PTL_EVENT_PUT_OVERFLOW, 1, 0, 8, 0x10, "use-once SEARCH_DELETE");
    cf_wait_ct(ct, 1, 0, "PTL_ME_EVENT_CT_OVERFLOW of SEARCH_DELETE");
    search(ni, 0x10, 0, 0, PTL_CT_NONE, PTL_SEARCH_ONLY);
    expect_found(eq, PTL_EVENT_SEARCH, 2, 8, 16, 0x10, "SEARCH_ONLY after a deletion");
    cf_expect_empty(eq, "the deleted header is gone");
    search(ni, 0x30, 0, 0, PTL_CT_NONE, PTL_SEARCH_DELETE);
    expect_found(eq, PTL_EVENT_GET_OVERFLOW, 0, 32, 8, 0x30, "SEARCH_DELETE of a Get");
    search(ni, 0x40, 0, PTL_ME_EVENT_CT_OVERFLOW | PTL_ME_EVENT_CT_BYTES, ct, PTL_SEARCH_DELETE);
    ev = cf_expect(eq, PTL_EVENT_ATOMIC_OVERFLOW, "SEARCH_DELETE of a PtlAtomic");
    E2E_CHECK(ev.start == obuf + 40 && ev.hdr_data == 5 && ev.atomic_operation == PTL_SUM &&
                  ev.atomic_type == PTL_INT64_T && ev.mlength == 8,
              "ATOMIC_OVERFLOW: start %p, hdr_data %llu, operation %d, datatype %d", ev.start,
              (unsigned long long)ev.hdr_data, (int)ev.atomic_operation, (int)ev.atomic_type);
#ifdef E2E_SANDIA_CURRENT
    /* A counting search (current generation): a persistent search's end is
     * one failure as well. */
    cf_wait_ct(ct, 9, 1, "PTL_ME_EVENT_CT_BYTES counts the bytes of the match");
#else
    cf_wait_ct(ct, 9, 0, "PTL_ME_EVENT_CT_BYTES counts the bytes of the match");
#endif
    search(ni, 0x50, 0, 0, PTL_CT_NONE, PTL_SEARCH_DELETE);
    ev = cf_expect(eq, PTL_EVENT_FETCH_ATOMIC_OVERFLOW, "SEARCH_DELETE of a PtlFetchAtomic");
    E2E_CHECK(ev.start == obuf + 48 && ev.hdr_data == 6, "FETCH_ATOMIC_OVERFLOW: start %p, hdr_data %llu",
              ev.start, (unsigned long long)ev.hdr_data);
    int64_t five = 0, six = 0;
    memcpy(&five, obuf + 40, 8);
    memcpy(&six, obuf + 48, 8);
    E2E_CHECK(five == 5 && six == 6, "the atomics applied to the overflow buffer: %lld and %lld, expected 5 and 6",
              (long long)five, (long long)six);

    /* The last header in the used-up entry: AUTO_FREE follows its deletion. */
    search(ni, 0x5, 0, 0, PTL_CT_NONE, PTL_SEARCH_DELETE);
    ev = cf_expect(eq, PTL_EVENT_PUT_OVERFLOW, "SEARCH_DELETE of the use-once entry's message");
    E2E_CHECK(ev.start == ubuf && ev.hdr_data == 7, "PUT_OVERFLOW: start %p (expected %p), hdr_data %llu", ev.start,
              (void *)ubuf, (unsigned long long)ev.hdr_data);
    ev = cf_expect(eq, PTL_EVENT_AUTO_FREE, "the use-once overflow entry is free");
    E2E_CHECK(ev.user_ptr == &U_use_once, "AUTO_FREE user_ptr %p, expected %p", ev.user_ptr, (void *)&U_use_once);

    /* Everything left, oldest first; then nothing. */
    search(ni, 0, ~(ptl_match_bits_t)0, 0, PTL_CT_NONE, PTL_SEARCH_DELETE);
    expect_found(eq, PTL_EVENT_PUT_OVERFLOW, 2, 8, 16, 0x10, "SEARCH_DELETE of everything, first");
    expect_found(eq, PTL_EVENT_PUT_OVERFLOW, 3, 24, 8, 0x20, "SEARCH_DELETE of everything, second");
    cf_expect_empty(eq, "SEARCH_DELETE of everything");
    search(ni, 0, ~(ptl_match_bits_t)0, 0, PTL_CT_NONE, PTL_SEARCH_DELETE);
    expect_no_match(eq, &U_search, "SEARCH_DELETE of an empty list");
    search(ni, 0, ~(ptl_match_bits_t)0, 0, PTL_CT_NONE, PTL_SEARCH_ONLY);
    expect_no_match(eq, &U_search, "SEARCH_ONLY of an empty list");

    /* A priority append finds nothing left: it links. */
    hp = cf_append(ni, PT_S, pbuf, sizeof pbuf, 0x10, PTL_ME_OP_PUT, PTL_CT_NONE, PTL_PRIORITY_LIST, &U_search);
    cf_expect(eq, PTL_EVENT_LINK, "append after the deletions");
    cf_expect_empty(eq, "append after the deletions");

    /* PtlLESearch on the non-matching NI. */
    ptl_le_t pattern;
    memset(&pattern, 0, sizeof pattern);
    pattern.uid = PTL_UID_ANY;
    pattern.ct_handle = PTL_CT_NONE;
    pattern.options = PTL_LE_OP_PUT;
    E2E_OK(PtlLESearch(ni2, PT_L, &pattern, PTL_SEARCH_ONLY, &U_le));
    ev = cf_expect(eq2, PTL_EVENT_SEARCH, "PtlLESearch SEARCH_ONLY");
    E2E_CHECK(ev.start == lbuf && ev.rlength == 32 && ev.hdr_data == 8 && ev.user_ptr == &U_le,
              "PtlLESearch: start %p, rlength %llu, hdr_data %llu", ev.start, (unsigned long long)ev.rlength,
              (unsigned long long)ev.hdr_data);
    E2E_OK(PtlLESearch(ni2, PT_L, &pattern, PTL_SEARCH_DELETE, &U_le));
    cf_expect(eq2, PTL_EVENT_PUT_OVERFLOW, "PtlLESearch SEARCH_DELETE");
    E2E_OK(PtlLESearch(ni2, PT_L, &pattern, PTL_SEARCH_DELETE, &U_le));
    expect_no_match(eq2, &U_le, "PtlLESearch of an empty list");

    /* Arguments. */
    ptl_me_t me = cf_me(pbuf, sizeof pbuf, 0, PTL_ME_OP_PUT, PTL_CT_NONE);
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMESearch(ni, PT_S, &me, (ptl_search_op_t)7, NULL));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMESearch(ni, PT_S, NULL, PTL_SEARCH_ONLY, NULL));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMESearch(ni, 33, &me, PTL_SEARCH_ONLY, NULL)); /* not allocated */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMESearch(ni2, PT_L, &me, PTL_SEARCH_ONLY, NULL)); /* non-matching NI */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlLESearch(ni, PT_S, &pattern, PTL_SEARCH_ONLY, NULL)); /* matching NI */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMESearch(PTL_INVALID_HANDLE, PT_S, &me, PTL_SEARCH_ONLY, NULL));
    cf_expect_empty(eq, "refused searches");
    cf_expect_empty(eq2, "refused searches");

    e2e_barrier(); /* 2 */
    E2E_OK(PtlMEUnlink(ho));
    E2E_OK(PtlMEUnlink(hp));
    E2E_OK(PtlMEUnlink(hh));
    E2E_OK(PtlLEUnlink(hl));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(hu)); /* unlinked itself */
    E2E_OK(PtlPTFree(ni, PT_S));
    E2E_OK(PtlPTFree(ni2, PT_L));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(eq2));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_handle_ni_t ni2;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni2));
    if (e2e_rank == 0) {
        e2e_barrier(); /* 0 */
        sender(ni, ni2);
    } else {
        searcher(ni, ni2);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni2));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("unexpected_search");
}
