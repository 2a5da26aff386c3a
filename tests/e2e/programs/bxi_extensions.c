/*
 * A program written for a BXI machine: compiled against the BXI flavour of
 * portals4.h and its portals4_bxiext.h only (tests/e2e/CMakeLists.txt).
 *
 * Checks what is BXI's own: pointer handles with NULL as the "none" handle,
 * the string conversions (PtlToStr, PtlFailTypeSize, the ptl_ev_desc table,
 * ptl_evtostr on real events), a non-blocking call (PtlPutNB), the
 * per-NI atomic sync, the descriptor-free progress interface, a forever poll
 * with BXI's PTL_TIME_FOREVER (-1), and BXI's wildcards: PTL_RANK_ANY
 * (0x7fffff) on the logical NI (the barrier), PTL_NID_ANY and PTL_PID_ANY
 * (both 0) on a physical NI, which must match the peer on node 1.
 *
 * Two ranks: rank 0 puts to rank 1 on the logical NI, rank 1 puts to rank 0
 * on the physical NI.
 */
#include "e2e_common.h"

#include <portals4_bxiext.h>

#include <stdint.h>

#define PT_LOGICAL  3
#define PT_PHYSICAL 4
#define BITS        0x5EULL
#define HDR         0xB0B0CAFEULL

static void check_name(const char *got, const char *want, const char *what)
{
    E2E_CHECK(strcmp(got, want) == 0, "%s: \"%s\", expected \"%s\"", what, got,
              want);
}

static void check_strings(void)
{
    check_name(PtlToStr(PTL_OK, PTL_STR_ERROR), "PTL_OK", "PtlToStr(PTL_OK)");
    check_name(PtlToStr(PTL_EQ_EMPTY, PTL_STR_ERROR), "PTL_EQ_EMPTY",
               "PtlToStr(PTL_EQ_EMPTY)");
    check_name(PtlToStr(PTL_PT_IN_USE, PTL_STR_ERROR), "PTL_PT_IN_USE",
               "PtlToStr(PTL_PT_IN_USE)");
    check_name(PtlToStr(12345, PTL_STR_ERROR), "Unknown", "PtlToStr(12345)");
    check_name(PtlToStr(PTL_EVENT_LINK, PTL_STR_EVENT), "PTL_EVENT_LINK",
               "PtlToStr(PTL_EVENT_LINK)");
    check_name(PtlToStr(PTL_EVENT_AUTO_UNLINK, PTL_STR_EVENT),
               "PTL_EVENT_AUTO_UNLINK", "PtlToStr(PTL_EVENT_AUTO_UNLINK)");
    check_name(PtlToStr(PTL_NI_DROPPED, PTL_STR_FAIL_TYPE), "PTL_NI_DROPPED",
               "PtlToStr(PTL_NI_DROPPED)");
    check_name(PtlToStr(PTL_ARG_INVALID, PTL_STR_FAIL_TYPE), "PTL_ARG_INVALID",
               "PtlToStr(PTL_ARG_INVALID as a failure)");

    int fail_types = PtlFailTypeSize();
    E2E_CHECK(fail_types == 12, "PtlFailTypeSize() is %d, expected 12",
              fail_types);
    for (int f = 0; f < fail_types; ++f)
        E2E_CHECK(strcmp(PtlToStr(f, PTL_STR_FAIL_TYPE), "Unknown") != 0,
                  "failure code %d has no name", f);

    int kinds = 0;
    for (const struct ptl_ev_desc *d = ptl_ev_desc; d->name != NULL; ++d) {
        char want[64];
        snprintf(want, sizeof want, "PTL_EVENT_%s", d->name);
        check_name(PtlToStr(d->type, PTL_STR_EVENT), want, "ptl_ev_desc entry");
        E2E_CHECK((d->flags & d->fail_flags) == d->fail_flags,
                  "ptl_ev_desc %s: a failed event has members a successful "
                  "one has not", d->name);
        ++kinds;
    }
    E2E_CHECK(kinds == 16, "ptl_ev_desc has %d kinds, expected 16", kinds);
}

/* ptl_evtostr on a real event: the kind, no failure, and the fields. */
static void check_description(unsigned int ni_options, ptl_event_t *ev,
                              const char *kind, const char *field)
{
    char line[PTL_EV_STR_SIZE];
    char want[64];
    int n = ptl_evtostr(ni_options, ev, line);
    E2E_CHECK(n > 0 && (size_t)n == strlen(line), "ptl_evtostr returned %d "
              "for a %zu-character line", n, strlen(line));
    snprintf(want, sizeof want, "type=%s fail=OK", kind);
    E2E_CHECK(strncmp(line, want, strlen(want)) == 0,
              "ptl_evtostr: \"%s\" does not start with \"%s\"", line, want);
    E2E_CHECK(strstr(line, field) != NULL,
              "ptl_evtostr: \"%s\" lacks \"%s\"", line, field);
    E2E_CHECK(n > 0 && line[n - 1] == '\n', "ptl_evtostr: no final newline");
    printf("bxi_extensions: rank %d: %s", e2e_rank, line);
}

static ptl_event_t wait_kind(ptl_handle_eq_t eq, ptl_event_kind_t kind)
{
    ptl_event_t ev;
    unsigned int which = 99;
    /* BXI's PTL_TIME_FOREVER is -1 (a long). */
    E2E_OK(PtlEQPoll(&eq, 1, PTL_TIME_FOREVER, &ev, &which));
    if (ev.type != kind)
        E2E_DIE("got a %s event, expected %s", e2e_event_name(ev.type),
                e2e_event_name(kind));
    E2E_CHECK(which == 0, "PtlEQPoll: which %u", which);
    E2E_CHECK(ev.ni_fail_type == PTL_NI_OK, "%s event: ni_fail_type %s",
              e2e_event_name(kind),
              PtlToStr((int)ev.ni_fail_type, PTL_STR_FAIL_TYPE));
    return ev;
}

static void post_me(ptl_handle_ni_t ni, ptl_pt_index_t pt, void *buf,
                    ptl_process_t from, ptl_handle_me_t *h)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = buf;
    me.length = 64;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    me.match_id = from;
    me.match_bits = BITS;
    E2E_OK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, buf, h));
}

static ptl_handle_md_t bind_md(ptl_handle_ni_t ni, void *buf,
                               ptl_handle_eq_t eq)
{
    ptl_md_t md;
    ptl_handle_md_t h;
    memset(&md, 0, sizeof md);
    md.start = buf;
    md.length = 64;
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE; /* NULL: no counting events */
    E2E_OK(PtlMDBind(ni, &md, &h));
    return h;
}

int main(void)
{
    static char inbox[64], outbox[64], pinbox[64], poutbox[64];
    const unsigned int logical = PTL_NI_MATCHING | PTL_NI_LOGICAL;
    const unsigned int physical = PTL_NI_MATCHING | PTL_NI_PHYSICAL;

    E2E_CHECK(sizeof(ptl_handle_ni_t) == sizeof(void *),
              "handles are %zu bytes", sizeof(ptl_handle_ni_t));
    check_strings();

    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    const int peer = 1 - e2e_rank;
    E2E_CHECK(ni != NULL, "the NI handle is NULL");
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMDRelease(PTL_INVALID_HANDLE));
    E2E_OK(PtlNIAtomicSync(ni));
    E2E_CHECK(PtlNFDs(ni) == 0, "PtlNFDs: %d descriptors", PtlNFDs(ni));

    ptl_process_t map[2];
    ptl_size_t mapped = 0;
    E2E_OK(PtlGetMap(ni, 2, map, &mapped));

    /* A physical NI next to the logical one. */
    ptl_handle_ni_t pni;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, physical, PTL_PID_ANY, NULL, NULL,
                     &pni));

    ptl_handle_eq_t eq, peq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlEQAlloc(pni, 16, &peq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_LOGICAL, &pt));
    E2E_OK(PtlPTAlloc(pni, 0, peq, PT_PHYSICAL, &pt));

    ptl_handle_me_t me, pme;
    ptl_process_t anyone;
    memset(&anyone, 0, sizeof anyone);
    if (e2e_rank == 1) {
        post_me(ni, PT_LOGICAL, inbox, e2e_peer(0), &me);
    } else {
        anyone.phys.nid = PTL_NID_ANY; /* 0, but rank 1 is on node 1 */
        anyone.phys.pid = PTL_PID_ANY;
        post_me(pni, PT_PHYSICAL, pinbox, anyone, &pme);
    }
    ptl_handle_md_t md = bind_md(ni, outbox, eq);
    ptl_handle_md_t pmd = bind_md(pni, poutbox, peq);
    e2e_barrier();

    if (e2e_rank == 0) {
        memset(outbox, 'L', sizeof outbox);
        E2E_OK(PtlPutNB(md, 0, 32, PTL_ACK_REQ, e2e_peer(peer), PT_LOGICAL,
                        BITS, 0, outbox, HDR));
        ptl_event_t ev = wait_kind(eq, PTL_EVENT_SEND);
        check_description(logical, &ev, "SEND", ", mlen=20");
        ev = wait_kind(eq, PTL_EVENT_ACK);
        check_description(logical, &ev, "ACK", ", mlen=20");

        ev = wait_kind(peq, PTL_EVENT_PUT);
        check_description(physical, &ev, "PUT", ", hdr=b0b0cafe");
        char init[64];
        snprintf(init, sizeof init, ", init=(%u,%u)", map[1].phys.nid,
                 map[1].phys.pid);
        check_description(physical, &ev, "PUT", init);
        E2E_CHECK(ev.initiator.phys.nid == map[1].phys.nid,
                  "physical PUT from nid %u, expected %u",
                  ev.initiator.phys.nid, map[1].phys.nid);
        E2E_CHECK(memcmp(pinbox, "PPPPPPPP", 8) == 0,
                  "the physical Put's data did not land");
    } else {
        ptl_event_t ev = wait_kind(eq, PTL_EVENT_PUT);
        check_description(logical, &ev, "PUT", ", init=(0)");
        check_description(logical, &ev, "PUT", ", hdr=b0b0cafe");
        E2E_CHECK(ev.user_ptr == inbox, "PUT user_ptr %p, expected %p",
                  ev.user_ptr, (void *)inbox);
        E2E_CHECK(memcmp(inbox, "LLLLLLLL", 8) == 0,
                  "the logical Put's data did not land");

        E2E_CHECK(map[1].phys.nid != 0,
                  "rank 1 is on nid 0: the PTL_NID_ANY check proves nothing");
        memset(poutbox, 'P', sizeof poutbox);
        E2E_OK(PtlPut(pmd, 0, 16, PTL_ACK_REQ, map[0], PT_PHYSICAL, BITS, 0,
                      NULL, HDR));
        ev = wait_kind(peq, PTL_EVENT_SEND);
        ev = wait_kind(peq, PTL_EVENT_ACK);
        check_description(physical, &ev, "ACK", ", mlen=10");
    }
    e2e_barrier();

    E2E_OK(PtlMDRelease(md));
    E2E_OK(PtlMDRelease(pmd));
    if (e2e_rank == 1)
        E2E_OK(PtlMEUnlink(me));
    else
        E2E_OK(PtlMEUnlink(pme));
    E2E_OK(PtlPTFree(ni, PT_LOGICAL));
    E2E_OK(PtlPTFree(pni, PT_PHYSICAL));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(peq));
    E2E_OK(PtlNIFini(pni));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("bxi_extensions");
}
