/*
 * arrival_during_append: a message that lands in an overflow ME at the very
 * simulated time the target appends the matching use-once ME to the priority
 * list must be reported once, as PTL_EVENT_PUT or PTL_EVENT_PUT_OVERFLOW
 * (appending and searching the unexpected list are atomic with respect to
 * arrivals). It used to be lost: the RX engine yielded to SimGrid (the
 * background PCIe write) between matching the overflow entry and recording
 * the unexpected header, and the append's walk ran in between (OpenMPI's
 * ping-pong hung at random from 512 B on, its short blocks being such
 * overflow entries).
 *
 * Rank 0 sends, per trial k, a 0-byte "sync" Put (priority ME with events on
 * rank 1) then a 1024-byte Put with match bits BITS+k. Rank 1 waits for the
 * sync event, sleeps k ns of simulated time, appends a use-once ME for BITS+k
 * to the priority list, and expects PTL_EVENT_PUT (appended before the
 * arrival) or PTL_EVENT_PUT_OVERFLOW (after) within 1 ms. Scanning k moves
 * the append across the arrival in 1 ns steps, so one trial falls on the
 * same simulated time as the RX engine's handling of the Put.
 */
#include "e2e_common.h"

#define PT_DATA 5
#define PT_SYNC 6
#define PT_READY 8
#define BITS 0x100000ULL
#define LEN 1024
#define TRIALS 3000
#define STOP 0xdeadULL

static unsigned char obuf[4 << 20]; /* the overflow entry (like OpenMPI's short blocks) */
static unsigned char rbuf[LEN], sbuf[LEN];

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_handle_eq_t eq, eq_sync;
    E2E_OK(PtlEQAlloc(ni, 1024, &eq));
    E2E_OK(PtlEQAlloc(ni, 1024, &eq_sync));
    ptl_pt_index_t pt;
    ptl_handle_me_t h;
    ptl_handle_md_t md0 = e2e_bind_md(ni, NULL, 0);

    if (e2e_rank == 1) {
        E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DATA, &pt));
        E2E_OK(PtlPTAlloc(ni, 0, eq_sync, PT_SYNC, &pt));
        ptl_me_t me;
        memset(&me, 0, sizeof me);
        me.start = obuf;
        me.length = sizeof obuf;
        me.ct_handle = PTL_CT_NONE;
        me.uid = PTL_UID_ANY;
        me.match_id.rank = PTL_RANK_ANY;
        me.match_bits = 0;
        me.ignore_bits = ~0ULL;
        me.options = PTL_ME_OP_PUT | PTL_ME_MANAGE_LOCAL | PTL_ME_EVENT_COMM_DISABLE | PTL_ME_EVENT_LINK_DISABLE;
        E2E_OK(PtlMEAppend(ni, PT_DATA, &me, PTL_OVERFLOW_LIST, NULL, &h));
        e2e_append_me(ni, PT_SYNC, NULL, 0, PTL_CT_NONE, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
        e2e_barrier();
        int lost = -1;
        for (int k = 0; k < TRIALS && lost < 0; ++k) {
            ptl_event_t ev;
            E2E_OK(PtlPut(md0, 0, 0, PTL_NO_ACK_REQ, e2e_peer(0), PT_READY, 0, 0, NULL, (ptl_hdr_data_t)k));
            E2E_OK(PtlEQWait(eq_sync, &ev)); /* the sync Put: the data Put follows */
            if (k > 0)
                e2e_sleep_ns(k);
            memset(&me, 0, sizeof me);
            me.start = rbuf;
            me.length = LEN;
            me.ct_handle = PTL_CT_NONE;
            me.uid = PTL_UID_ANY;
            me.match_id.rank = 0;
            me.match_bits = BITS + (ptl_match_bits_t)k;
            me.options = PTL_ME_OP_PUT | PTL_ME_USE_ONCE | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_UNLINK_DISABLE;
            E2E_OK(PtlMEAppend(ni, PT_DATA, &me, PTL_PRIORITY_LIST, (void *)(uintptr_t)(k + 1), &h));
            unsigned int which;
            int rc = PtlEQPoll(&eq, 1, 1 /* ms */, &ev, &which);
            if (rc == PTL_OK && (ev.type == PTL_EVENT_PUT || ev.type == PTL_EVENT_PUT_OVERFLOW) &&
                ev.match_bits == BITS + (ptl_match_bits_t)k && ev.mlength == LEN)
                continue;
            if (rc == PTL_OK) {
                e2e_fail("trial %d: unexpected event %s", k, e2e_event_name(ev.type));
                break;
            }
            lost = k;
            /* The message is still an unexpected header although a matching
             * use-once ME is linked in the priority list. */
            E2E_OK(PtlMESearch(ni, PT_DATA, &me, PTL_SEARCH_ONLY, NULL));
            E2E_OK(PtlEQWait(eq, &ev));
            e2e_fail("trial %d (append %d ns after the sync event): the %d-byte Put matching the priority ME "
                     "got neither PTL_EVENT_PUT nor PTL_EVENT_PUT_OVERFLOW in 1 ms; PtlMESearch then reports "
                     "%s ni_fail_type %d (0 = its header is still in the unexpected list)",
                     k, k, LEN, e2e_event_name(ev.type), (int)ev.ni_fail_type);
        }
        if (lost < 0)
            printf("arrival_during_append: %d trials, every Put reported\n", TRIALS);
        E2E_OK(PtlPut(md0, 0, 0, PTL_NO_ACK_REQ, e2e_peer(0), PT_READY, 0, 0, NULL, STOP));
    } else {
        E2E_OK(PtlPTAlloc(ni, 0, eq, PT_READY, &pt));
        e2e_append_me(ni, PT_READY, NULL, 0, PTL_CT_NONE, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
        ptl_handle_md_t md = e2e_bind_md(ni, sbuf, sizeof sbuf);
        e2e_barrier();
        for (;;) {
            ptl_event_t ev;
            E2E_OK(PtlEQWait(eq, &ev));
            if (ev.hdr_data == STOP)
                break;
            E2E_OK(PtlPut(md0, 0, 0, PTL_NO_ACK_REQ, e2e_peer(1), PT_SYNC, 0, 0, NULL, 0));
            E2E_OK(PtlPut(md, 0, LEN, PTL_NO_ACK_REQ, e2e_peer(1), PT_DATA, BITS + ev.hdr_data, 0, NULL, 0));
        }
    }
    return e2e_finish("arrival_during_append");
}
