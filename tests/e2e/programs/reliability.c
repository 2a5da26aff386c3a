/*
 * The NIC's end-to-end reliability and its options, seen from a program
 * (test_reliability.cpp runs it with faults and options). One mode per run:
 *
 *   undeliverable  rank 0 issues operations towards rank 1, all of whose
 *                  messages are lost: each must end with its events carrying
 *                  PTL_NI_UNDELIVERABLE (SEND, ACK, REPLY as the
 *                  specification gives; a counted ACK counts a failure),
 *                  and no call may hang. Rank 1 does nothing.
 *   linkdown T     rank 0 waits until simulated time T (seconds), then puts
 *                  8 B to rank 1 and waits for the ACK; prints how long that
 *                  took ("put-ack S").
 *   memcpy N       rank 0 puts 1000 B to rank 1 and gets 1000 B from it, into
 *                  buffers filled beforehand; only the first N bytes may
 *                  change (N = all: every byte must arrive).
 *   atomics K      rank 0 does K fetching atomic additions of 1 on rank 1's
 *                  counter, one at a time: the values fetched must be 0 to
 *                  K-1 and the counter K at the end, whatever was lost and
 *                  sent again (a duplicate must not be applied twice).
 *   ordering K     every rank but the last puts K messages (sizes alternating
 *                  between 8 B and 4 KiB) to the last rank, which checks that
 *                  each initiator's messages arrive in the order sent; prints
 *                  the simulated time all of them took ("ordering S").
 *   fanout K       rank 0 puts K messages to each other rank, in turns; each
 *                  receiver checks that they arrive in the order sent; rank 0
 *                  prints the simulated time until every ACK ("fanout S").
 */
#include "e2e_common.h"

#include <stdint.h>

#define PT_DATA 3
#define BUF 4096

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned char pattern(size_t i)
{
    return (unsigned char)((i * 131u + 7u) ^ (i >> 3));
}

static ptl_handle_me_t append_me(ptl_handle_ni_t ni, void *start, ptl_size_t length, unsigned options, int peer)
{
    ptl_me_t me;
    ptl_handle_me_t h;
    memset(&me, 0, sizeof me);
    me.start = start;
    me.length = length;
    me.ct_handle = PTL_CT_NONE;
    me.uid = PTL_UID_ANY;
    me.options = options | PTL_ME_EVENT_LINK_DISABLE;
    me.match_id.rank = peer < 0 ? PTL_RANK_ANY : (ptl_rank_t)peer;
    E2E_OK(PtlMEAppend(ni, PT_DATA, &me, PTL_PRIORITY_LIST, NULL, &h));
    return h;
}

static ptl_handle_md_t bind_md(ptl_handle_ni_t ni, void *start, ptl_size_t length, ptl_handle_eq_t eq,
                               ptl_handle_ct_t ct, unsigned options)
{
    ptl_md_t md;
    ptl_handle_md_t h;
    memset(&md, 0, sizeof md);
    md.start = start;
    md.length = length;
    md.options = options;
    md.eq_handle = eq;
    md.ct_handle = ct;
    E2E_OK(PtlMDBind(ni, &md, &h));
    return h;
}

static ptl_event_t wait_event(ptl_handle_eq_t eq, ptl_event_kind_t kind, const char *what)
{
    ptl_event_t ev;
    for (;;) {
        E2E_OK(PtlEQWait(eq, &ev));
        if (ev.type == kind)
            return ev;
        if (ev.type != PTL_EVENT_SEND)
            E2E_DIE("%s: unexpected %s event", what, e2e_event_name(ev.type));
    }
}

static void undeliverable(ptl_handle_ni_t ni)
{
    if (e2e_rank != 0)
        return; /* its messages are all lost: nothing to do */
    static unsigned char small[64], big[BUF];
    ptl_handle_eq_t eq;
    ptl_handle_ct_t ct;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlCTAlloc(ni, &ct));
    ptl_handle_md_t md = bind_md(ni, big, BUF, eq, PTL_CT_NONE, 0);
    ptl_handle_md_t md_small = bind_md(ni, small, sizeof small, eq, PTL_CT_NONE, 0);
    ptl_handle_md_t md_ct = bind_md(ni, small, sizeof small, PTL_EQ_NONE, ct, PTL_MD_EVENT_CT_ACK);
    const ptl_process_t peer = e2e_peer(1);
    uint64_t operand = 1;

    /* 8 B Put: SEND when it leaves (the NIC keeps it), ACK undeliverable. */
    E2E_OK(PtlPut(md_small, 0, 8, PTL_ACK_REQ, peer, PT_DATA, 0, 0, NULL, 0));
    /* 4 KiB Put: SEND and ACK both undeliverable. */
    E2E_OK(PtlPut(md, 0, BUF, PTL_ACK_REQ, peer, PT_DATA, 0, 0, NULL, 0));
    /* Get: REPLY undeliverable. */
    E2E_OK(PtlGet(md, 0, 64, peer, PT_DATA, 0, 0, NULL));
    /* Atomic: SEND when it leaves, ACK undeliverable. */
    memcpy(small, &operand, sizeof operand);
    E2E_OK(PtlAtomic(md_small, 0, 8, PTL_ACK_REQ, peer, PT_DATA, 0, 0, NULL, 0, PTL_SUM, PTL_UINT64_T));
    /* Counted ACK: one failure on the counter. */
    E2E_OK(PtlPut(md_ct, 0, 8, PTL_CT_ACK_REQ, peer, PT_DATA, 0, 0, NULL, 0));

    int send_ok = 0, send_fail = 0, ack_fail = 0, reply_fail = 0;
    for (int n = 0; n < 7; ++n) {
        ptl_event_t ev;
        E2E_OK(PtlEQWait(eq, &ev));
        const int undelivered = ev.ni_fail_type == PTL_NI_UNDELIVERABLE;
        if (ev.type == PTL_EVENT_SEND && ev.ni_fail_type == PTL_NI_OK)
            ++send_ok;
        else if (ev.type == PTL_EVENT_SEND && undelivered)
            ++send_fail;
        else if (ev.type == PTL_EVENT_ACK && undelivered)
            ++ack_fail;
        else if (ev.type == PTL_EVENT_REPLY && undelivered)
            ++reply_fail;
        else
            e2e_fail("unexpected %s event with ni_fail_type %d", e2e_event_name(ev.type), (int)ev.ni_fail_type);
    }
    E2E_CHECK(send_ok == 2, "%d SEND events with PTL_NI_OK, expected 2 (8 B Put and Atomic)", send_ok);
    E2E_CHECK(send_fail == 1, "%d SEND events with PTL_NI_UNDELIVERABLE, expected 1 (4 KiB Put)", send_fail);
    E2E_CHECK(ack_fail == 3, "%d ACK events with PTL_NI_UNDELIVERABLE, expected 3", ack_fail);
    E2E_CHECK(reply_fail == 1, "%d REPLY events with PTL_NI_UNDELIVERABLE, expected 1", reply_fail);
    ptl_ct_event_t c;
    E2E_OK(PtlCTWait(ct, 1, &c));
    E2E_CHECK(c.success == 0 && c.failure == 1, "counted ACK: success %llu failure %llu, expected 0 and 1",
              (unsigned long long)c.success, (unsigned long long)c.failure);
    ptl_event_t extra;
    E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &extra));
    printf("undeliverable: SEND ok %d, SEND failed %d, ACK failed %d, REPLY failed %d, counted failures %llu\n",
           send_ok, send_fail, ack_fail, reply_fail, (unsigned long long)c.failure);
}

static void linkdown(ptl_handle_ni_t ni, double start)
{
    static unsigned char buf[64];
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DATA, &(ptl_pt_index_t){0}));
    if (e2e_rank == 1)
        append_me(ni, buf, sizeof buf, PTL_ME_OP_PUT, 0);
    e2e_barrier();
    if (e2e_rank == 1) {
        wait_event(eq, PTL_EVENT_PUT, "linkdown");
        return;
    }
    ptl_handle_md_t md = bind_md(ni, buf, sizeof buf, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
    double t = now_s();
    if (t >= start)
        E2E_DIE("already at %.9f s, after the start time %.9f s", t, start);
    e2e_sleep_ns((long)((start - t) * 1e9));
    const double t0 = now_s();
    E2E_OK(PtlPut(md, 0, 8, PTL_ACK_REQ, e2e_peer(1), PT_DATA, 0, 0, NULL, 0));
    ptl_event_t ev = wait_event(eq, PTL_EVENT_ACK, "linkdown");
    E2E_CHECK(ev.ni_fail_type == PTL_NI_OK, "ACK with ni_fail_type %d", (int)ev.ni_fail_type);
    printf("linkdown: put at %.9f s, put-ack %.9f s\n", t0, now_s() - t0);
}

static void memcpy_limit(ptl_handle_ni_t ni, const char *limit)
{
    enum { SIZE = 1000 };
    static unsigned char put_dst[SIZE], get_src[SIZE], put_src[SIZE], get_dst[SIZE];
    const size_t copied = strcmp(limit, "all") == 0 ? SIZE : (size_t)atol(limit);
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DATA, &(ptl_pt_index_t){0}));
    for (size_t i = 0; i < SIZE; ++i) {
        put_src[i] = get_src[i] = pattern(i);
        put_dst[i] = 0xEE;
        get_dst[i] = 0xDD;
    }
    if (e2e_rank == 1) {
        append_me(ni, put_dst, SIZE, PTL_ME_OP_PUT, 0);
        append_me(ni, get_src, SIZE, PTL_ME_OP_GET, 0);
    }
    e2e_barrier();
    if (e2e_rank == 0) {
        ptl_handle_md_t src = bind_md(ni, put_src, SIZE, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
        ptl_handle_md_t dst = bind_md(ni, get_dst, SIZE, eq, PTL_CT_NONE, 0);
        E2E_OK(PtlPut(src, 0, SIZE, PTL_ACK_REQ, e2e_peer(1), PT_DATA, 0, 0, NULL, 0));
        wait_event(eq, PTL_EVENT_ACK, "memcpy put");
        E2E_OK(PtlGet(dst, 0, SIZE, e2e_peer(1), PT_DATA, 0, 0, NULL));
        ptl_event_t ev = wait_event(eq, PTL_EVENT_REPLY, "memcpy get");
        E2E_CHECK(ev.mlength == SIZE, "REPLY mlength %llu: the simulated size is the whole payload",
                  (unsigned long long)ev.mlength);
        for (size_t i = 0; i < SIZE; ++i) {
            const unsigned char want = i < copied ? pattern(i) : 0xDD;
            if (get_dst[i] != want) {
                e2e_fail("Get: byte %zu is 0x%02x, expected 0x%02x", i, get_dst[i], want);
                break;
            }
        }
    }
    e2e_barrier();
    if (e2e_rank == 1)
        for (size_t i = 0; i < SIZE; ++i) {
            const unsigned char want = i < copied ? pattern(i) : 0xEE;
            if (put_dst[i] != want) {
                e2e_fail("Put: byte %zu is 0x%02x, expected 0x%02x", i, put_dst[i], want);
                break;
            }
        }
    printf("memcpy: rank %d checked %s bytes copied of %d\n", e2e_rank, limit, SIZE);
}

static void atomics(ptl_handle_ni_t ni, long count)
{
    static uint64_t counter, operand = 1, fetched;
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DATA, &(ptl_pt_index_t){0}));
    if (e2e_rank == 1)
        append_me(ni, &counter, sizeof counter,
                  PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_COMM_DISABLE, 0);
    e2e_barrier();
    if (e2e_rank == 0) {
        ptl_handle_md_t put = bind_md(ni, &operand, sizeof operand, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
        ptl_handle_md_t get = bind_md(ni, &fetched, sizeof fetched, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
        for (long i = 0; i < count; ++i) {
            E2E_OK(PtlFetchAtomic(get, 0, put, 0, sizeof operand, e2e_peer(1), PT_DATA, 0, 0, NULL, 0, PTL_SUM,
                                  PTL_UINT64_T));
            ptl_event_t ev = wait_event(eq, PTL_EVENT_REPLY, "atomics");
            E2E_CHECK(ev.ni_fail_type == PTL_NI_OK, "REPLY %ld with ni_fail_type %d", i, (int)ev.ni_fail_type);
            if (fetched != (uint64_t)i) {
                e2e_fail("fetch %ld returned %llu: an addition was applied twice or lost", i,
                         (unsigned long long)fetched);
                break;
            }
        }
    }
    e2e_barrier();
    if (e2e_rank == 1) {
        E2E_CHECK(counter == (uint64_t)count, "counter is %llu after %ld additions", (unsigned long long)counter,
                  count);
        printf("atomics: counter %llu after %ld additions\n", (unsigned long long)counter, count);
    }
}

static void ordering(ptl_handle_ni_t ni, long count)
{
    static unsigned char buf[BUF];
    const int last = e2e_size - 1;
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 1024, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DATA, &(ptl_pt_index_t){0}));
    if (e2e_rank == last)
        append_me(ni, buf, sizeof buf, PTL_ME_OP_PUT, -1);
    e2e_barrier();
    const double t0 = now_s();
    if (e2e_rank != last) {
        ptl_handle_md_t md = bind_md(ni, buf, sizeof buf, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
        for (long i = 0; i < count; ++i)
            E2E_OK(PtlPut(md, 0, (i % 2) ? BUF : 8, PTL_ACK_REQ, e2e_peer(last), PT_DATA, 0, 0, NULL,
                          (ptl_hdr_data_t)i));
        for (long i = 0; i < count; ++i)
            wait_event(eq, PTL_EVENT_ACK, "ordering");
    } else {
        long next[64] = {0};
        for (long n = 0; n < count * last; ++n) {
            ptl_event_t ev = wait_event(eq, PTL_EVENT_PUT, "ordering");
            const int from = (int)ev.initiator.rank;
            if (from < 0 || from >= last || from >= 64)
                E2E_DIE("PUT from rank %d", from);
            E2E_CHECK((long)ev.hdr_data == next[from], "from rank %d: message %llu arrived when %ld was due", from,
                      (unsigned long long)ev.hdr_data, next[from]);
            next[from] = (long)ev.hdr_data + 1;
        }
        printf("ordering %.9f\n", now_s() - t0);
    }
    e2e_barrier();
}

static void fanout(ptl_handle_ni_t ni, long count)
{
    static unsigned char buf[BUF];
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 1024, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, PT_DATA, &(ptl_pt_index_t){0}));
    if (e2e_rank != 0)
        append_me(ni, buf, sizeof buf, PTL_ME_OP_PUT, 0);
    e2e_barrier();
    const double t0 = now_s();
    if (e2e_rank == 0) {
        ptl_handle_md_t md = bind_md(ni, buf, sizeof buf, eq, PTL_CT_NONE, PTL_MD_EVENT_SEND_DISABLE);
        for (long i = 0; i < count; ++i)
            for (int to = 1; to < e2e_size; ++to)
                E2E_OK(PtlPut(md, 0, (i % 2) ? BUF : 8, PTL_ACK_REQ, e2e_peer(to), PT_DATA, 0, 0, NULL,
                              (ptl_hdr_data_t)i));
        for (long n = 0; n < count * (e2e_size - 1); ++n)
            wait_event(eq, PTL_EVENT_ACK, "fanout");
        printf("fanout %.9f\n", now_s() - t0);
    } else {
        for (long i = 0; i < count; ++i) {
            ptl_event_t ev = wait_event(eq, PTL_EVENT_PUT, "fanout");
            E2E_CHECK((long)ev.hdr_data == i, "message %llu arrived when %ld was due", (unsigned long long)ev.hdr_data,
                      i);
        }
    }
    e2e_barrier();
}

int main(int argc, char **argv)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "undeliverable") == 0) {
        e2e_require_ranks(2);
        undeliverable(ni);
    } else {
        e2e_barrier_init(ni);
        if (strcmp(mode, "linkdown") == 0 && argc > 2) {
            e2e_require_ranks(2);
            linkdown(ni, atof(argv[2]));
        } else if (strcmp(mode, "memcpy") == 0 && argc > 2) {
            e2e_require_ranks(2);
            memcpy_limit(ni, argv[2]);
        } else if (strcmp(mode, "atomics") == 0 && argc > 2) {
            e2e_require_ranks(2);
            atomics(ni, atol(argv[2]));
        } else if (strcmp(mode, "ordering") == 0 && argc > 2) {
            ordering(ni, atol(argv[2]));
        } else if (strcmp(mode, "fanout") == 0 && argc > 2) {
            fanout(ni, atol(argv[2]));
        } else {
            E2E_DIE("usage: reliability undeliverable | linkdown T | memcpy N|all | atomics K | ordering K | fanout K");
        }
    }
    return e2e_finish("reliability");
}
