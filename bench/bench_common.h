/* What the benchmark programs share: failing loudly on a Portals error, and
 * the two clocks (simulated, as the program sees it; and the real one). */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                             \
  do {                                                                          \
    int rc_ = (call);                                                           \
    if (rc_ != PTL_OK) {                                                        \
      fprintf(stderr, "%s: %s failed with %d\n", __FILE__, #call, rc_);         \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

/* Portals up, a logical matching NI, and this rank's identity. */
static inline ptl_handle_ni_t bench_init(ptl_process_t *me)
{
  ptl_handle_ni_t ni;
  CHECK(PtlInit());
  CHECK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
  CHECK(PtlGetId(ni, me));
  return ni;
}

/* Simulated time: clock_gettime is answered by the emulator. */
static inline double simulated_seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Real time: the raw system call goes around the emulator's hook. */
static inline double wall_seconds(void)
{
  struct timespec t;
  syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Fails on any event that reports a failure. */
static inline void check_event(const ptl_event_t *event)
{
  if (event->ni_fail_type != PTL_NI_OK) {
    fprintf(stderr, "event %d failed (%d)\n", event->type, event->ni_fail_type);
    exit(1);
  }
}

/* Puts with ACK until one is delivered: at start-up the peer may not have
 * allocated its portal or linked its entry yet, and then the Put is dropped
 * (its ACK says so). Only this rank's own SEND and ACK events may come on
 * `eq` meanwhile. */
static inline void put_until_delivered(ptl_handle_md_t md, ptl_size_t size, ptl_process_t peer, ptl_pt_index_t pt,
                                       ptl_handle_eq_t eq)
{
  for (;;) {
    CHECK(PtlPut(md, 0, size, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    ptl_event_t event;
    do
      CHECK(PtlEQWait(eq, &event));
    while (event.type != PTL_EVENT_ACK);
    if (event.ni_fail_type == PTL_NI_OK)
      return;
    struct timespec pause = {0, 1000};
    nanosleep(&pause, NULL);
  }
}

/* A matching entry that any rank may target. */
static inline ptl_handle_me_t append_entry(ptl_handle_ni_t ni, ptl_pt_index_t pt, void *start, ptl_size_t length,
                                           unsigned int options)
{
  ptl_me_t entry;
  memset(&entry, 0, sizeof entry);
  entry.start = start;
  entry.length = length;
  entry.ct_handle = PTL_CT_NONE;
  entry.uid = PTL_UID_ANY;
  entry.match_id.rank = PTL_RANK_ANY;
  entry.options = options;
  ptl_handle_me_t handle;
  CHECK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &handle));
  return handle;
}

static inline ptl_handle_md_t bind_md(ptl_handle_ni_t ni, void *start, ptl_size_t length, ptl_handle_eq_t eq,
                                      unsigned int options)
{
  ptl_md_t md;
  memset(&md, 0, sizeof md);
  md.start = start;
  md.length = length;
  md.eq_handle = eq;
  md.ct_handle = PTL_CT_NONE;
  md.options = options;
  ptl_handle_md_t handle;
  CHECK(PtlMDBind(ni, &md, &handle));
  return handle;
}

#endif
