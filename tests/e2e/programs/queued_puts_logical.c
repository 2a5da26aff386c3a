/*
 * Small PtlPuts on a logical NI, which a process may answer itself while it
 * knows the NI's map (s4bxi/queued-puts, preload/queued_puts.hpp): the job's
 * map the runtime installs, then one the program sets with PtlSetMap. Whether
 * queued or not, the program sees the same: rank 0 puts, rank 1 checks what
 * landed.
 *  1. Three 8-byte Puts in a row to rank 1, each payload overwritten right
 *     after its call, then their ACKs.
 *  2. A Put to itself (its own node), with a SEND event: SEND, ACK and PUT.
 *  3. A Put to rank 2, beyond the job's map of 2: PTL_ARG_INVALID.
 *  4. Rank 0 sets a map of 3 (itself, rank 1, and a NID the platform does
 *     not have): a Put to rank 1 lands; to the third entry, and beyond the
 *     map, PTL_ARG_INVALID; nothing is sent for them.
 */
#include "conformance_common.h"

#define PT_Q 9
#define IN_A_ROW 3
#define PUTS_TO_PEER (IN_A_ROW + 1)
#define BYTES 8

static unsigned char src[BYTES];
static unsigned char dst[PUTS_TO_PEER * BYTES];
static unsigned char own[BYTES];

static unsigned char pattern(int k, int i) { return (unsigned char)(k * 16 + i + 1); }

static void fill(int k)
{
    for (int i = 0; i < BYTES; ++i)
        src[i] = pattern(k, i);
}

static void sender(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_Q, &pt));
    ptl_handle_md_t quiet = cf_bind(ni, src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    ptl_handle_md_t loud = cf_bind(ni, src, sizeof src, 0, eq, PTL_CT_NONE);
    ptl_handle_me_t me = cf_append(ni, PT_Q, own, sizeof own, 0x1, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                                   PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
    ptl_process_t peer = {.rank = 1};
    e2e_barrier(); /* rank 1 is ready */

    /* 1. */
    for (int k = 0; k < IN_A_ROW; ++k) {
        fill(k);
        E2E_OK(PtlPut(quiet, 0, BYTES, PTL_ACK_REQ, peer, PT_Q, 0x1, (ptl_size_t)k * BYTES, NULL,
                      (ptl_hdr_data_t)k));
        memset(src, 0xEE, sizeof src);
    }
    for (int k = 0; k < IN_A_ROW; ++k)
        cf_expect(eq, PTL_EVENT_ACK, "ACK of a Put to rank 1");

    /* 2. Its three events, in whatever order they land. */
    fill(9);
    ptl_process_t self = {.rank = 0};
    E2E_OK(PtlPut(loud, 0, BYTES, PTL_ACK_REQ, self, PT_Q, 0x1, 0, NULL, 9));
    memset(src, 0xEE, sizeof src);
    int send = 0, ack = 0, put = 0;
    for (int n = 0; n < 3; ++n) {
        ptl_event_t ev;
        E2E_OK(cf_next(eq, &ev));
        send += ev.type == PTL_EVENT_SEND;
        ack += ev.type == PTL_EVENT_ACK;
        put += ev.type == PTL_EVENT_PUT;
    }
    E2E_CHECK(send == 1 && ack == 1 && put == 1, "Put to itself: %d SEND, %d ACK, %d PUT", send, ack, put);
    for (int i = 0; i < BYTES; ++i)
        E2E_CHECK(own[i] == pattern(9, i), "Put to itself: byte %d is 0x%02x", i, own[i]);

    /* 3. */
    ptl_process_t beyond = {.rank = 2};
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(quiet, 0, BYTES, PTL_ACK_REQ, beyond, PT_Q, 0x1, 0, NULL, 99));

    /* 4. Entries 0 and 1 as the job's (the barrier goes on with them). */
    ptl_process_t job[2];
    ptl_size_t mapped = 0;
    E2E_OK(PtlGetMap(ni, 2, job, &mapped));
    ptl_process_t map[3] = {job[0], job[1], {.phys = {.nid = 4000, .pid = 0}}};
    E2E_OK(PtlSetMap(ni, 3, map));
    fill(IN_A_ROW);
    E2E_OK(PtlPut(quiet, 0, BYTES, PTL_ACK_REQ, peer, PT_Q, 0x1, IN_A_ROW * BYTES, NULL, IN_A_ROW));
    memset(src, 0xEE, sizeof src);
    cf_expect(eq, PTL_EVENT_ACK, "ACK of the Put after PtlSetMap");
    ptl_process_t nowhere = {.rank = 2};
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(quiet, 0, BYTES, PTL_ACK_REQ, nowhere, PT_Q, 0x1, 0, NULL, 99));
    ptl_process_t past = {.rank = 3};
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(quiet, 0, BYTES, PTL_ACK_REQ, past, PT_Q, 0x1, 0, NULL, 99));
    cf_expect_empty(eq, "events of refused Puts");

    e2e_barrier(); /* rank 1 checked */
    E2E_OK(PtlMEUnlink(me));
    E2E_OK(PtlMDRelease(quiet));
    E2E_OK(PtlMDRelease(loud));
}

static void receiver(ptl_handle_ni_t ni)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_Q, &pt));
    ptl_handle_me_t me = cf_append(ni, PT_Q, dst, sizeof dst, 0x1, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE,
                                   PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
    e2e_barrier(); /* ready */
    for (int k = 0; k < PUTS_TO_PEER; ++k) {
        ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT, "PUT of rank 0");
        E2E_CHECK(ev.hdr_data == (ptl_hdr_data_t)k && ev.mlength == BYTES, "PUT %d: hdr_data %llu, mlength %llu",
                  k, (unsigned long long)ev.hdr_data, (unsigned long long)ev.mlength);
        for (int i = 0; i < BYTES; ++i)
            if (dst[k * BYTES + i] != pattern(k, i)) {
                e2e_fail("PUT %d: byte %d is 0x%02x, want 0x%02x (the payload at the call)", k, i,
                         dst[k * BYTES + i], pattern(k, i));
                break;
            }
    }
    e2e_barrier(); /* checked */
    cf_expect_empty(eq, "PUTs beyond rank 0's valid ones");
    E2E_OK(PtlMEUnlink(me));
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    if (e2e_rank == 0)
        sender(ni);
    else
        receiver(ni);
    e2e_barrier_fini();
    return e2e_finish("queued_puts_logical");
}
