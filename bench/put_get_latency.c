/* Simulated time per operation of the DESIGN.md reference loops: rank 0 issues
 * an operation to rank 1 and waits for its completion event with PtlEQWait
 * (Put: the ACK, Get: the REPLY), N times; rank 1 only exposes a buffer.
 * Prints one line per operation and size, in the program's own clock.
 * Usage: put_get_latency [iterations] [size...] */
#include "bench_common.h"

#include <string.h>

static void wait_for(ptl_handle_eq_t eq, ptl_event_kind_t kind)
{
  ptl_event_t event;
  do {
    CHECK(PtlEQWait(eq, &event));
    check_event(&event);
  } while (event.type != kind);
}

int main(int argc, char **argv)
{
  int iterations = argc > 1 ? atoi(argv[1]) : 1000;
  size_t default_sizes[] = {8, 65536};
  size_t max_size = 0;
  int size_count = argc > 2 ? argc - 2 : 2;
  size_t *sizes = malloc(sizeof(size_t) * (size_t)size_count);
  for (int i = 0; i < size_count; i++) {
    sizes[i] = argc > 2 ? strtoull(argv[i + 2], NULL, 10) : default_sizes[i];
    if (sizes[i] > max_size)
      max_size = sizes[i];
  }

  ptl_process_t me;
  ptl_handle_ni_t ni = bench_init(&me);
  ptl_handle_eq_t eq;
  CHECK(PtlEQAlloc(ni, 1024, &eq));
  ptl_pt_index_t pt;
  CHECK(PtlPTAlloc(ni, 0, eq, 0, &pt));
  char *buffer = calloc(max_size + 1, 1);

  if (me.rank == 1)
    append_entry(ni, pt, buffer, max_size,
                 PTL_ME_OP_PUT | PTL_ME_OP_GET | PTL_ME_EVENT_LINK_DISABLE | PTL_ME_EVENT_COMM_DISABLE);
  ptl_handle_md_t md_handle = bind_md(ni, buffer, max_size, eq, 0);

  /* Control messages (zero-byte Puts on PT 1) keep the ranks in step: rank 1
   * says "my entry is linked", rank 0 says "done". */
  ptl_handle_eq_t control_eq;
  CHECK(PtlEQAlloc(ni, 4, &control_eq));
  ptl_pt_index_t control;
  CHECK(PtlPTAlloc(ni, 0, control_eq, 1, &control));
  append_entry(ni, control, NULL, 0, PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE);
  ptl_process_t peer = {.rank = 1 - me.rank};

  if (me.rank == 1) {
    put_until_delivered(md_handle, 0, peer, control, eq);
    wait_for(control_eq, PTL_EVENT_PUT);
  } else {
    wait_for(control_eq, PTL_EVENT_PUT);
    for (int s = 0; s < size_count; s++) {
      double start = simulated_seconds();
      for (int i = 0; i < iterations; i++) {
        CHECK(PtlPut(md_handle, 0, sizes[s], PTL_ACK_REQ, peer, pt, 0, 0, NULL, 0));
        wait_for(eq, PTL_EVENT_ACK);
      }
      double put = (simulated_seconds() - start) / iterations;
      start = simulated_seconds();
      for (int i = 0; i < iterations; i++) {
        CHECK(PtlGet(md_handle, 0, sizes[s], peer, pt, 0, 0, NULL));
        wait_for(eq, PTL_EVENT_REPLY);
      }
      double get = (simulated_seconds() - start) / iterations;
      printf("Put-WaitAck   %9zu B  %9.3f us  %8.3f GB/s\n", sizes[s], put * 1e6, (double)sizes[s] / put * 1e-9);
      printf("Get-WaitReply %9zu B  %9.3f us  %8.3f GB/s\n", sizes[s], get * 1e6, (double)sizes[s] / get * 1e-9);
    }
    CHECK(PtlPut(md_handle, 0, 0, PTL_ACK_REQ, peer, control, 0, 0, NULL, 0));
    wait_for(eq, PTL_EVENT_ACK);
  }
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
