/*
 * pmi_while_parked: PMI-1 exchanges that come while the server has parked
 * the rank (it slept in the kernel, outside any emulated call, longer than
 * s4bxi/park-after), as a rank of an MPI job does at start-up on a loaded
 * machine (descheduled, or waiting in a futex of its runtime's threads).
 *
 *   pmi_while_parked [ROUNDS [SLEEP_MS]]   (default 3 rounds of 150 ms)
 *
 * Each round: every rank sleeps SLEEP_MS of real time in the kernel (a raw
 * system call, which the emulator does not intercept), then puts a key,
 * commits, enters a barrier and reads every rank's key of that round.
 * Prints "pmi_while_parked: rank R: all checks passed".
 */
#define _GNU_SOURCE
#include "simple_pmi.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int rank = -1;

static void die(const char *what)
{
    fprintf(stderr, "pmi_while_parked: rank %d: FAIL: %s\n", rank, what);
    PMI_Abort(1, what);
}

/* Asleep in the kernel without the emulator knowing (no hooked call). */
static void sleep_in_kernel(long ms)
{
    struct timespec delay = {ms / 1000, (ms % 1000) * 1000000L};
    syscall(SYS_nanosleep, &delay, NULL);
}

int main(int argc, char **argv)
{
    const int rounds = argc > 1 ? atoi(argv[1]) : 3;
    const long sleep_ms = argc > 2 ? atol(argv[2]) : 150;
    int spawned = 0, size = 0, universe = 0, appnum = -1, name_max = 0;
    char kvs[256], key[64], value[256], expected[64];
    if (PMI_Init(&spawned) != PMI_SUCCESS || PMI_Get_rank(&rank) != PMI_SUCCESS ||
        PMI_Get_size(&size) != PMI_SUCCESS || size < 1)
        die("PMI_Init, PMI_Get_rank or PMI_Get_size");
    if (PMI_Get_universe_size(&universe) != PMI_SUCCESS || universe != size || PMI_Get_appnum(&appnum) != PMI_SUCCESS ||
        PMI_KVS_Get_name_length_max(&name_max) != PMI_SUCCESS || PMI_KVS_Get_my_name(kvs, sizeof kvs) != PMI_SUCCESS)
        die("PMI_Get_universe_size, PMI_Get_appnum or the key-value space's name");
    for (int round = 0; round < rounds; ++round) {
        sleep_in_kernel(sleep_ms);
        snprintf(key, sizeof key, "round-%d-rank-%d", round, rank);
        snprintf(value, sizeof value, "%d.%d", round, rank);
        if (PMI_KVS_Put(kvs, key, value) != PMI_SUCCESS || PMI_KVS_Commit(kvs) != PMI_SUCCESS)
            die("PMI_KVS_Put or PMI_KVS_Commit");
        sleep_in_kernel(sleep_ms / 3);
        if (PMI_Barrier() != PMI_SUCCESS)
            die("PMI_Barrier");
        for (int other = 0; other < size; ++other) {
            snprintf(key, sizeof key, "round-%d-rank-%d", round, other);
            snprintf(expected, sizeof expected, "%d.%d", round, other);
            if (PMI_KVS_Get(kvs, key, value, sizeof value) != PMI_SUCCESS || strcmp(value, expected) != 0)
                die("PMI_KVS_Get of another rank's key");
        }
    }
    sleep_in_kernel(sleep_ms);
    if (PMI_Finalize() != PMI_SUCCESS)
        die("PMI_Finalize");
    printf("pmi_while_parked: rank %d: all checks passed\n", rank);
    return 0;
}
