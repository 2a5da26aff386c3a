/*
 * Matching rules on a matching NI, and an LE on a non-matching NI.
 *
 * Rank 1 posts a set of match list entries; rank 0 sends one Put at a time
 * (waiting for each ACK, so the order of arrival is known) and rank 1 then
 * checks which entry received what:
 *  - two entries with the same match bits: the first, PTL_ME_USE_ONCE, takes
 *    the first message and is unlinked (one AUTO_UNLINK event), the second,
 *    persistent, takes the following ones;
 *  - ignore bits;
 *  - a non-matching message is dropped: the ACK reports a failure, no target
 *    event, the drop counter grows by one;
 *  - match_id: an entry reserved for another initiator is skipped;
 *  - priority-list order: of two matching persistent entries the first
 *    always wins;
 *  - truncation: mlength is the entry length, rlength the message length;
 *  - the priority list is searched before the overflow list, and a message
 *    that only matches an overflow entry lands there (ptl_list says so);
 *  - a message kept by an overflow entry is an unexpected message: a later
 *    priority-list append that matches it gets a PUT_OVERFLOW event pointing
 *    at the data in the overflow buffer;
 *  - a Put to an LE of a non-matching NI ignores the match bits.
 */
#include "e2e_common.h"

#include <stdint.h>

#define PT_M 2
#define PT_L 3
#define LEN  32

enum { A, B, C, D, E, F, G, H, P, O1, O2, NBUF };
static const char *buf_name = "ABCDEFGHPXY"; /* X = O1, Y = O2 */
static unsigned char bufs[NBUF][64];
static unsigned char le_buf[64];

static unsigned char payload_byte(int tag, size_t i)
{
    return (unsigned char)(tag * 16 + i);
}

struct sent {
    int tag;
    uint64_t bits;
    size_t len;
    int expect_drop;
};

static const struct sent plan[] = {
    {1, 0x1111, LEN, 0},  /* -> A (use once) */
    {2, 0x1111, LEN, 0},  /* -> B */
    {3, 0x1111, LEN, 0},  /* -> B */
    {4, 0xAB42, LEN, 0},  /* -> C (ignore bits 0xFF) */
    {5, 0xAC42, LEN, 1},  /* no entry: dropped */
    {6, 0x2222, LEN, 0},  /* -> E, not D (D waits for rank 1 only) */
    {7, 0x3333, LEN, 0},  /* -> F */
    {8, 0x3333, LEN, 0},  /* -> F again, never G */
    {9, 0x4444, 64, 0},   /* -> H, truncated to 16 bytes */
    {10, 0x6666, LEN, 0}, /* -> P (priority), not O1 (overflow) */
    {11, 0x7777, LEN, 0}, /* -> O2 (overflow only) */
};
#define NPLAN (sizeof plan / sizeof plan[0])

/* Which buffer each delivered message must hit, in order. */
static const int expected_target[] = {A, B, B, C, E, F, F, H, P, O2};
#define NDELIVERED (sizeof expected_target / sizeof expected_target[0])

static void append(ptl_handle_ni_t ni, int which, uint64_t bits, uint64_t ign,
                   ptl_rank_t from, unsigned extra, ptl_size_t len,
                   ptl_list_t list, ptl_handle_me_t *h)
{
    ptl_me_t me;
    memset(&me, 0, sizeof me);
    me.start = bufs[which];
    me.length = len;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE | extra;
    me.match_id.rank = from;
    me.match_bits = bits;
    me.ignore_bits = ign;
    E2E_OK(PtlMEAppend(ni, PT_M, &me, list, &bufs[which][0], h));
}

static int buf_index(void *user_ptr)
{
    for (int i = 0; i < NBUF; ++i)
        if (user_ptr == (void *)&bufs[i][0])
            return i;
    return -1;
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);

    /* A second, non-matching logical NI on the same interface. */
    ptl_handle_ni_t ni2;
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_NO_MATCHING | PTL_NI_LOGICAL,
                     PTL_PID_ANY, NULL, NULL, &ni2));

    ptl_handle_eq_t eq, eq2;
    E2E_OK(PtlEQAlloc(ni, 128, &eq));
    E2E_OK(PtlEQAlloc(ni2, 16, &eq2));
    ptl_handle_me_t hme[NBUF];
    ptl_handle_le_t hle = PTL_INVALID_HANDLE;
    ptl_sr_value_t drops_before = 0, drops_after = 0;
    memset(bufs, 0, sizeof bufs);
    memset(le_buf, 0, sizeof le_buf);

    if (e2e_rank == 1) {
        ptl_pt_index_t pt;
        E2E_OK(PtlPTAlloc(ni, 0, eq, PT_M, &pt));
        append(ni, A, 0x1111, 0, PTL_RANK_ANY, PTL_ME_USE_ONCE, 64,
               PTL_PRIORITY_LIST, &hme[A]);
        append(ni, B, 0x1111, 0, PTL_RANK_ANY, 0, 64, PTL_PRIORITY_LIST,
               &hme[B]);
        append(ni, C, 0xAB00, 0x00FF, PTL_RANK_ANY, 0, 64, PTL_PRIORITY_LIST,
               &hme[C]);
        append(ni, D, 0x2222, 0, 1, 0, 64, PTL_PRIORITY_LIST, &hme[D]);
        append(ni, E, 0x2222, 0, 0, 0, 64, PTL_PRIORITY_LIST, &hme[E]);
        append(ni, F, 0x3333, 0, PTL_RANK_ANY, 0, 64, PTL_PRIORITY_LIST,
               &hme[F]);
        append(ni, G, 0x3333, 0, PTL_RANK_ANY, 0, 64, PTL_PRIORITY_LIST,
               &hme[G]);
        append(ni, H, 0x4444, 0, PTL_RANK_ANY, 0, 16, PTL_PRIORITY_LIST,
               &hme[H]);
        /* Overflow entry appended before the priority one on purpose. */
        append(ni, O1, 0x6666, 0, PTL_RANK_ANY, 0, 64, PTL_OVERFLOW_LIST,
               &hme[O1]);
        append(ni, P, 0x6666, 0, PTL_RANK_ANY, 0, 64, PTL_PRIORITY_LIST,
               &hme[P]);
        append(ni, O2, 0x7777, 0, PTL_RANK_ANY, 0, 64, PTL_OVERFLOW_LIST,
               &hme[O2]);

        E2E_OK(PtlPTAlloc(ni2, 0, eq2, PT_L, &pt));
        ptl_le_t le;
        memset(&le, 0, sizeof le);
        le.start = le_buf;
        le.length = sizeof le_buf;
        le.ct_handle = PTL_CT_NONE;
        le.uid = PTL_UID_ANY;
        le.options = PTL_LE_OP_PUT | PTL_LE_EVENT_LINK_DISABLE;
        E2E_OK(PtlLEAppend(ni2, PT_L, &le, PTL_PRIORITY_LIST, le_buf, &hle));
    }

    /* Read before the barrier: after it, rank 0's Puts may arrive before
     * rank 1's next call (its compute, e.g. resolving a symbol, is time). */
    if (e2e_rank == 1)
        E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops_before));
    e2e_barrier();

    if (e2e_rank == 0) {
        static unsigned char src[64];
        ptl_md_t md;
        ptl_handle_md_t hmd, hmd2;
        ptl_event_t ev;
        memset(&md, 0, sizeof md);
        md.start = src;
        md.length = sizeof src;
        md.eq_handle = eq;
        md.ct_handle = PTL_CT_NONE;
        E2E_OK(PtlMDBind(ni, &md, &hmd));
        for (size_t k = 0; k < NPLAN; ++k) {
            for (size_t i = 0; i < sizeof src; ++i)
                src[i] = payload_byte(plan[k].tag, i);
            E2E_OK(PtlPut(hmd, 0, plan[k].len, PTL_ACK_REQ, e2e_peer(1), PT_M,
                          plan[k].bits, 0, NULL, 0));
            do
                E2E_OK(PtlEQWait(eq, &ev));
            while (ev.type == PTL_EVENT_SEND);
            if (ev.type != PTL_EVENT_ACK) {
                e2e_fail("message %d: %s event where an ACK was expected",
                         plan[k].tag, e2e_event_name(ev.type));
                continue;
            }
            if (plan[k].expect_drop) {
                E2E_CHECK(ev.ni_fail_type == PTL_NI_DROPPED ||
                              ev.ni_fail_type == PTL_NI_NO_MATCH,
                          "message %d matched nothing, yet its ACK has "
                          "ni_fail_type %d (expected PTL_NI_DROPPED or "
                          "PTL_NI_NO_MATCH)",
                          plan[k].tag, ev.ni_fail_type);
            } else {
                E2E_CHECK(ev.ni_fail_type == PTL_NI_OK,
                          "message %d: ACK ni_fail_type %d", plan[k].tag,
                          ev.ni_fail_type);
                ptl_size_t want = plan[k].bits == 0x4444 ? 16 : plan[k].len;
                E2E_CHECK(ev.mlength == want,
                          "message %d: ACK mlength %llu, expected %llu",
                          plan[k].tag, (unsigned long long)ev.mlength,
                          (unsigned long long)want);
            }
        }

        /* Non-matching NI: match bits are ignored. */
        md.eq_handle = eq2;
        E2E_OK(PtlMDBind(ni2, &md, &hmd2));
        for (size_t i = 0; i < sizeof src; ++i)
            src[i] = payload_byte(12, i);
        E2E_OK(PtlPut(hmd2, 0, LEN, PTL_ACK_REQ, e2e_peer(1), PT_L,
                      0xDEADBEEFULL, 0, NULL, 0));
        do
            E2E_OK(PtlEQWait(eq2, &ev));
        while (ev.type == PTL_EVENT_SEND);
        E2E_CHECK(ev.type == PTL_EVENT_ACK && ev.ni_fail_type == PTL_NI_OK &&
                      ev.mlength == LEN,
                  "Put to the LE: got %s, ni_fail_type %d, mlength %llu",
                  e2e_event_name(ev.type), ev.ni_fail_type,
                  (unsigned long long)ev.mlength);
        E2E_OK(PtlMDRelease(hmd));
        E2E_OK(PtlMDRelease(hmd2));
    }

    e2e_barrier();

    if (e2e_rank == 1) {
        ptl_event_t ev;
        size_t delivered = 0;
        int unlinks = 0;
        /* Every message has been acknowledged, so every event is queued. */
        while (PtlEQGet(eq, &ev) == PTL_OK) {
            if (ev.type == PTL_EVENT_AUTO_UNLINK) {
                ++unlinks;
                E2E_CHECK(buf_index(ev.user_ptr) == A,
                          "AUTO_UNLINK for entry %c, expected A",
                          buf_index(ev.user_ptr) < 0
                              ? '?'
                              : buf_name[buf_index(ev.user_ptr)]);
                continue;
            }
            if (ev.type == PTL_EVENT_PUT_OVERFLOW) {
                e2e_fail("PUT_OVERFLOW event when message %d arrived in an "
                         "overflow-list entry: arrival gives a PUT event with "
                         "ptl_list PTL_OVERFLOW_LIST; PUT_OVERFLOW is for a "
                         "later append that matches the unexpected message",
                         plan[delivered >= 4 ? delivered + 1 : delivered].tag);
                ++delivered;
                continue;
            }
            if (ev.type != PTL_EVENT_PUT) {
                e2e_fail("unexpected %s event", e2e_event_name(ev.type));
                continue;
            }
            int got = buf_index(ev.user_ptr);
            if (delivered >= NDELIVERED) {
                e2e_fail("extra PUT event (entry %c)",
                         got < 0 ? '?' : buf_name[got]);
                continue;
            }
            int want = expected_target[delivered];
            const struct sent *s = &plan[delivered >= 4 ? delivered + 1
                                                        : delivered];
            E2E_CHECK(got == want,
                      "message %d was delivered to entry %c, expected %c",
                      s->tag, got < 0 ? '?' : buf_name[got], buf_name[want]);
            E2E_CHECK(ev.match_bits == s->bits,
                      "message %d: event match_bits 0x%llx, expected 0x%llx",
                      s->tag, (unsigned long long)ev.match_bits,
                      (unsigned long long)s->bits);
            E2E_CHECK(ev.initiator.rank == 0,
                      "message %d: initiator rank %u", s->tag,
                      ev.initiator.rank);
            E2E_CHECK(ev.rlength == s->len,
                      "message %d: rlength %llu, expected %zu", s->tag,
                      (unsigned long long)ev.rlength, s->len);
            ptl_size_t ml = want == H ? 16 : s->len;
            E2E_CHECK(ev.mlength == ml,
                      "message %d: mlength %llu, expected %llu", s->tag,
                      (unsigned long long)ev.mlength, (unsigned long long)ml);
            ptl_list_t list = want == O2 ? PTL_OVERFLOW_LIST
                                         : PTL_PRIORITY_LIST;
            E2E_CHECK(ev.ptl_list == list,
                      "message %d: ptl_list %d, expected %d", s->tag,
                      ev.ptl_list, list);
            E2E_CHECK(ev.pt_index == PT_M, "message %d: pt_index %u",
                      s->tag, ev.pt_index);
            ++delivered;
        }
        E2E_CHECK(delivered == NDELIVERED, "%zu PUT events, expected %zu",
                  delivered, (size_t)NDELIVERED);
        E2E_CHECK(unlinks == 1, "%d AUTO_UNLINK events, expected 1", unlinks);

        /* Final contents: last tag delivered to each entry, zero elsewhere. */
        const int last_tag[NBUF] = {[A] = 1, [B] = 3, [C] = 4, [D] = 0,
                                    [E] = 6, [F] = 8, [G] = 0, [H] = 9,
                                    [P] = 10, [O1] = 0, [O2] = 11};
        for (int b = 0; b < NBUF; ++b) {
            size_t filled = last_tag[b] == 0 ? 0 : (b == H ? 16 : LEN);
            for (size_t i = 0; i < sizeof bufs[b]; ++i) {
                unsigned char want =
                    i < filled ? payload_byte(last_tag[b], i) : 0;
                if (bufs[b][i] != want) {
                    e2e_fail("entry %c byte %zu is 0x%02x, expected 0x%02x",
                             buf_name[b], i, bufs[b][i], want);
                    break;
                }
            }
        }

        E2E_OK(PtlNIStatus(ni, PTL_SR_DROP_COUNT, &drops_after));
        E2E_CHECK(drops_after - drops_before == 1,
                  "drop counter grew by %d, expected 1",
                  drops_after - drops_before);

        /* The use-once entry is gone: its handle is no longer valid (checked
         * before any other append could reuse the handle value). */
        E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(hme[A]));

        /* Message 11 is unexpected: a matching priority append reports it. */
        {
            static char q_marker;
            ptl_me_t q;
            ptl_handle_me_t hq;
            static unsigned char qbuf[64];
            memset(&q, 0, sizeof q);
            q.start = qbuf;
            q.length = sizeof qbuf;
            q.ct_handle = PTL_CT_NONE;
            q.uid = PTL_UID_ANY;
            q.options = PTL_ME_OP_PUT | PTL_ME_USE_ONCE |
                        PTL_ME_EVENT_LINK_DISABLE;
            q.match_id.rank = PTL_RANK_ANY;
            q.match_bits = 0x7777;
            E2E_OK(PtlMEAppend(ni, PT_M, &q, PTL_PRIORITY_LIST, &q_marker,
                               &hq));
            /* The event is due at append time; poll (10 ms of simulated
             * time) so that a missing event is a diagnostic, not a hang. */
            unsigned int which;
            int rc;
            do
                rc = PtlEQPoll(&eq, 1, 10, &ev, &which);
            while (rc == PTL_OK && ev.type == PTL_EVENT_AUTO_UNLINK &&
                   ev.user_ptr == &q_marker);
            if (rc == PTL_EQ_EMPTY) {
                e2e_fail("no PUT_OVERFLOW event for an append that matches "
                         "an unexpected message");
                ev.type = PTL_EVENT_PUT_OVERFLOW;
                ev.user_ptr = &q_marker;
                ev.start = bufs[O2];
                ev.mlength = ev.rlength = LEN;
                ev.match_bits = 0x7777;
                ev.initiator.rank = 0;
            } else if (rc != PTL_OK) {
                e2e_fail("PtlEQPoll returned %s", e2e_rc_name(rc));
            }
            E2E_CHECK(ev.type == PTL_EVENT_PUT_OVERFLOW,
                      "append matching an unexpected message: %s event, "
                      "expected PUT_OVERFLOW", e2e_event_name(ev.type));
            E2E_CHECK(ev.user_ptr == &q_marker,
                      "PUT_OVERFLOW user_ptr %p, expected the new entry's %p",
                      ev.user_ptr, (void *)&q_marker);
            E2E_CHECK(ev.start == bufs[O2],
                      "PUT_OVERFLOW start %p, expected the overflow buffer %p",
                      ev.start, (void *)bufs[O2]);
            E2E_CHECK(ev.mlength == LEN && ev.rlength == LEN &&
                          ev.match_bits == 0x7777 && ev.initiator.rank == 0,
                      "PUT_OVERFLOW: mlength %llu rlength %llu match_bits "
                      "0x%llx initiator %u",
                      (unsigned long long)ev.mlength,
                      (unsigned long long)ev.rlength,
                      (unsigned long long)ev.match_bits, ev.initiator.rank);
            for (size_t i = 0; i < sizeof qbuf; ++i)
                if (qbuf[i] != 0) {
                    e2e_fail("the new entry's buffer was written (byte %zu)",
                             i);
                    break;
                }
            /* Its one use went to the unexpected message: never linked. */
            E2E_EXPECT_RC(PTL_ARG_INVALID, PtlMEUnlink(hq));
        }

        for (int b = B; b < NBUF; ++b)
            E2E_OK(PtlMEUnlink(hme[b]));

        /* The LE got the message regardless of the match bits. */
        E2E_OK(PtlEQWait(eq2, &ev));
        E2E_CHECK(ev.type == PTL_EVENT_PUT && ev.user_ptr == le_buf &&
                      ev.mlength == LEN && ev.initiator.rank == 0,
                  "LE event: %s, user_ptr %p, mlength %llu, initiator %u",
                  e2e_event_name(ev.type), ev.user_ptr,
                  (unsigned long long)ev.mlength, ev.initiator.rank);
        for (size_t i = 0; i < sizeof le_buf; ++i) {
            unsigned char want = i < LEN ? payload_byte(12, i) : 0;
            if (le_buf[i] != want) {
                e2e_fail("LE byte %zu is 0x%02x, expected 0x%02x", i,
                         le_buf[i], want);
                break;
            }
        }
        E2E_OK(PtlLEUnlink(hle));
        E2E_OK(PtlPTFree(ni, PT_M));
        E2E_OK(PtlPTFree(ni2, PT_L));
    }

    e2e_barrier();
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlEQFree(eq2));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni2));
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("me_matching");
}
