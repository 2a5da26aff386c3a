/*
 * PtlMEUnlink and PtlLEUnlink, the ones a process may answer itself
 * (s4bxi/queued-unlinks, preload/queued_unlinks.hpp), and the cases next to
 * them that it must leave to the server. Whether queued or not, the program
 * sees the same results; rank 1 puts into rank 0's entries.
 *  1. A plain ME and an LE: unlinked (PTL_OK), then unlinked again
 *     (PTL_ARG_INVALID: the handle names nothing any more).
 *  2. A use-once ME that a Put used: the NIC unlinked it (PTL_ARG_INVALID).
 *  3. An ME that manages its local offset with a min_free, still linked:
 *     PTL_OK (left to the server, which alone knows).
 *  4. Appends and unlinks in a row, each new entry possibly given the handle
 *     of the one unlinked before it: each unlink PTL_OK, and an unlinked
 *     entry no longer takes a Put (the next one in the list does).
 *  5. An unlink right after a queued Put (one call waits at a time).
 *  6. An LE on a non-matching NI, unlinked twice; one appended and unlinked
 *     before PtlNIFini.
 */
#include "conformance_common.h"

#define PT_U 11

static unsigned char inbox[256];
static unsigned char src[64];

/* An ME of a physical NI that any process may use. */
static ptl_me_t me_any(void *start, ptl_size_t length, ptl_match_bits_t bits, unsigned options)
{
    ptl_me_t me = cf_me(start, length, bits, options, PTL_CT_NONE);
    me.match_id.phys.nid = PTL_NID_ANY;
    me.match_id.phys.pid = PTL_PID_ANY;
    return me;
}

static ptl_handle_me_t append_me(ptl_handle_ni_t ni, ptl_pt_index_t pt, void *start, ptl_size_t length,
                                 ptl_match_bits_t bits, unsigned options)
{
    ptl_me_t me = me_any(start, length, bits, options);
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(ni, pt, &me, PTL_PRIORITY_LIST, NULL, &h));
    return h;
}

static void target(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_U, &pt));
    const unsigned quiet = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE;

    /* 1. */
    ptl_handle_me_t plain = append_me(ni, PT_U, inbox, 16, 0x10, quiet);
    E2E_OK(PtlMEUnlink(plain));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(plain));

    /* 2. and 3., used by rank 1's Puts. */
    ptl_handle_me_t once = append_me(ni, PT_U, inbox + 16, 16, 0x20, quiet | PTL_ME_USE_ONCE);
    ptl_me_t local = me_any(inbox + 32, 64, 0x30, quiet | PTL_ME_MANAGE_LOCAL);
    local.min_free = 8;
    ptl_handle_me_t managed;
    E2E_OK(PtlMEAppend(ni, PT_U, &local, PTL_PRIORITY_LIST, NULL, &managed));
    /* 4. Three entries that match the same bits, unlinked in turn: the Put
       after each unlink lands in the next one. */
    ptl_handle_me_t row[3];
    for (int k = 0; k < 3; ++k)
        row[k] = append_me(ni, PT_U, inbox + 96 + 16 * k, 16, 0x40, quiet);
    e2e_barrier(); /* ready */
    e2e_barrier(); /* rank 1 put into the use-once and the managed entries */
    cf_expect(eq, PTL_EVENT_PUT, "Put into the use-once ME");
    cf_expect(eq, PTL_EVENT_PUT, "Put into the managed ME");
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(once));
    E2E_OK(PtlMEUnlink(managed));
    for (int k = 0; k < 3; ++k) {
        E2E_OK(PtlMEUnlink(row[k]));
        e2e_barrier(); /* rank 1 puts once more */
        e2e_barrier(); /* its Put arrived (or was dropped: no entry left after the last) */
        if (k < 2) {
            ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT, "Put into the next entry of the row");
            E2E_CHECK(ev.start == inbox + 96 + 16 * (k + 1), "Put %d landed at offset %ld, want %d", k,
                      (long)((unsigned char *)ev.start - inbox), 96 + 16 * (k + 1));
        }
        /* Each time a new entry, maybe under the handle just unlinked. */
        ptl_handle_me_t again = append_me(ni, PT_U, inbox + 200, 16, 0x50, quiet);
        E2E_OK(PtlMEUnlink(again));
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(again));
    }

    e2e_barrier(); /* done */
    E2E_OK(PtlPTFree(ni, PT_U));
    E2E_OK(PtlEQFree(eq));
}

static void initiator(ptl_handle_ni_t ni, ptl_process_t peer)
{
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    ptl_handle_md_t md = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    e2e_barrier(); /* ready */
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_U, 0x20, 0, NULL, 2));
    cf_expect(eq, PTL_EVENT_ACK, "ACK of the Put into the use-once ME");
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_U, 0x30, 0, NULL, 3));
    cf_expect(eq, PTL_EVENT_ACK, "ACK of the Put into the managed ME");
    e2e_barrier();
    for (int k = 0; k < 3; ++k) {
        e2e_barrier();
        E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, peer, PT_U, 0x40, 0, NULL, 4));
        ptl_event_t ev;
        E2E_CHECK(cf_next(eq, &ev) == PTL_OK && ev.type == PTL_EVENT_ACK, "Put %d: no ACK", k);
        E2E_CHECK((k < 2) == (ev.ni_fail_type == PTL_NI_OK), "Put %d: ACK with ni_fail_type %d", k,
                  (int)ev.ni_fail_type);
        e2e_barrier();
    }
    /* 5. A Put, then at once an unlink of an entry of our own. */
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_U + 1, &pt));
    ptl_handle_me_t mine = append_me(ni, PT_U + 1, inbox, 16, 0x60, PTL_ME_OP_PUT);
    E2E_OK(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, peer, PT_U, 0x70, 0, NULL, 5));
    E2E_OK(PtlMEUnlink(mine));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(mine));
    e2e_barrier(); /* done */
    E2E_OK(PtlPTFree(ni, PT_U + 1));
}

static void le_cycle(void)
{
    ptl_handle_ni_t plain;
    ptl_ni_limits_t actual;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, &actual, &plain));
    ptl_pt_index_t pt;
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(plain, 8, &eq));
    E2E_OK(PtlPTAlloc(plain, 0, eq, 5, &pt));
    ptl_le_t le;
    memset(&le, 0, sizeof le);
    le.start = inbox;
    le.length = 16;
    le.uid = PTL_UID_ANY;
    le.options = PTL_LE_OP_PUT;
    le.ct_handle = PTL_CT_NONE;
    ptl_handle_le_t h;
    E2E_OK(PtlLEAppend(plain, 5, &le, PTL_PRIORITY_LIST, NULL, &h));
    E2E_OK(PtlLEUnlink(h));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlLEUnlink(h));
    /* Appended, then the NI finalized: the handle is gone with it. */
    E2E_OK(PtlLEAppend(plain, 5, &le, PTL_PRIORITY_LIST, NULL, &h));
    E2E_OK(PtlLEUnlink(h));
    E2E_OK(PtlPTFree(plain, 5));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlNIFini(plain));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_process_t map[2];
    ptl_handle_ni_t phys = cf_physical_ni(ni, map, 2);
    if (e2e_rank == 0) {
        target(phys);
        le_cycle();
    } else {
        initiator(phys, map[0]);
    }
    e2e_barrier_fini();
    return e2e_finish("queued_unlinks");
}
