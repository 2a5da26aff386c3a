/* Ping-pong of Puts with ACK between ranks 0 and 1: each rank waits for the
 * other's Put (PUT event) and for the ACK of its own. Prints the simulated
 * round trip, and the wall time per simulated Put (both ranks' Puts count),
 * the figure that says how fast the emulator simulates.
 * Usage: s4bxi-run -n 2 put_pingpong [iterations] [size] */
#include "bench_common.h"

#include <string.h>

/* Waits until both the peer's Put and the ACK of ours have arrived. */
static void wait_put_and_ack(ptl_handle_eq_t eq, int need_put, int need_ack)
{
  ptl_event_t event;
  while (need_put || need_ack) {
    CHECK(PtlEQWait(eq, &event));
    check_event(&event);
    if (event.type == PTL_EVENT_PUT)
      need_put = 0;
    if (event.type == PTL_EVENT_ACK)
      need_ack = 0;
  }
}

int main(int argc, char **argv)
{
  long iterations = argc > 1 ? atol(argv[1]) : 100000;
  size_t size = argc > 2 ? strtoull(argv[2], NULL, 10) : 8;
  ptl_process_t me;
  ptl_handle_ni_t ni = bench_init(&me);
  ptl_handle_eq_t eq;
  CHECK(PtlEQAlloc(ni, 256, &eq));
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  char *send = calloc(size + 1, 1);
  char *receive = calloc(size + 1, 1);

  append_entry(ni, pt, receive, size, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
  ptl_handle_md_t md_handle = bind_md(ni, send, size, eq, PTL_MD_EVENT_SEND_DISABLE);
  ptl_process_t peer = {.rank = 1 - me.rank};

  /* Rank 1 starts by announcing that its entry is linked (again until rank 0
   * has linked its own: the announcement was dropped before). */
  if (me.rank == 1)
    put_until_delivered(md_handle, size, peer, pt, eq);
  else
    wait_put_and_ack(eq, 1, 0);

  double wall_start = wall_seconds();
  double sim_start = simulated_seconds();
  for (long i = 0; i < iterations; i++) {
    if (me.rank == 0) {
      CHECK(PtlPut(md_handle, 0, size, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
      wait_put_and_ack(eq, 1, 1);
    } else {
      wait_put_and_ack(eq, 1, i > 0);
      CHECK(PtlPut(md_handle, 0, size, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
    }
  }
  if (me.rank == 1)
    wait_put_and_ack(eq, 0, 1);
  double wall = wall_seconds() - wall_start;
  double simulated = simulated_seconds() - sim_start;
  if (me.rank == 0)
    printf("put ping-pong %zu B x %ld: simulated round trip %.3f us, wall %.2f us per simulated Put\n", size,
           iterations, simulated / (double)iterations * 1e6, wall / (2.0 * (double)iterations) * 1e6);
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
