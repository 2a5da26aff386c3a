/* Ring of Puts with ACK: every rank Puts to the next one and waits for the
 * ACK of its own Put and for its predecessor's Put, round after round. All
 * ranks are busy at once, so this is the figure that says how the cost of a
 * simulated message grows with the number of ranks (tools/scale-bench.sh).
 * Rank 0 prints the wall time per simulated Put (every rank's Puts count) and
 * the simulated time per round.
 * Usage: s4bxi-run -n N put_ring [rounds] [size] */
#include "bench_common.h"

#include <string.h>

/* Events counted so far: Puts from the predecessor, ACKs of our Puts. A
 * Put of the next round may arrive while we wait for an ACK, so waits are for
 * totals, not for single events. */
static long puts_seen, acks_seen;

static void wait_for_totals(ptl_handle_eq_t eq, long puts, long acks)
{
  ptl_event_t event;
  while (puts_seen < puts || acks_seen < acks) {
    CHECK(PtlEQWait(eq, &event));
    if (event.type == PTL_EVENT_ACK && event.ni_fail_type != PTL_NI_OK)
      return; /* only the first Put may be refused: first_put sends it again */
    check_event(&event);
    if (event.type == PTL_EVENT_PUT)
      puts_seen++;
    if (event.type == PTL_EVENT_ACK)
      acks_seen++;
  }
}

/* The first Put of the ring: the successor may not have linked its entry
 * yet, in which case the Put is dropped (its ACK says so) and sent again. */
static void first_put(ptl_handle_eq_t eq, ptl_handle_md_t md, size_t size, ptl_process_t next, ptl_pt_index_t pt)
{
  while (acks_seen == 0) {
    CHECK(PtlPut(md, 0, size, PTL_ACK_REQ, next, pt, 0, 0, NULL, 0));
    wait_for_totals(eq, 0, 1);
    if (acks_seen == 0) {
      struct timespec pause = {0, 1000};
      nanosleep(&pause, NULL);
    }
  }
}

int main(int argc, char **argv)
{
  long rounds = argc > 1 ? atol(argv[1]) : 1000;
  size_t size = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
  ptl_process_t me;
  ptl_handle_ni_t ni = bench_init(&me);
  ptl_process_t first;
  ptl_size_t ranks = 0;
  CHECK(PtlGetMap(ni, 1, &first, &ranks));
  ptl_handle_eq_t eq;
  CHECK(PtlEQAlloc(ni, 256, &eq));
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  char *send = calloc(size + 1, 1);
  char *receive = calloc(size + 1, 1);
  append_entry(ni, pt, receive, size, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
  ptl_handle_md_t md = bind_md(ni, send, size, eq, PTL_MD_EVENT_SEND_DISABLE);
  ptl_process_t next = {.rank = (me.rank + 1) % (ptl_rank_t)ranks};

  /* Round 0 links the ring: every rank knows its successor is listening. */
  first_put(eq, md, size, next, pt);
  wait_for_totals(eq, 1, 1);

  double wall_start = wall_seconds();
  double sim_start = simulated_seconds();
  for (long i = 0; i < rounds; i++) {
    CHECK(PtlPut(md, 0, size, PTL_ACK_REQ, next, pt, 0, 0, NULL, 0));
    wait_for_totals(eq, i + 2, i + 2);
  }
  double wall = wall_seconds() - wall_start;
  double simulated = simulated_seconds() - sim_start;
  if (me.rank == 0 && rounds > 0)
    printf("put ring %lu ranks, %zu B x %ld rounds: simulated %.3f us per round, wall %.2f us per simulated Put\n",
           (unsigned long)ranks, size, rounds, simulated / (double)rounds * 1e6,
           wall / ((double)rounds * (double)ranks) * 1e6);
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
