/*
 * Counting searches of the current generation of Sandia's portals4.h, the
 * cases of Sandia's own tests (test_search_only_counter_{me,le},
 * test_search_delete_counter_{me,le}_{1,2,3}): the target zeroes the
 * counter with PtlCTSet, searches with an entry that carries it, and reads it
 * with PtlCTGet as soon as PtlMESearch/PtlLESearch returns, nothing in
 * between:
 *  - SEARCH_ONLY, persistent entry, without PTL_ME_EVENT_CT_OVERFLOW (nor
 *    PTL_ME_EVENT_CT_COMM): a success per matching unexpected header and one
 *    failure for the end of the search ({2,1} for two matches, {3,1} for
 *    three); a use-once entry: {1,0} with a match, {0,1} without;
 *  - SEARCH_DELETE with PTL_ME_EVENT_CT_OVERFLOW: the same counts, and the
 *    headers go ({3,1}, then {0,1} for the same search again, {5,1} for the
 *    other match bits); a use-once entry takes one header ({1,0});
 *  - the same through PtlLESearch on a non-matching NI ({5,1} and {1,0}
 *    searching only; {0,1} deleting from an empty list, use-once or not).
 * The counter is the one the overflow entry was appended with, as in
 * Sandia's tests. Ranks pair up (0 sends to 1, 2 to 3, ...); a rank without
 * a partner sends to itself.
 */
#include "conformance_common.h"

#ifndef PTL_ME_LOCAL_INC_UH_RLENGTH
#error "search_counters.c is for the current generation of Sandia's portals4.h"
#endif

#define PT_ONLY 30   /* headers 1, 55, 1, 1, 55 for the searches that keep them */
#define PT_DELETE 31 /* headers 1, 55, 1, 1, 1, 55, 55, 1 for the searches that delete */
#define PT_LE 32     /* five headers on the non-matching NI */

static uint64_t value = 0xdeadbeef, landing[3];
static int checks;

static ptl_handle_me_t overflow_me(ptl_handle_ni_t ni, ptl_pt_index_t pt, uint64_t *buf, ptl_handle_ct_t ct)
{
    ptl_me_t me = cf_me(buf, sizeof *buf, 1, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE,
                        ct);
    me.ignore_bits = 0xffffffff; /* everything */
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(ni, pt, &me, PTL_OVERFLOW_LIST, NULL, &h));
    return h;
}

/* PtlCTSet to zero, the search, then the counter at once. */
static void me_search(ptl_handle_ni_t ni, ptl_pt_index_t pt, ptl_handle_ct_t ct, ptl_match_bits_t bits,
                      unsigned options, ptl_search_op_t op, ptl_size_t success, ptl_size_t failure, const char *what)
{
    E2E_OK(PtlCTSet(ct, (ptl_ct_event_t){0, 0}));
    ptl_me_t me = cf_me(&value, sizeof value, bits, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | options, ct);
    E2E_OK(PtlMESearch(ni, pt, &me, op, NULL));
    cf_check_ct(ct, success, failure, what);
    checks++;
}

static void le_search(ptl_handle_ni_t ni, ptl_handle_ct_t ct, unsigned options, ptl_search_op_t op, ptl_size_t success,
                      ptl_size_t failure, const char *what)
{
    E2E_OK(PtlCTSet(ct, (ptl_ct_event_t){0, 0}));
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = &value;
    le.length = sizeof value;
    le.uid = PTL_UID_ANY;
    le.ct_handle = ct;
    le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE | options;
    E2E_OK(PtlLESearch(ni, PT_LE, &le, op, NULL));
    cf_check_ct(ct, success, failure, what);
    checks++;
}

static void send_headers(ptl_handle_ni_t ni, ptl_handle_ni_t ni2, ptl_process_t peer)
{
    ptl_handle_ct_t ct, ct2;
    E2E_OK(PtlCTAlloc(ni, &ct));
    E2E_OK(PtlCTAlloc(ni2, &ct2));
    ptl_handle_md_t md = cf_bind(ni, &value, sizeof value, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct);
    ptl_handle_md_t md2 = cf_bind(ni2, &value, sizeof value, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct2);
    const ptl_match_bits_t only[] = {1, 55, 1, 1, 55};
    const ptl_match_bits_t deleted[] = {1, 55, 1, 1, 1, 55, 55, 1};
    for (size_t i = 0; i < sizeof only / sizeof only[0]; ++i)
        E2E_OK(PtlPut(md, 0, sizeof value, PTL_CT_ACK_REQ, peer, PT_ONLY, only[i], 0, NULL, 0));
    for (size_t i = 0; i < sizeof deleted / sizeof deleted[0]; ++i)
        E2E_OK(PtlPut(md, 0, sizeof value, PTL_CT_ACK_REQ, peer, PT_DELETE, deleted[i], 0, NULL, 0));
    for (int i = 0; i < 5; ++i)
        E2E_OK(PtlPut(md2, 0, sizeof value, PTL_CT_ACK_REQ, peer, PT_LE, 0, 0, NULL, 0));
    cf_wait_ct(ct, 13, 0, "every header acknowledged");
    cf_wait_ct(ct2, 5, 0, "every header to the LE acknowledged");
    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMDRelease(md2));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlCTFree(ct2));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    ptl_handle_ni_t ni2;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni2));
    const int sends = e2e_rank % 2 == 0;
    const int partner = sends ? (e2e_rank + 1 < e2e_size ? e2e_rank + 1 : e2e_rank) : e2e_rank - 1;
    const int receives = !sends || partner == e2e_rank;

    ptl_handle_eq_t eq, eq2;
    ptl_handle_ct_t ct_only = PTL_CT_NONE, ct_delete = PTL_CT_NONE, ct_le = PTL_CT_NONE;
    ptl_handle_me_t over_only = PTL_INVALID_HANDLE, over_delete = PTL_INVALID_HANDLE;
    ptl_handle_le_t over_le = PTL_INVALID_HANDLE;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 256, &eq));
    E2E_OK(PtlEQAlloc(ni2, 256, &eq2));
    if (receives) {
        E2E_OK(PtlPTAlloc(ni, 0, eq, PT_ONLY, &pt));
        E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DELETE, &pt));
        E2E_OK(PtlPTAlloc(ni2, 0, eq2, PT_LE, &pt));
        E2E_OK(PtlCTAlloc(ni, &ct_only));
        E2E_OK(PtlCTAlloc(ni, &ct_delete));
        E2E_OK(PtlCTAlloc(ni2, &ct_le));
        over_only = overflow_me(ni, PT_ONLY, &landing[0], ct_only);
        over_delete = overflow_me(ni, PT_DELETE, &landing[1], ct_delete);
        ptl_le_t le;
        memset(&le, 0, sizeof le);
        le.start = &landing[2];
        le.length = sizeof landing[2];
        le.uid = PTL_UID_ANY;
        le.ct_handle = ct_le;
        le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE | PTL_LE_EVENT_COMM_DISABLE;
        E2E_OK(PtlLEAppend(ni2, PT_LE, &le, PTL_OVERFLOW_LIST, NULL, &over_le));
    }
    e2e_barrier(); /* the overflow entries are there */
    if (sends)
        send_headers(ni, ni2, e2e_peer(partner));
    e2e_barrier(); /* every header arrived */

    if (receives) {
        /* test_search_only_counter_me */
        me_search(ni, PT_ONLY, ct_only, 55, 0, PTL_SEARCH_ONLY, 2, 1, "SEARCH_ONLY, two matches");
        me_search(ni, PT_ONLY, ct_only, 1, 0, PTL_SEARCH_ONLY, 3, 1, "SEARCH_ONLY, three matches");
        me_search(ni, PT_ONLY, ct_only, 1, PTL_ME_USE_ONCE, PTL_SEARCH_ONLY, 1, 0, "use-once SEARCH_ONLY, a match");
        me_search(ni, PT_ONLY, ct_only, 101, PTL_ME_USE_ONCE, PTL_SEARCH_ONLY, 0, 1, "use-once SEARCH_ONLY, no match");
        me_search(ni, PT_ONLY, ct_only, 55, 0, PTL_SEARCH_ONLY, 2, 1, "SEARCH_ONLY keeps the headers");

        /* test_search_delete_counter_me_{1,2,3} */
        const unsigned over = PTL_ME_EVENT_CT_OVERFLOW;
        me_search(ni, PT_DELETE, ct_delete, 99, over, PTL_SEARCH_DELETE, 0, 1, "SEARCH_DELETE, no match");
        me_search(ni, PT_DELETE, ct_delete, 99, over | PTL_ME_USE_ONCE, PTL_SEARCH_DELETE, 0, 1,
                  "use-once SEARCH_DELETE, no match");
        me_search(ni, PT_DELETE, ct_delete, 55, over, PTL_SEARCH_DELETE, 3, 1, "SEARCH_DELETE, three matches");
        me_search(ni, PT_DELETE, ct_delete, 55, over, PTL_SEARCH_DELETE, 0, 1, "SEARCH_DELETE, the headers gone");
        me_search(ni, PT_DELETE, ct_delete, 1, over | PTL_ME_USE_ONCE, PTL_SEARCH_DELETE, 1, 0,
                  "use-once SEARCH_DELETE takes one header");
        me_search(ni, PT_DELETE, ct_delete, 1, over, PTL_SEARCH_DELETE, 4, 1, "SEARCH_DELETE, the four left");

        /* test_search_only_counter_le, test_search_delete_counter_le_{1,2,3} */
        le_search(ni2, ct_le, 0, PTL_SEARCH_ONLY, 5, 1, "PtlLESearch SEARCH_ONLY");
        le_search(ni2, ct_le, PTL_LE_USE_ONCE, PTL_SEARCH_ONLY, 1, 0, "use-once PtlLESearch SEARCH_ONLY");
        le_search(ni2, ct_le, PTL_LE_EVENT_CT_OVERFLOW, PTL_SEARCH_DELETE, 5, 1, "PtlLESearch SEARCH_DELETE");
        le_search(ni2, ct_le, PTL_LE_EVENT_CT_OVERFLOW, PTL_SEARCH_DELETE, 0, 1,
                  "PtlLESearch SEARCH_DELETE, empty list");
        le_search(ni2, ct_le, PTL_LE_EVENT_CT_OVERFLOW | PTL_LE_USE_ONCE, PTL_SEARCH_DELETE, 0, 1,
                  "use-once PtlLESearch SEARCH_DELETE, empty list");

        /* What is left goes, then the entries. */
        ptl_me_t all = cf_me(&value, sizeof value, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_COMM_DISABLE, PTL_CT_NONE);
        all.ignore_bits = 0xffffffff;
        E2E_OK(PtlMESearch(ni, PT_ONLY, &all, PTL_SEARCH_DELETE, NULL));
        E2E_OK(PtlMEUnlink(over_only));
        E2E_OK(PtlMEUnlink(over_delete));
        E2E_OK(PtlLEUnlink(over_le));
        E2E_OK(PtlPTFree(ni, PT_ONLY));
        E2E_OK(PtlPTFree(ni, PT_DELETE));
        E2E_OK(PtlPTFree(ni2, PT_LE));
        E2E_OK(PtlCTFree(ct_only));
        E2E_OK(PtlCTFree(ct_delete));
        E2E_OK(PtlCTFree(ct_le));
        printf("search_counters: rank %d read %d counters right after their searches\n", e2e_rank, checks);
    }
    e2e_barrier();
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(eq2));
    E2E_OK(PtlNIFini(ni2));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("search_counters");
}
