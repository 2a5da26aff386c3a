/*
 * Atomics under contention: every rank (any number) operates on variables of
 * rank 0 at the same time (Portals 4.1, section 3.15: each item is updated
 * atomically).
 *  - fetch-and-add: each rank adds 1 ten times; every value fetched is
 *    distinct, so together they are exactly 0 .. 10 * size - 1;
 *  - a lock made of PtlSwap PTL_CSWAP (take) and PTL_SWAP (give back)
 *    protects a non-atomic read-modify-write done with PtlGet and PtlPut;
 *  - PTL_MSWAP sets each rank's bit of a mask, PTL_MAX and PTL_MIN keep the
 *    extreme values.
 */
#include "conformance_common.h"

#define PT_C 16
#define ROUNDS 10
#define LOCKED_ROUNDS 3
#define MAX_RANKS 64

enum { B_COUNTER = 1, B_LOCK, B_VALUE, B_MASK, B_MAX, B_MIN, B_FETCHED };

static uint64_t counter, mask;
static int64_t lock_word, value, max_value = -1000;
static int32_t min_value = 1000;
static uint64_t fetched_all[MAX_RANKS * ROUNDS];

static uint64_t one = 1, fetched[ROUNDS];
static int64_t mine, old_lock, got_value, new_value, zero = 0;
static uint64_t ones = ~(uint64_t)0, old_mask;
static int32_t minus_me;

static void wait_reply(ptl_handle_eq_t eq, const char *what)
{
    cf_expect(eq, PTL_EVENT_REPLY, what);
}

static void wait_ack(ptl_handle_eq_t eq, const char *what)
{
    cf_expect(eq, PTL_EVENT_ACK, what);
}

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    if (e2e_size > MAX_RANKS)
        E2E_DIE("at most %d ranks", MAX_RANKS);
    const ptl_process_t root = e2e_peer(0);
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 64, &eq));
    ptl_handle_me_t h[7];
    if (e2e_rank == 0) {
        ptl_pt_index_t pt;
        E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT_C, &pt));
        const unsigned opts = PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE;
        h[0] = cf_append(ni, PT_C, &counter, sizeof counter, B_COUNTER, opts, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
        h[1] = cf_append(ni, PT_C, &lock_word, sizeof lock_word, B_LOCK, opts, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
        h[2] = cf_append(ni, PT_C, &value, sizeof value, B_VALUE, opts, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
        h[3] = cf_append(ni, PT_C, &mask, sizeof mask, B_MASK, opts, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
        h[4] = cf_append(ni, PT_C, &max_value, sizeof max_value, B_MAX, opts, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
        h[5] = cf_append(ni, PT_C, &min_value, sizeof min_value, B_MIN, opts, PTL_CT_NONE, PTL_PRIORITY_LIST, NULL);
        h[6] = cf_append(ni, PT_C, fetched_all, sizeof fetched_all, B_FETCHED, opts, PTL_CT_NONE, PTL_PRIORITY_LIST,
                         NULL);
    }
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = NULL;
    md.length = PTL_SIZE_MAX; /* the whole address space: offsets are addresses */
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE;
    ptl_handle_md_t all;
    E2E_OK(PtlMDBind(ni, &md, &all));
#define AT(var) ((ptl_size_t)(uintptr_t)&(var))
    e2e_barrier(); /* 1: rank 0's variables are exposed */

    /* Fetch-and-add. */
    for (int k = 0; k < ROUNDS; ++k) {
        E2E_OK(PtlFetchAtomic(all, AT(fetched[k]), all, AT(one), 8, root, PT_C, B_COUNTER, 0, NULL, 0, PTL_SUM,
                              PTL_UINT64_T));
        wait_reply(eq, "fetch-and-add");
        if (k > 0)
            E2E_CHECK(fetched[k] > fetched[k - 1], "fetch-and-add: fetched %llu after %llu",
                      (unsigned long long)fetched[k], (unsigned long long)fetched[k - 1]);
    }
    E2E_OK(PtlPut(all, AT(fetched[0]), sizeof fetched, PTL_ACK_REQ, root, PT_C, B_FETCHED,
                  (ptl_size_t)e2e_rank * sizeof fetched, NULL, 0));
    wait_ack(eq, "fetched values to rank 0");

    /* A lock: CSWAP 0 -> rank + 1 takes it, SWAP gives it back. */
    mine = e2e_rank + 1;
    for (int k = 0; k < LOCKED_ROUNDS; ++k) {
        int attempts = 0;
        for (;;) {
            E2E_OK(PtlSwap(all, AT(old_lock), all, AT(mine), 8, root, PT_C, B_LOCK, 0, NULL, 0, &zero, PTL_CSWAP,
                           PTL_INT64_T));
            wait_reply(eq, "lock: CSWAP");
            if (old_lock == 0)
                break;
            if (++attempts > 100000)
                E2E_DIE("lock never taken (held by %lld)", (long long)old_lock);
            e2e_sleep_ns(1000 + 300 * e2e_rank);
        }
        E2E_OK(PtlGet(all, AT(got_value), 8, root, PT_C, B_VALUE, 0, NULL));
        wait_reply(eq, "lock: Get");
        new_value = got_value + 1;
        e2e_sleep_ns(2000); /* widen the window that the lock must protect */
        E2E_OK(PtlPut(all, AT(new_value), 8, PTL_ACK_REQ, root, PT_C, B_VALUE, 0, NULL, 0));
        wait_ack(eq, "lock: Put");
        E2E_OK(PtlSwap(all, AT(old_lock), all, AT(zero), 8, root, PT_C, B_LOCK, 0, NULL, 0, NULL, PTL_SWAP,
                       PTL_INT64_T));
        wait_reply(eq, "lock: SWAP");
        E2E_CHECK(old_lock == mine, "lock: given back by rank %d but held by %lld", e2e_rank, (long long)old_lock);
    }

    /* Masked swap and extremes. */
    uint64_t bit = (uint64_t)1 << e2e_rank;
    E2E_OK(PtlSwap(all, AT(old_mask), all, AT(ones), 8, root, PT_C, B_MASK, 0, NULL, 0, &bit, PTL_MSWAP,
                   PTL_UINT64_T));
    wait_reply(eq, "MSWAP");
    E2E_CHECK((old_mask & bit) == 0, "MSWAP: my bit was set before me");
    mine = e2e_rank;
    E2E_OK(PtlAtomic(all, AT(mine), 8, PTL_ACK_REQ, root, PT_C, B_MAX, 0, NULL, 0, PTL_MAX, PTL_INT64_T));
    wait_ack(eq, "MAX");
    minus_me = -e2e_rank;
    E2E_OK(PtlAtomic(all, AT(minus_me), 4, PTL_ACK_REQ, root, PT_C, B_MIN, 0, NULL, 0, PTL_MIN, PTL_INT32_T));
    wait_ack(eq, "MIN");

    e2e_barrier(); /* 2: everyone is done */
    if (e2e_rank == 0) {
        const uint64_t n = (uint64_t)e2e_size * ROUNDS;
        E2E_CHECK(counter == n, "counter is %llu, expected %llu", (unsigned long long)counter, (unsigned long long)n);
        /* Every value 0 .. n-1 fetched exactly once. */
        static unsigned char seen[MAX_RANKS * ROUNDS];
        for (uint64_t k = 0; k < n; ++k) {
            if (fetched_all[k] >= n || seen[fetched_all[k]]++)
                e2e_fail("fetch-and-add: value %llu fetched twice or out of range",
                         (unsigned long long)fetched_all[k]);
        }
        E2E_CHECK(value == (int64_t)e2e_size * LOCKED_ROUNDS, "locked counter is %lld, expected %lld",
                  (long long)value, (long long)e2e_size * LOCKED_ROUNDS);
        E2E_CHECK(lock_word == 0, "the lock is still held by %lld", (long long)lock_word);
        const uint64_t all_bits = e2e_size == 64 ? ~(uint64_t)0 : (((uint64_t)1 << e2e_size) - 1);
        E2E_CHECK(mask == all_bits, "mask 0x%llx, expected 0x%llx", (unsigned long long)mask,
                  (unsigned long long)all_bits);
        E2E_CHECK(max_value == e2e_size - 1 && min_value == -(e2e_size - 1), "MAX %lld, MIN %d; expected %d, %d",
                  (long long)max_value, min_value, e2e_size - 1, -(e2e_size - 1));
        printf("atomic_contention: %d ranks, %llu fetch-and-adds, %d locked updates\n", e2e_size,
               (unsigned long long)n, e2e_size * LOCKED_ROUNDS);
        for (int k = 0; k < 7; ++k)
            E2E_OK(PtlMEUnlink(h[k]));
        E2E_OK(PtlPTFree(ni, PT_C));
    }
    e2e_barrier(); /* 3 */
    E2E_OK(PtlMDRelease(all));
    cf_expect_empty(eq, "EQ at the end");
    E2E_OK(PtlEQFree(eq));
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("atomic_contention");
}
