/*
 * scribble_segment: a rank that damages the emulator's shared segment, as a
 * program with a stray pointer (or a hostile one) may. The segment is found
 * the way such a program would stumble on it: the mapping of the memfd
 * named "s4bxi-ipc" in /proc/self/maps, or the descriptor S4BXI_SHM_FD.
 *
 *   scribble_segment MODE    (barriers of Puts between the ranks; after
 *                             the first, rank 1 damages the segment)
 *     header      16 bytes over the start of the segment (its header)
 *     neighbour   64 bytes over the middle of the other channels
 *     truncate    ftruncate(S4BXI_SHM_FD, 0), then a write that grows it;
 *                 both must fail, and the run goes on
 *     remap       its own writable mapping of S4BXI_SHM_FD, then garbage
 *                 over the header and the scheduling page; the run goes on
 *     own         garbage over its own channel, then a Portals call
 *     steps       an empty poll that the process answers itself, then
 *                 garbage over the second quarter of its channel's page
 *                 onwards (where the steps of such polls wait for the next
 *                 request, the last part of the channel), then a call
 *     queued      a small Put on a physical NI, which the process queues
 *                 itself, then the same garbage (over where the Put waits
 *                 for the server), then a call
 *     relay_lost  a thread of rank 1 keeps writing over the relay of the
 *                 server's wakes (ipc/wake_relay.hpp): no rank keeps warm
 *                 long, the relay named is no rank, what is handed to it is
 *                 taken back at once, its slots point nowhere; meanwhile all
 *                 ranks go through 20 barriers, and the run goes on
 *
 * Prints "scribble_segment: rank R: all checks passed" when the run goes on.
 */
#define _GNU_SOURCE
#include "e2e_common.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The mapping of the segment in this process (address and length), or 0. */
static char *segment_mapping(size_t *length)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    char *found = NULL;
    while (maps != NULL && fgets(line, sizeof line, maps) != NULL) {
        unsigned long start, end;
        if (strstr(line, "memfd:s4bxi-ipc") != NULL && sscanf(line, "%lx-%lx", &start, &end) == 2) {
            if (found == NULL)
                found = (char *)start;
            *length = (size_t)(end - (unsigned long)found);
        }
    }
    if (maps != NULL)
        fclose(maps);
    return found;
}

/* The relay's words in the scheduling page (ipc::WakeRelay inside
 * ipc::SharedScheduling: ipc/segment.hpp asserts these offsets). */
enum { kWarmRank = 64, kRelayHelper = 192, kRelayAppended = 256, kRelayTaken = 320, kRelayRequests = 324,
       kRelaySlots = 64 };
static _Atomic int relay_clobbering = 1;

static void *drop_relayed_wakes(void *scheduling_page)
{
    volatile uint32_t *helper = (volatile uint32_t *)((char *)scheduling_page + kRelayHelper);
    volatile uint32_t *appended = (volatile uint32_t *)((char *)scheduling_page + kRelayAppended);
    volatile uint32_t *taken = (volatile uint32_t *)((char *)scheduling_page + kRelayTaken);
    volatile uint32_t *requests = (volatile uint32_t *)((char *)scheduling_page + kRelayRequests);
    volatile uint32_t *warm = (volatile uint32_t *)((char *)scheduling_page + kWarmRank);
    while (atomic_load(&relay_clobbering)) {
        /* No rank keeps warm long, the relay is no rank, what is handed to
         * it is taken back at once, and its slots point nowhere. */
        *warm = 1000;
        *helper = 1000;
        *appended = *taken;
        for (int i = 0; i < kRelaySlots; ++i)
            requests[i] = 0xfffffff0u;
        sched_yield();
    }
    return NULL;
}

static pthread_t relay_clobber;

static void scribble(const char *mode, int rank, int size, ptl_handle_ni_t ni)
{
    size_t length = 0;
    char *segment = segment_mapping(&length);
    E2E_CHECK(segment != NULL, "the segment's mapping was not found in /proc/self/maps");
    long page = sysconf(_SC_PAGESIZE);
    /* Where its channel starts: the header's channels_offset and
     * channel_stride (ipc/segment.hpp: the 5th and 6th 8-byte words after
     * the magic, version and rank count). */
    uint64_t channels_offset, channel_stride;
    memcpy(&channels_offset, segment + 32, sizeof channels_offset);
    memcpy(&channel_stride, segment + 40, sizeof channel_stride);
    char *own_channel = segment + channels_offset + (uint64_t)rank * channel_stride;
    if (strcmp(mode, "header") == 0) {
        memset(segment, 0x5a, 16); /* faults: read-only in the ranks */
    } else if (strcmp(mode, "neighbour") == 0) {
        memset(segment + 2 * page + 16, 0x5a, 64); /* rank 0's channel: not mapped here */
    } else if (strcmp(mode, "truncate") == 0) {
        int fd = atoi(getenv("S4BXI_SHM_FD"));
        struct stat before, after;
        E2E_CHECK(fstat(fd, &before) == 0, "fstat");
        E2E_CHECK(ftruncate(fd, 0) != 0 && errno == EPERM, "ftruncate to 0 did not fail with EPERM");
        E2E_CHECK(ftruncate(fd, before.st_size * 2) != 0 && errno == EPERM, "growing it did not fail with EPERM");
        char byte = 1;
        E2E_CHECK(pwrite(fd, &byte, 1, before.st_size) != 1, "a write past its end grew it");
        E2E_CHECK(fstat(fd, &after) == 0 && after.st_size == before.st_size, "its size changed");
    } else if (strcmp(mode, "remap") == 0) {
        int fd = atoi(getenv("S4BXI_SHM_FD"));
        struct stat info;
        E2E_CHECK(fstat(fd, &info) == 0, "fstat");
        char *mine = mmap(NULL, (size_t)info.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        E2E_CHECK(mine != MAP_FAILED, "mmap of S4BXI_SHM_FD");
        /* The header and the scheduling page: the server never reads the
         * layout back, and the ranks read it only when they start. */
        memset(mine, 0xa5, (size_t)(2 * page));
        munmap(mine, (size_t)info.st_size);
        (void)size;
    } else if (strcmp(mode, "own") == 0) {
        /* Its own channel's page (writable here), from its end to its
         * start: the request doorbell, first in the page, changes last, so
         * the server sees the damage whenever it looks. */
        volatile char *own = own_channel;
        for (long i = page - 1; i >= 0; --i)
            own[i] = (char)0xa5;
    } else if (strcmp(mode, "steps") == 0) {
        /* A fresh queue is empty, and no event can land in it within a poll
         * period: the process answers this poll itself, and keeps its step
         * for the next request. */
        ptl_handle_eq_t eq;
        ptl_event_t event;
        E2E_OK(PtlEQAlloc(ni, 4, &eq));
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &event));
        volatile char *own = own_channel;
        for (long i = page - 1; i >= page / 4; --i)
            own[i] = (char)0xa5;
        E2E_EXPECT_RC(PTL_EQ_EMPTY, PtlEQGet(eq, &event)); /* the server's: the run ends here */
    } else if (strcmp(mode, "queued") == 0) {
        ptl_handle_ni_t phys;
        ptl_handle_md_t md;
        ptl_md_t desc;
        ptl_process_t me;
        static unsigned char payload[8];
        E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &phys));
        E2E_OK(PtlGetPhysId(phys, &me));
        memset(&desc, 0, sizeof desc);
        desc.start = payload;
        desc.length = sizeof payload;
        desc.eq_handle = PTL_EQ_NONE;
        desc.ct_handle = PTL_CT_NONE;
        E2E_OK(PtlMDBind(phys, &desc, &md));
        E2E_OK(PtlPut(md, 0, sizeof payload, PTL_NO_ACK_REQ, me, 0, 0, 0, NULL, 0));
        volatile char *own = own_channel;
        for (long i = page - 1; i >= page / 4; --i)
            own[i] = (char)0xa5;
        E2E_OK(PtlMDRelease(md)); /* the server's: the run ends here */
    } else if (strcmp(mode, "relay_lost") == 0) {
        uint64_t scheduling_offset;
        memcpy(&scheduling_offset, segment + 24, sizeof scheduling_offset);
        E2E_CHECK(pthread_create(&relay_clobber, NULL, drop_relayed_wakes, segment + scheduling_offset) == 0,
                  "pthread_create");
    } else {
        E2E_DIE("unknown mode %s", mode);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "header";
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_barrier_init(ni);
    e2e_barrier();
    if (e2e_rank == 1)
        scribble(mode, e2e_rank, e2e_size, ni);
    /* Then ordinary traffic, which must still work (or end the run). */
    const int barriers = strcmp(mode, "relay_lost") == 0 ? 20 : 2;
    for (int i = 0; i < barriers; ++i)
        e2e_barrier();
    if (e2e_rank == 1 && strcmp(mode, "relay_lost") == 0) {
        atomic_store(&relay_clobbering, 0);
        pthread_join(relay_clobber, NULL);
    }
    e2e_barrier_fini();
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("scribble_segment");
}
