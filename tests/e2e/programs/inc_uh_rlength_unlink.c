/*
 * PtlMEUnlink of an ME that PTL_ME_LOCAL_INC_UH_RLENGTH unlinked at append
 * (current generation of Sandia's portals4.h), the case of Sandia's
 * test_manage_local_and_inc_uh_rlength: five unexpected 8-byte Puts with
 * match bits 55, then a persistent, locally managed ME of 48 bytes with
 * min_free 30 appended to the priority list takes them until less than
 * min_free is left (the third), and is not linked (PTL_EVENT_AUTO_UNLINK, no
 * LINK). A program cannot know that in advance, so it unlinks the ME anyway:
 * PtlMEUnlink answers PTL_OK, as in Sandia's implementation, once (the
 * handle is stale afterwards). Meanwhile the ME takes nothing: a Put with
 * match bits 55 goes to the overflow list. The same with
 * PTL_ME_EVENT_UNLINK_DISABLE (no event at all), and an ME with room left
 * (200 x 8 bytes, min_free 1) that links and unlinks as usual. Ranks pair up
 * (0 sends to 1, ...); a rank without a partner sends to itself.
 */
#include "conformance_common.h"

#ifndef PTL_ME_LOCAL_INC_UH_RLENGTH
#error "inc_uh_rlength_unlink.c is for the current generation of Sandia's portals4.h"
#endif

#define PT_U 33
#define OPTIONS (PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_LOCAL_INC_UH_RLENGTH)

static uint64_t value = 0xdeadbeef, landing;
static uint64_t small_buffer[6], large_buffer[200], second_buffer[6];
static char U_small, U_large, U_second;

static void put_unexpected(ptl_handle_md_t md, ptl_handle_ct_t ct, ptl_process_t peer, int n, ptl_size_t acked)
{
    for (int i = 0; i < n; ++i)
        E2E_OK(PtlPut(md, 0, sizeof value, PTL_CT_ACK_REQ, peer, PT_U, 55, 0, NULL, 0));
    cf_wait_ct(ct, acked, 0, "the Puts acknowledged");
}

static ptl_handle_me_t append(ptl_handle_ni_t ni, uint64_t *buf, size_t length, ptl_size_t min_free, unsigned extra,
                              void *user_ptr)
{
    ptl_me_t me = cf_me(buf, length, 55, OPTIONS | extra, PTL_CT_NONE);
    me.min_free = min_free;
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(ni, PT_U, &me, PTL_PRIORITY_LIST, user_ptr, &h));
    return h;
}

/* `n` PUT_OVERFLOW events for the ME, then `then` (unless PTL_EVENT_SEND:
 * nothing), then nothing more. */
static void expect_taken(ptl_handle_eq_t eq, int n, void *user_ptr, ptl_event_kind_t then, const char *what)
{
    for (int i = 0; i < n; ++i) {
        ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT_OVERFLOW, what);
        E2E_CHECK(ev.user_ptr == user_ptr, "%s: PUT_OVERFLOW for user_ptr %p, expected %p", what, ev.user_ptr,
                  user_ptr);
    }
    if (then != PTL_EVENT_SEND) {
        ptl_event_t ev = cf_expect(eq, then, what);
        E2E_CHECK(ev.user_ptr == user_ptr, "%s: %s for user_ptr %p, expected %p", what, e2e_event_name(then),
                  ev.user_ptr, user_ptr);
    }
    cf_expect_empty(eq, what);
}

/* Deletes every header left, checking how many. */
static void delete_headers(ptl_handle_ni_t ni, ptl_handle_eq_t eq, int n, const char *what)
{
    ptl_me_t all = cf_me(&value, sizeof value, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE);
    all.ignore_bits = ~(ptl_match_bits_t)0;
    E2E_OK(PtlMESearch(ni, PT_U, &all, PTL_SEARCH_DELETE, NULL));
    if (n == 0) {
        cf_expect_fail(eq, PTL_EVENT_SEARCH, PTL_NI_NO_MATCH, 0, what);
    } else {
        for (int i = 0; i < n; ++i)
            cf_expect(eq, PTL_EVENT_PUT_OVERFLOW, what);
    }
    cf_expect_empty(eq, what);
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    const int sends = e2e_rank % 2 == 0;
    const int partner = sends ? (e2e_rank + 1 < e2e_size ? e2e_rank + 1 : e2e_rank) : e2e_rank - 1;
    const int receives = !sends || partner == e2e_rank;
    const ptl_process_t peer = e2e_peer(partner);

    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct = PTL_CT_NONE;
    ptl_handle_md_t md = PTL_INVALID_HANDLE;
    ptl_handle_me_t overflow = PTL_INVALID_HANDLE, small = PTL_INVALID_HANDLE;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    if (receives) {
        E2E_OK(PtlPTAlloc(ni, 0, eq, PT_U, &pt));
        ptl_me_t me = cf_me(&landing, sizeof landing, 1,
                            PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE, PTL_CT_NONE);
        me.ignore_bits = 0xffffffff;
        E2E_OK(PtlMEAppend(ni, PT_U, &me, PTL_OVERFLOW_LIST, NULL, &overflow));
    }
    if (sends) {
        E2E_OK(PtlCTAlloc(ni, &ct));
        md = cf_bind(ni, &value, sizeof value, PTL_MD_EVENT_CT_ACK, PTL_EQ_NONE, ct);
    }
    e2e_barrier(); /* the overflow entry is there */
    if (sends)
        put_unexpected(md, ct, peer, 5, 5);
    e2e_barrier(); /* five headers */
    if (receives) {
        /* 48 bytes, min_free 30: 8, 16, then 24 taken leave 24 < 30. */
        small = append(ni, small_buffer, sizeof small_buffer, 30, 0, &U_small);
        expect_taken(eq, 3, &U_small, PTL_EVENT_AUTO_UNLINK, "an ME used up at append");
    }
    e2e_barrier();
    if (sends)
        put_unexpected(md, ct, peer, 1, 6);
    e2e_barrier(); /* a Put that the used-up ME must not take */
    if (receives) {
        cf_expect_empty(eq, "a Put after the ME was used up: not for it");
        delete_headers(ni, eq, 3, "the two headers left and the later Put are unexpected");
        E2E_EXPECT_RC(PTL_OK, PtlMEUnlink(small));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(small));
    }
    e2e_barrier();
    if (sends)
        put_unexpected(md, ct, peer, 5, 11);
    e2e_barrier(); /* five more headers */
    if (receives) {
        ptl_handle_me_t silent = append(ni, second_buffer, sizeof second_buffer, 30,
                                        PTL_ME_EVENT_UNLINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE, &U_second);
        cf_expect_empty(eq, "PTL_ME_EVENT_UNLINK_DISABLE: neither AUTO_UNLINK nor LINK");
        E2E_EXPECT_RC(PTL_OK, PtlMEUnlink(silent));
        delete_headers(ni, eq, 2, "the headers the silent ME left");
    }
    e2e_barrier();
    if (sends)
        put_unexpected(md, ct, peer, 5, 16);
    e2e_barrier(); /* five more headers */
    if (receives) {
        /* Room left: 200 x 8 bytes, min_free 1, takes all five and links. */
        ptl_handle_me_t large = append(ni, large_buffer, sizeof large_buffer, 1, 0, &U_large);
        expect_taken(eq, 5, &U_large, PTL_EVENT_LINK, "an ME with room left");
        delete_headers(ni, eq, 0, "no header left");
        E2E_EXPECT_RC(PTL_OK, PtlMEUnlink(large));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(large));
        E2E_OK(PtlMEUnlink(overflow));
        E2E_OK(PtlPTFree(ni, PT_U));
        printf("inc_uh_rlength_unlink: rank %d unlinked the MEs used up at append\n", e2e_rank);
    }
    if (sends) {
        E2E_OK(PtlMDRelease(md));
        E2E_OK(PtlCTFree(ct));
    }
    e2e_barrier();
    E2E_OK(PtlEQFree(eq));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("inc_uh_rlength_unlink");
}
