/*
 * Small PtlPuts on a physical NI, the ones a process may answer itself
 * (s4bxi/queued-puts, preload/queued_puts.hpp), and the cases next to them
 * that it must leave to the server. Whether queued or not, the program sees
 * the same: rank 0 puts to rank 1, rank 1 checks what landed.
 *  1. Puts in a row of 0, 1, 8, 16 and 120 bytes, then their events: each
 *     ACK, and each payload as it was at the call, though the buffer changes
 *     right after (the CPU writes a payload of at most 408 bytes into the
 *     command: inline, or by PIO beyond 8).
 *  2. A Put whose payload the NIC reads by DMA (500 bytes).
 *  3. Invalid Puts: beyond the MD, to a NID the platform does not have, on a
 *     released MD: PTL_ARG_INVALID, and nothing is sent.
 *  4. A Put followed at once by the process's exit path (no call after it).
 *
 *   queued_puts          as above
 *   queued_puts pause    the same, rank 0 spinning 60 ms of real time (no
 *                        call, no sleep in the kernel) after the first Put
 *                        of the row: the server looks at the queued calls
 *                        meanwhile (its liveness period), and what the
 *                        process does next must not change.
 */
#include "conformance_common.h"

#include <sys/syscall.h>
#include <unistd.h>

#define PT_Q 9
#define SLOTS 10
#define SLOT_BYTES 128
#define IN_A_ROW 5
#define DMA_BYTES 500 /* from slot IN_A_ROW on */

static unsigned char src[IN_A_ROW * SLOT_BYTES];
static unsigned char dst[SLOTS * SLOT_BYTES];

static unsigned char pattern(int slot, int i) { return (unsigned char)(slot * 16 + i + 1); }

static int pause_after_first;

/* Real time, past the emulator's clock hooks. */
static double real_ms(void)
{
    struct timespec t;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void spin_real_ms(double ms)
{
    const double until = real_ms() + ms;
    while (real_ms() < until)
        ;
}

static void sender(ptl_handle_ni_t phys, ptl_process_t peer)
{
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(phys, 64, &eq));
    ptl_handle_md_t md = cf_bind(phys, src, sizeof src, PTL_MD_EVENT_SEND_DISABLE, eq, PTL_CT_NONE);
    e2e_barrier(); /* rank 1 is ready */

    /* 1. In a row, each payload overwritten right after its call. */
    static const ptl_size_t sizes[IN_A_ROW] = {0, 1, 8, 16, 120};
    for (int k = 0; k < IN_A_ROW; ++k) {
        for (int i = 0; i < SLOT_BYTES; ++i)
            src[k * SLOT_BYTES + i] = pattern(k, i);
        E2E_OK(PtlPut(md, (ptl_size_t)k * SLOT_BYTES, sizes[k], PTL_ACK_REQ, peer, PT_Q, 0x1,
                      (ptl_size_t)k * SLOT_BYTES, NULL, (ptl_hdr_data_t)k));
        memset(src + k * SLOT_BYTES, 0xEE, SLOT_BYTES);
        if (k == 0 && pause_after_first)
            spin_real_ms(60);
    }
    for (int k = 0; k < IN_A_ROW; ++k) {
        ptl_event_t ev = cf_expect(eq, PTL_EVENT_ACK, "ACK of a small Put");
        E2E_CHECK(ev.mlength == sizes[k], "ACK %d: mlength %llu, want %llu", k, (unsigned long long)ev.mlength,
                  (unsigned long long)sizes[k]);
    }

    /* 2. A payload the CPU does not write into the command. */
    for (int i = 0; i < DMA_BYTES; ++i)
        src[i] = pattern(IN_A_ROW, i);
    E2E_OK(PtlPut(md, 0, DMA_BYTES, PTL_ACK_REQ, peer, PT_Q, 0x1, IN_A_ROW * SLOT_BYTES, NULL, IN_A_ROW));
    cf_expect(eq, PTL_EVENT_ACK, "ACK of a large Put");

    /* 3. What the server refuses, it refuses whatever the process knows. */
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(md, sizeof src - 2, 8, PTL_ACK_REQ, peer, PT_Q, 0x1, 0, NULL, 9));
    ptl_process_t nowhere = peer;
    nowhere.phys.nid = 4000;
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(md, 0, 8, PTL_ACK_REQ, nowhere, PT_Q, 0x1, 0, NULL, 9));
    ptl_handle_md_t gone = cf_bind(phys, src, sizeof src, 0, eq, PTL_CT_NONE);
    E2E_OK(PtlMDRelease(gone));
    E2E_EXPECT_RC(PTL_ARG_INVALID, PtlPut(gone, 0, 8, PTL_ACK_REQ, peer, PT_Q, 0x1, 0, NULL, 9));
    cf_expect_empty(eq, "events of refused Puts");

    e2e_barrier(); /* rank 1 checked */

    /* 4. The last Put, and no call of the program after it. */
    for (int i = 0; i < 8; ++i)
        src[i] = pattern(IN_A_ROW + 1, i);
    E2E_OK(PtlPut(md, 0, 8, PTL_NO_ACK_REQ, peer, PT_Q, 0x1, (SLOTS - 1) * SLOT_BYTES, NULL, IN_A_ROW + 1));
}

static void receiver(ptl_handle_ni_t phys)
{
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    E2E_OK(PtlEQAlloc(phys, 64, &eq));
    E2E_OK(PtlPTAlloc(phys, 0, eq, PT_Q, &pt));
    /* The initiator's remote offsets place each Put in its slot. */
    ptl_me_t me = cf_me(dst, sizeof dst, 0x1, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE, PTL_CT_NONE);
    me.match_id.phys.nid = PTL_NID_ANY;
    me.match_id.phys.pid = PTL_PID_ANY;
    ptl_handle_me_t h;
    E2E_OK(PtlMEAppend(phys, PT_Q, &me, PTL_PRIORITY_LIST, NULL, &h));
    e2e_barrier(); /* ready */

    static const ptl_size_t sizes[IN_A_ROW] = {0, 1, 8, 16, 120};
    for (int k = 0; k <= IN_A_ROW; ++k) {
        ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT, "PUT of rank 0");
        E2E_CHECK(ev.hdr_data == (ptl_hdr_data_t)k, "PUT %d: hdr_data %llu", k, (unsigned long long)ev.hdr_data);
        const ptl_size_t want = k < IN_A_ROW ? sizes[k] : DMA_BYTES;
        E2E_CHECK(ev.mlength == want, "PUT %d: mlength %llu, want %llu", k, (unsigned long long)ev.mlength,
                  (unsigned long long)want);
        for (ptl_size_t i = 0; i < want; ++i)
            if (dst[k * SLOT_BYTES + i] != pattern(k, (int)i)) {
                e2e_fail("PUT %d: byte %llu is 0x%02x, want 0x%02x (the payload at the call)", k,
                         (unsigned long long)i, dst[k * SLOT_BYTES + i], pattern(k, (int)i));
                break;
            }
    }
    e2e_barrier(); /* checked */
    ptl_event_t ev = cf_expect(eq, PTL_EVENT_PUT, "the Put made just before rank 0's exit");
    E2E_CHECK(ev.hdr_data == IN_A_ROW + 1 && dst[(SLOTS - 1) * SLOT_BYTES + 7] == pattern(IN_A_ROW + 1, 7),
              "last PUT: hdr_data %llu, byte 0x%02x", (unsigned long long)ev.hdr_data,
              dst[(SLOTS - 1) * SLOT_BYTES + 7]);
    E2E_OK(PtlMEUnlink(h));
    E2E_OK(PtlPTFree(phys, PT_Q));
}

int main(int argc, char **argv)
{
    pause_after_first = argc > 1 && strcmp(argv[1], "pause") == 0;
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    ptl_process_t map[2];
    ptl_handle_ni_t phys = cf_physical_ni(ni, map, 2);
    if (e2e_rank == 0)
        sender(phys, map[1]);
    else
        receiver(phys);
    if (e2e_rank == 1) /* rank 0's last call is its last Put */
        e2e_barrier_fini();
    return e2e_finish("queued_puts");
}
