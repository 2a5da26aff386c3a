/* The standard Portals microbenchmarks of the S4BXI thesis (section 4.6),
 * between rank 0 (initiator) and rank 1 (target), in the program's own
 * (simulated) clock:
 *   put-waitack    Put with ACK, wait for the ACK, repeat
 *   get-waitreply  Get, wait for the REPLY, repeat
 *   put-waitsend   Put without ACK, wait for the SEND event, repeat
 *   put-nowait     N Puts back to back, then wait for all N ACKs
 *   get-nowait     N Gets back to back, then wait for all N REPLYs
 * Prints "op size time_per_op_us bandwidth_MBps" lines, one per size.
 * Usage: s4bxi-run -n 2 microbench OP [-i ITERATIONS] [-s MIN] [-m MAX] */
#include "bench_common.h"

#include <string.h>

enum op { PUT_WAITACK, GET_WAITREPLY, PUT_WAITSEND, PUT_NOWAIT, GET_NOWAIT };
static const char *op_names[] = {"put-waitack", "get-waitreply", "put-waitsend", "put-nowait", "get-nowait"};

static ptl_handle_eq_t eq;

static void wait_for(ptl_event_kind_t kind, int count)
{
  ptl_event_t event;
  while (count > 0) {
    CHECK(PtlEQWait(eq, &event));
    check_event(&event);
    if (event.type == kind)
      count--;
  }
}

int main(int argc, char **argv)
{
  if (argc < 2) {
    fprintf(stderr, "usage: microbench OP [-i ITERATIONS] [-s MIN] [-m MAX]\n");
    return 2;
  }
  int op = -1;
  for (int i = 0; i < 5; i++)
    if (strcmp(argv[1], op_names[i]) == 0)
      op = i;
  if (op < 0) {
    fprintf(stderr, "microbench: unknown operation '%s'\n", argv[1]);
    return 2;
  }
  int iterations = 100;
  size_t min_size = 1, max_size = 4 << 20;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "-i") == 0)
      iterations = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "-s") == 0)
      min_size = strtoull(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "-m") == 0)
      max_size = strtoull(argv[i + 1], NULL, 10);
  }

  ptl_process_t me;
  ptl_handle_ni_t ni = bench_init(&me);
  /* Room for every completion of a no-wait batch (SEND and ACK of each Put). */
  CHECK(PtlEQAlloc(ni, (ptl_size_t)(2 * iterations + 16), &eq));
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  char *buffer = calloc(max_size + 1, 1);
  ptl_process_t peer = {.rank = 1 - me.rank};

  /* Rank 1 exposes the buffer (no events) and a control entry on PT 1. */
  if (me.rank == 1)
    append_entry(ni, pt, buffer, max_size,
                 PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE);
  ptl_handle_eq_t control_eq;
  ptl_pt_index_t control;
  CHECK(PtlEQAlloc(ni, 4, &control_eq));
  CHECK(PtlPTAlloc(ni, 0, control_eq, 1, &control));
  append_entry(ni, control, NULL, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
  ptl_handle_md_t md_handle = bind_md(ni, buffer, max_size, eq, 0);

  ptl_event_t event;
  if (me.rank == 1) {
    put_until_delivered(md_handle, 0, peer, control, eq); /* "ready" */
    CHECK(PtlEQWait(control_eq, &event)); /* "done" */
  } else {
    CHECK(PtlEQWait(control_eq, &event));
    printf("# %s: size(B) time_per_op(us) bandwidth(MB/s)\n", op_names[op]);
    for (size_t size = min_size; size <= max_size; size *= 2) {
      double start = simulated_seconds();
      switch (op) {
        case PUT_WAITACK:
          for (int i = 0; i < iterations; i++) {
            CHECK(PtlPut(md_handle, 0, size, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
            wait_for(PTL_EVENT_ACK, 1);
          }
          break;
        case GET_WAITREPLY:
          for (int i = 0; i < iterations; i++) {
            CHECK(PtlGet(md_handle, 0, size, peer, pt, 0, 0, NULL));
            wait_for(PTL_EVENT_REPLY, 1);
          }
          break;
        case PUT_WAITSEND:
          for (int i = 0; i < iterations; i++) {
            CHECK(PtlPut(md_handle, 0, size, PTL_NO_ACK_REQ, peer, pt, 0, 0, NULL, 0));
            wait_for(PTL_EVENT_SEND, 1);
          }
          break;
        case PUT_NOWAIT:
          for (int i = 0; i < iterations; i++)
            CHECK(PtlPut(md_handle, 0, size, PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
          wait_for(PTL_EVENT_ACK, iterations);
          break;
        case GET_NOWAIT:
          for (int i = 0; i < iterations; i++)
            CHECK(PtlGet(md_handle, 0, size, peer, pt, 0, 0, NULL));
          wait_for(PTL_EVENT_REPLY, iterations);
          break;
      }
      double per_op = (simulated_seconds() - start) / iterations;
      printf("%s %zu %.4f %.2f\n", op_names[op], size, per_op * 1e6, (double)size / per_op * 1e-6);
      fflush(stdout);
    }
    CHECK(PtlPut(md_handle, 0, 0, PTL_ACK_REQ, peer, control, 0, 0, NULL, 0)); /* "done" */
    wait_for(PTL_EVENT_ACK, 1);
  }
  CHECK(PtlMDRelease(md_handle));
  PtlNIFini(ni);
  PtlFini();
  free(buffer);
  return 0;
}
