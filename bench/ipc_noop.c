/* One rank calls a Portals function that the server answers without touching
 * the model (PtlGetUid), N times, and prints the wall time per call: the cost
 * of a forwarded call, i.e. of one IPC round trip plus encoding. The wall
 * clock is read with the raw system call, because clock_gettime is simulated.
 * Usage: s4bxi-run -n 1 ipc_noop [iterations] */
#include "bench_common.h"

int main(int argc, char **argv)
{
  int iterations = argc > 1 ? atoi(argv[1]) : 200000;
  ptl_handle_ni_t ni;
  ptl_uid_t uid;
  if (PtlInit() != PTL_OK ||
      PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni) != PTL_OK) {
    fprintf(stderr, "ipc_noop: Portals initialisation failed\n");
    return 1;
  }
  for (int i = 0; i < 1000; i++) /* warm-up: let the spin budget settle */
    PtlGetUid(ni, &uid);
  double start = wall_seconds();
  for (int i = 0; i < iterations; i++)
    if (PtlGetUid(ni, &uid) != PTL_OK)
      return 1;
  double elapsed = wall_seconds() - start;
  printf("forwarded call round trip    %8.3f us\n", elapsed / iterations * 1e6);
  PtlNIFini(ni);
  PtlFini();
  return 0;
}
