/* OpenSHMEM put and get figures through SOS over the simulated NIC, in the
 * program's own (simulated) clock, to set beside the Portals ones
 * (put_get_latency, examples/pingpong); tools/bench.sh runs it.
 *   latency: PE 0 puts SIZE bytes to PE 1 and waits for their completion
 *            (shmem_putmem + shmem_quiet), or gets them (shmem_getmem), N times;
 *   bandwidth: PE 0 issues N non-blocking puts (gets) of SIZE bytes, then one
 *            shmem_quiet: SIZE * N / time.
 * PE 1 only exposes the symmetric buffer. Each result is checked.
 * Usage: shmem_putget latency|bandwidth SIZE ITERATIONS */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
  const int latency = argc == 4 && strcmp(argv[1], "latency") == 0;
  const size_t size = argc == 4 ? strtoull(argv[2], NULL, 10) : 0;
  const int iterations = argc == 4 ? atoi(argv[3]) : 0;
  if (argc != 4 || (!latency && strcmp(argv[1], "bandwidth") != 0) || size == 0 || iterations <= 0) {
    fprintf(stderr, "usage: shmem_putget latency|bandwidth SIZE ITERATIONS\n");
    return 2;
  }
  shmem_init();
  if (shmem_n_pes() != 2) {
    fprintf(stderr, "shmem_putget: needs 2 PEs, got %d\n", shmem_n_pes());
    shmem_global_exit(2);
  }
  unsigned char *remote = shmem_malloc(size);
  unsigned char *local = malloc(size);
  if (remote == NULL || local == NULL) {
    fprintf(stderr, "shmem_putget: cannot allocate %zu bytes\n", size);
    shmem_global_exit(2);
  }
  memset(remote, shmem_my_pe() + 1, size);
  shmem_barrier_all();

  double put_us = 0, get_us = 0;
  if (shmem_my_pe() == 0) {
    memset(local, 0xA5, size);
    double start = now_us();
    for (int i = 0; i < iterations; i++) {
      if (latency) {
        shmem_putmem(remote, local, size, 1);
        shmem_quiet();
      } else {
        shmem_putmem_nbi(remote, local, size, 1);
      }
    }
    shmem_quiet();
    put_us = now_us() - start;
    memset(local, 0, size);
    start = now_us();
    for (int i = 0; i < iterations; i++) {
      if (latency)
        shmem_getmem(local, remote, size, 1);
      else
        shmem_getmem_nbi(local, remote, size, 1);
    }
    shmem_quiet();
    get_us = now_us() - start;
    for (size_t i = 0; i < size; i++)
      if (local[i] != 0xA5) {
        fprintf(stderr, "shmem_putget: byte %zu read back is 0x%02x, expected 0xa5\n", i, local[i]);
        shmem_global_exit(1);
      }
  }
  shmem_barrier_all();
  if (shmem_my_pe() == 0) {
    if (latency)
      printf("shmem %zu B: put %.3f us, get %.3f us\n", size, put_us / iterations, get_us / iterations);
    else
      printf("shmem %zu B: put %.0f MB/s, get %.0f MB/s\n", size, (double)size * iterations / put_us,
             (double)size * iterations / get_us);
  }
  shmem_free(remote);
  free(local);
  shmem_finalize();
  return 0;
}
