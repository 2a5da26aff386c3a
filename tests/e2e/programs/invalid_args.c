/*
 * Return codes for invalid handles and arguments, as the Portals 4.1
 * specification defines them: every call below must return exactly the
 * expected code, must not block and must not break the library, which is
 * then checked with a Put to self. Runs on any number of ranks (each rank
 * works alone).
 */
#include "e2e_common.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define BOGUS1 ((ptl_handle_any_t)PTL_INVALID_HANDLE)
#define BOGUS2 ((ptl_handle_any_t)0x7ead0001u)

static unsigned char buf[256], dst[256];

static ptl_md_t make_md(ptl_handle_eq_t eq, ptl_handle_ct_t ct)
{
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = buf;
    md.length = sizeof buf;
    md.options = 0;
    md.eq_handle = eq;
    md.ct_handle = ct;
    return md;
}

static ptl_me_t make_me(ptl_handle_ct_t ct)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = dst;
    me.length = sizeof dst;
    me.ct_handle = ct;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    me.match_id.rank = PTL_RANK_ANY;
    me.match_bits = 0x42;
    return me;
}

int main(void)
{
    ptl_handle_ni_t ni, ni2, h;
    ptl_ni_limits_t limits;
    ptl_handle_eq_t eq, eq_scratch, bogus_eqs[1] = {BOGUS2};
    ptl_handle_ct_t ct, ct_scratch;
    ptl_handle_md_t md_h;
    ptl_handle_me_t me_h;
    ptl_handle_le_t le_h;
    ptl_pt_index_t pt;
    ptl_event_t ev;
    ptl_ct_event_t cte, one = {1, 0};
    ptl_process_t id;
    ptl_sr_value_t sr;
    ptl_md_t md;
    ptl_me_t me;
    ptl_le_t le;
    ptl_size_t test = 1;
    unsigned int which;
    const ptl_handle_any_t bogus[2] = {BOGUS1, BOGUS2};

    /* Nothing works before PtlInit. */
    E2E_EXPECT_RC(PTL_NO_INIT,
                  PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL,
                            PTL_PID_ANY, NULL, NULL, &ni));
    E2E_OK(PtlInit());

    /* PtlNIInit: contradictory options, unknown interface. */
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlNIInit(PTL_IFACE_DEFAULT,
                            PTL_NI_MATCHING | PTL_NI_NO_MATCHING |
                                PTL_NI_LOGICAL,
                            PTL_PID_ANY, NULL, NULL, &h));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlNIInit(PTL_IFACE_DEFAULT,
                            PTL_NI_MATCHING | PTL_NI_LOGICAL | PTL_NI_PHYSICAL,
                            PTL_PID_ANY, NULL, NULL, &h));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlNIInit(77, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY,
                            NULL, NULL, &h));

    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL,
                     PTL_PID_ANY, NULL, &limits, &ni));
    E2E_OK(PtlGetId(ni, &id));
    e2e_rank = (int)id.rank;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL,
                     PTL_PID_ANY, NULL, NULL, &ni2));
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));

    for (int b = 0; b < 2; ++b) {
        const ptl_handle_any_t x = bogus[b];
        fprintf(stderr, "invalid_args: rank %d: bogus handle 0x%08x\n",
                e2e_rank, (unsigned)x);
        /* Network interface. */
        md = make_md(PTL_EQ_NONE, PTL_CT_NONE);
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(x, &md, &md_h));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQAlloc(x, 16, &eq_scratch));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTAlloc(x, &ct_scratch));
        E2E_EXPECT_RC(PTL_ARG_INVALID,
                      PtlPTAlloc(x, 0, PTL_EQ_NONE, PTL_PT_ANY, &pt));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlGetId(x, &id));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlNIStatus(x, PTL_SR_DROP_COUNT, &sr));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlNIHandle(x, &h));
        me = make_me(PTL_CT_NONE);
        E2E_EXPECT_RC(PTL_ARG_INVALID,
                      PtlMEAppend(x, 0, &me, PTL_PRIORITY_LIST, NULL, &me_h));
        /* Event queue: must fail at once, never block. */
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQGet(x, &ev));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQWait(x, &ev));
        bogus_eqs[0] = x;
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(bogus_eqs, 1, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQFree(x));
        /* Counting event. */
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTGet(x, &cte));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTWait(x, 1, &cte));
        E2E_EXPECT_RC(PTL_ARG_INVALID,
                      PtlCTPoll(&x, &test, 1, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTSet(x, one));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTInc(x, one));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTFree(x));
        /* Memory descriptor and data movement. */
        E2E_EXPECT_RC(PTL_ARG_INVALID,
                      PtlPut(x, 0, 8, PTL_ACK_REQ, e2e_peer(e2e_rank), 0, 0, 0,
                             NULL, 0));
        E2E_EXPECT_RC(PTL_ARG_INVALID,
                      PtlGet(x, 0, 8, e2e_peer(e2e_rank), 0, 0, 0, NULL));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDRelease(x));
        /* List entries. */
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(x));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(x));
        /* An MD naming a bogus EQ or CT is not a legal descriptor. */
        md = make_md(x == BOGUS1 ? BOGUS2 : x, PTL_CT_NONE);
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &md, &md_h));
        md = make_md(PTL_EQ_NONE, x == BOGUS1 ? BOGUS2 : x);
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(ni, &md, &md_h));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlNIFini(x));
    }

    /* Handles of the wrong kind. */
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlPut(eq, 0, 8, PTL_ACK_REQ, e2e_peer(e2e_rank), 0, 0, 0,
                         NULL, 0));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTGet(eq, &cte));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQGet(ct, &ev));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDRelease(ct));
    md = make_md(PTL_EQ_NONE, PTL_CT_NONE);
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDBind(eq, &md, &md_h));
    /* The NI of an object. */
    E2E_OK(PtlNIHandle(eq, &h));
    E2E_CHECK(h == ni, "PtlNIHandle(eq 0x%08x) gave 0x%08x, not the NI 0x%08x",
              (unsigned)eq, (unsigned)h, (unsigned)ni);
    /* PtlHandleIsEqual is true (non-zero) for equal handles and 0 otherwise,
     * as in both real implementations (OpenMPI relies on it). */
    E2E_CHECK(PtlHandleIsEqual(ni, ni) != 0 && PtlHandleIsEqual(ni, eq) == 0 &&
                  PtlHandleIsEqual(PTL_INVALID_HANDLE, PTL_INVALID_HANDLE) != 0 &&
                  PtlHandleIsEqual(eq, PTL_INVALID_HANDLE) == 0,
              "PtlHandleIsEqual: not true for equal handles and false for different ones");

    /* Status register out of range. */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlNIStatus(ni, PTL_SR_LAST, &sr));

    /* Portal table indices. */
    const ptl_pt_index_t beyond = (ptl_pt_index_t)limits.max_pt_index + 1;
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, PTL_EQ_NONE, beyond, &pt));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlPTAlloc(ni, 0, PTL_EQ_NONE, 100000, &pt));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPTAlloc(ni, 0, BOGUS2, 1, &pt));
    E2E_EXPECT_RC(PTL_PT_EQ_NEEDED,
                  PtlPTAlloc(ni, PTL_PT_FLOWCTRL, PTL_EQ_NONE, 1, &pt));
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, 2, &pt));
    E2E_CHECK(pt == 2, "PtlPTAlloc(2) gave index %u", pt);
    E2E_EXPECT_RC(PTL_PT_IN_USE, PtlPTAlloc(ni, 0, PTL_EQ_NONE, 2, &pt));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPTFree(ni, 3));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPTFree(ni, beyond));
    ptl_pt_index_t any = 12345;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PTL_PT_ANY, &any));
    E2E_CHECK(any != 2 && any <= (ptl_pt_index_t)limits.max_pt_index,
              "PtlPTAlloc(PTL_PT_ANY) gave index %u", any);
    E2E_OK(PtlPTFree(ni, any));

    /* List entries: unallocated PT, bogus CT, wrong kind of NI. */
    me = make_me(PTL_CT_NONE);
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlMEAppend(ni, 3, &me, PTL_PRIORITY_LIST, NULL, &me_h));
    me = make_me(BOGUS2);
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlMEAppend(ni, 2, &me, PTL_PRIORITY_LIST, NULL, &me_h));
    /* An ME on a non-matching NI, to an allocated PT. */
    ptl_pt_index_t pt2;
    E2E_OK(PtlPTAlloc(ni2, 0, PTL_EQ_NONE, 2, &pt2));
    me = make_me(PTL_CT_NONE);
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlMEAppend(ni2, 2, &me, PTL_PRIORITY_LIST, NULL, &me_h));
    E2E_OK(PtlPTFree(ni2, 2));
    memset(&le, 0, sizeof le);
    le.start = dst;
    le.length = sizeof dst;
    le.ct_handle = PTL_CT_NONE;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT;
    /* An LE on a matching NI. */
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlLEAppend(ni, 2, &le, PTL_PRIORITY_LIST, NULL, &le_h));

    /* A PT with an entry is in use; an unlinked entry is gone. */
    E2E_OK(PtlMEAppend(ni, 2, &me, PTL_PRIORITY_LIST, NULL, &me_h));
    E2E_EXPECT_RC(PTL_PT_IN_USE, PtlPTFree(ni, 2));
    E2E_OK(PtlMEUnlink(me_h));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(me_h));
    E2E_OK(PtlPTFree(ni, 2));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPTFree(ni, 2));

    /* Stale handles. */
    md = make_md(PTL_EQ_NONE, PTL_CT_NONE);
    E2E_OK(PtlMDBind(ni, &md, &md_h));
    E2E_OK(PtlMDRelease(md_h));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDRelease(md_h));
    E2E_EXPECT_RC(PTL_ARG_INVALID,
                  PtlPut(md_h, 0, 8, PTL_ACK_REQ, e2e_peer(e2e_rank), 0, 0, 0,
                         NULL, 0));
    ptl_handle_eq_t eq_tmp;
    ptl_handle_ct_t ct_tmp;
    E2E_OK(PtlEQAlloc(ni, 4, &eq_tmp));
    E2E_OK(PtlEQFree(eq_tmp));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQGet(eq_tmp, &ev));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQFree(eq_tmp));
    E2E_OK(PtlCTAlloc(ni, &ct_tmp));
    E2E_OK(PtlCTFree(ct_tmp));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTGet(ct_tmp, &cte));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTFree(ct_tmp));

    /* Poll arrays that cannot be read whole (not mapped, or mapped up to a
     * page the array runs into): PTL_ARG_INVALID, never a fault, whether they
     * travel in the request (a few: the process reads them) or the server
     * reads them (a longer array); the same arrays, readable, are polled.
     * (An array of one to six event queues the process reads as any Portals
     * library does, to answer the poll itself: not here.) */
    {
        const size_t page = (size_t)sysconf(_SC_PAGESIZE);
        unsigned char *pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        E2E_CHECK(pages != MAP_FAILED && mprotect(pages + page, page, PROT_NONE) == 0,
                  "cannot map a page followed by an unreadable one");
        const void *unreadable = pages + page;
        ptl_handle_eq_t *eqs = (ptl_handle_eq_t *)unreadable - 9;
        for (int i = 0; i < 9; ++i)
            eqs[i] = eq;
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(eqs + 1, 8, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQPoll(eqs, 9, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(eqs + 2, 8, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(eqs + 1, 9, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(unreadable, 7, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(unreadable, 9, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(NULL, 1, 0, &ev, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlEQPoll(NULL, 7, 0, &ev, &which));
        ptl_size_t ct_tests[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
        ptl_handle_ct_t cts_ok[9] = {ct, ct, ct, ct, ct, ct, ct, ct, ct};
        ptl_handle_ct_t *cts = (ptl_handle_ct_t *)unreadable - 9;
        for (int i = 0; i < 9; ++i)
            cts[i] = ct;
        E2E_EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(cts + 7, ct_tests, 2, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(cts, ct_tests, 9, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(cts + 8, ct_tests, 2, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(cts + 1, ct_tests, 9, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(unreadable, ct_tests, 1, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(NULL, ct_tests, 1, 0, &cte, &which));
        ptl_size_t *tests_end = (ptl_size_t *)unreadable - 9;
        for (int i = 0; i < 9; ++i)
            tests_end[i] = 1;
        E2E_EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(cts_ok, tests_end + 7, 2, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_CT_NONE_REACHED, PtlCTPoll(cts_ok, tests_end, 9, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(cts_ok, tests_end + 8, 2, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(cts_ok, tests_end + 1, 9, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(cts_ok, unreadable, 1, 0, &cte, &which));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlCTPoll(cts_ok, NULL, 1, 0, &cte, &which));
        munmap(pages, 2 * page);
    }

    /* The library still works: a Put to self. */
    E2E_OK(PtlPTAlloc(ni, 0, eq, 4, &pt));
    me = make_me(PTL_CT_NONE);
    E2E_OK(PtlMEAppend(ni, 4, &me, PTL_PRIORITY_LIST, dst, &me_h));
    md = make_md(eq, ct);
    md.options = PTL_MD_EVENT_CT_ACK;
    E2E_OK(PtlMDBind(ni, &md, &md_h));
    for (size_t i = 0; i < sizeof buf; ++i)
        buf[i] = (unsigned char)(i ^ 0x5a);
    memset(dst, 0, sizeof dst);
    E2E_OK(PtlPut(md_h, 0, sizeof buf, PTL_ACK_REQ, e2e_peer(e2e_rank), 4,
                  0x42, 0, NULL, 7));
    E2E_OK(PtlCTWait(ct, 1, &cte));
    E2E_CHECK(cte.success == 1 && cte.failure == 0,
              "Put to self: counter {%llu, %llu}",
              (unsigned long long)cte.success,
              (unsigned long long)cte.failure);
    E2E_CHECK(memcmp(buf, dst, sizeof buf) == 0,
              "Put to self: data differ");
    int puts = 0, acks = 0;
    while (PtlEQGet(eq, &ev) == PTL_OK) {
        puts += ev.type == PTL_EVENT_PUT;
        acks += ev.type == PTL_EVENT_ACK;
    }
    E2E_CHECK(puts == 1 && acks == 1, "Put to self: %d PUT and %d ACK "
              "events, expected 1 and 1", puts, acks);

    E2E_OK(PtlMDRelease(md_h));
    E2E_OK(PtlMEUnlink(me_h));
    E2E_OK(PtlPTFree(ni, 4));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlCTFree(ct));
    E2E_OK(PtlNIFini(ni2));
    E2E_OK(PtlNIFini(ni));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlNIFini(ni));
    PtlFini();
    /* After the last PtlFini the library is uninitialised again. */
    E2E_EXPECT_RC(PTL_NO_INIT,
                  PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL,
                            PTL_PID_ANY, NULL, NULL, &ni));
    return e2e_finish("invalid_args");
}
