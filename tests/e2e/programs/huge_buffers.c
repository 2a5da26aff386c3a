/*
 * huge_buffers: two ranks exchange a 6 MiB buffer each way, rank 0 Putting
 * into an entry rank 1 appended over its buffer, rank 1 Getting from one rank
 * 0 appended over its own. Each rank checks the bytes it received, then
 * prints how much of its appended buffer the kernel backs with huge pages
 * (AnonHugePages of the mappings it spans, /proc/self/smaps), and the
 * simulated time the exchange took:
 *   huge_buffers: rank R: huge KiB N, exchange took T ns
 * (s4bxi/huge-pages: the preload has such buffers collapsed into huge pages.)
 * With the argument "inside", each buffer lies 16 bytes past a 2 MiB boundary
 * within a larger mapping of its own (as a malloc'd buffer lies past a page
 * boundary), so that the stretch before its first whole one, which it covers
 * all but 16 bytes of, can be collapsed too. With "entry-once" or
 * "entry-kept", the same, but rank 1's buffer is only the entry the Put lands
 * in (use-once, or persistent), not the local side of a Get back. With
 * "middle-sized", each buffer is 1 MiB, 1.25 MiB past a 2 MiB boundary within
 * such a mapping: three quarters of a MiB in one stretch, a quarter in the
 * next.
 */
#include "e2e_common.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define PT 9
#define BYTES (6UL << 20)

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* AnonHugePages (KiB) of the mappings that [start, start + length) overlaps. */
static long huge_kib(const unsigned char *start, size_t length)
{
    FILE *smaps = fopen("/proc/self/smaps", "r");
    E2E_CHECK(smaps != NULL, "/proc/self/smaps cannot be read");
    if (smaps == NULL)
        return -1;
    char line[512];
    int inside = 0;
    long total = 0;
    const unsigned long begin = (unsigned long)start, end = begin + length;
    while (fgets(line, sizeof line, smaps) != NULL) {
        unsigned long low, high;
        long kib;
        if (sscanf(line, "%lx-%lx ", &low, &high) == 2 && strchr(line, '-') < strchr(line, ' '))
            inside = low < end && begin < high;
        else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
            total += kib;
    }
    fclose(smaps);
    return total;
}

static unsigned char pattern(int from, size_t at)
{
    return (unsigned char)(at * 7 + (size_t)from * 13 + at / 4096);
}

#define HUGE_PAGE (2UL << 20)
#define MAPPING (BYTES + 2 * HUGE_PAGE)

int main(int argc, char **argv)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    const char *mode = argc > 1 ? argv[1] : "";
    const int use_once = strcmp(mode, "entry-once") == 0;
    const int entry_only = use_once || strcmp(mode, "entry-kept") == 0;
    const int middle_sized = strcmp(mode, "middle-sized") == 0;
    const int inside = entry_only || middle_sized || strcmp(mode, "inside") == 0;
    const size_t bytes = middle_sized ? 1UL << 20 : BYTES;
    unsigned char *mapping = NULL;
    unsigned char *mine;
    if (inside) {
        mapping = mmap(NULL, MAPPING, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        E2E_CHECK(mapping != MAP_FAILED, "mmap of %lu bytes", MAPPING);
        if (mapping == MAP_FAILED)
            return e2e_finish("huge_buffers");
        const size_t past = middle_sized ? 5 * HUGE_PAGE / 8 : 16;
        mine = (unsigned char *)(((uintptr_t)mapping + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + past);
    } else {
        mine = malloc(bytes);
    }
    E2E_CHECK(mine != NULL, "malloc of %zu bytes", bytes);
    if (mine == NULL)
        return e2e_finish("huge_buffers");
    for (size_t at = 0; at < bytes; ++at)
        mine[at] = e2e_rank == 0 ? pattern(0, at) : 0;
    ptl_handle_eq_t eq;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    ptl_pt_index_t pt;
    E2E_OK(PtlPTAlloc(ni, 0, PTL_EQ_NONE, PT, &pt));
    ptl_handle_ct_t ct;
    E2E_OK(PtlCTAlloc(ni, &ct));
    /* Rank 0 exposes its bytes to a Get, rank 1 its buffer to a Put. */
    const unsigned int once = e2e_rank == 1 && use_once ? PTL_ME_USE_ONCE : 0;
    ptl_handle_me_t me =
        e2e_append_me(ni, PT, mine, bytes, ct, (e2e_rank == 0 ? PTL_ME_OP_GET : PTL_ME_OP_PUT) | PTL_ME_EVENT_CT_COMM | once);
    e2e_barrier();
    const long long start = now_ns();
    if (e2e_rank == 0) {
        /* Its own bytes to rank 1, from its appended buffer. */
        ptl_handle_md_t md = e2e_bind_md(ni, mine, bytes);
        E2E_OK(PtlPut(md, 0, bytes, PTL_NO_ACK_REQ, e2e_peer(1), PT, 0, 0, NULL, 0));
        e2e_barrier(); /* rank 1 has them */
        e2e_barrier(); /* rank 1 got them back */
        E2E_OK(PtlMDRelease(md));
    } else {
        ptl_ct_event_t arrived;
        E2E_OK(PtlCTWait(ct, 1, &arrived));
        E2E_CHECK(arrived.success == 1 && arrived.failure == 0, "the Put did not arrive whole");
        for (size_t at = 0; at < bytes; ++at)
            if (mine[at] != pattern(0, at)) {
                e2e_fail("byte %zu of the Put is %u, not %u", at, mine[at], pattern(0, at));
                break;
            }
        e2e_barrier();
        if (entry_only) { /* its buffer stays only the entry the Put landed in */
            e2e_barrier();
        } else {
            /* And back, into the same buffer, by a Get from rank 0's entry. */
            memset(mine, 0, bytes);
            ptl_handle_md_t md = e2e_bind_md_eq(ni, mine, bytes, eq);
            E2E_OK(PtlGet(md, 0, bytes, e2e_peer(0), PT, 0, 0, NULL));
            ptl_event_t event;
            E2E_OK(PtlEQWait(eq, &event));
            E2E_CHECK(event.type == PTL_EVENT_REPLY && event.ni_fail_type == PTL_NI_OK && event.mlength == bytes,
                      "the Get ended with event %s, failure %d, %lu bytes", e2e_event_name(event.type),
                      (int)event.ni_fail_type, (unsigned long)event.mlength);
            for (size_t at = 0; at < bytes; ++at)
                if (mine[at] != pattern(0, at)) {
                    e2e_fail("byte %zu of the Get is %u, not %u", at, mine[at], pattern(0, at));
                    break;
                }
            E2E_OK(PtlMDRelease(md));
            e2e_barrier();
        }
    }
    const long long took = now_ns() - start;
    printf("huge_buffers: rank %d: huge KiB %ld, exchange took %lld ns\n", e2e_rank, huge_kib(mine, bytes), took);
    if (once == 0) /* (a use-once entry went with the Put) */
        E2E_OK(PtlMEUnlink(me));
    e2e_barrier();
    e2e_barrier_fini();
    if (inside)
        munmap(mapping, MAPPING);
    else
        free(mine);
    return e2e_finish("huge_buffers");
}
