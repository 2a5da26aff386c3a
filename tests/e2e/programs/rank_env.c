/*
 * Identity and placement: PMI_RANK/PMI_SIZE match PtlGetId and the size of
 * the installed rank map, the map entries are distinct physical ids, the
 * own entry is PtlGetPhysId, and with "--nodes=K" ranks are placed
 * round-robin over K nodes (rank r shares its nid with rank r mod K only);
 * with "--block=P" ranks are placed P per node (rank r on node r / P).
 * A barrier proves every rank can reach every other.
 * The process starts as after a plain fork and exec of the launcher: no
 * signal blocked, the signals the emulator catches at their default action,
 * the launcher's environment with the emulator's variables.
 */
#include "e2e_common.h"

#include <signal.h>

static void check_process_state(int expect_inherited)
{
    sigset_t blocked;
    sigprocmask(SIG_SETMASK, NULL, &blocked);
    for (int signal = 1; signal < NSIG; ++signal)
        if (signal < SIGRTMIN || signal > SIGRTMAX)
            E2E_CHECK(!sigismember(&blocked, signal), "signal %d is blocked at start", signal);
    int caught[] = {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE};
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; ++i) {
        struct sigaction action;
        sigaction(caught[i], NULL, &action);
        E2E_CHECK(action.sa_handler == SIG_DFL, "signal %d is not at its default action", caught[i]);
    }
    const char *path = getenv("PATH");
    E2E_CHECK(path != NULL && *path != '\0', "PATH is not passed on");
    const char *from_launcher = getenv("S4BXI_TEST_INHERITED");
    if (expect_inherited)
        E2E_CHECK(from_launcher != NULL && strcmp(from_launcher, "yes") == 0,
                  "S4BXI_TEST_INHERITED is '%s', not the launcher's 'yes'",
                  from_launcher ? from_launcher : "unset");
}

int main(int argc, char **argv)
{
    int nodes = 0, block = 0, expect_inherited = 0;
    for (int i = 1; i < argc; ++i) {
        if (strncmp(argv[i], "--nodes=", 8) == 0)
            nodes = atoi(argv[i] + 8);
        if (strncmp(argv[i], "--block=", 8) == 0)
            block = atoi(argv[i] + 8);
        if (strcmp(argv[i], "--expect-inherited") == 0)
            expect_inherited = 1;
    }

    check_process_state(expect_inherited);
    ptl_handle_ni_t ni = e2e_init(NULL);
    const char *env_rank = getenv("PMI_RANK");
    const char *env_size = getenv("PMI_SIZE");
    E2E_CHECK(env_rank && atoi(env_rank) == e2e_rank,
              "PMI_RANK is %s, PtlGetId says %d", env_rank ? env_rank : "unset",
              e2e_rank);
    E2E_CHECK(env_size && atoi(env_size) == e2e_size,
              "PMI_SIZE is %s, the rank map has %d entries",
              env_size ? env_size : "unset", e2e_size);

    ptl_process_t *map = calloc((size_t)e2e_size, sizeof *map);
    ptl_size_t actual = 0;
    ptl_process_t phys;
    E2E_OK(PtlGetMap(ni, (ptl_size_t)e2e_size, map, &actual));
    E2E_CHECK(actual == (ptl_size_t)e2e_size, "PtlGetMap: actual size %llu",
              (unsigned long long)actual);
    E2E_OK(PtlGetPhysId(ni, &phys));
    E2E_CHECK(map[e2e_rank].phys.nid == phys.phys.nid &&
                  map[e2e_rank].phys.pid == phys.phys.pid,
              "map entry %d is (%u, %u), PtlGetPhysId says (%u, %u)", e2e_rank,
              map[e2e_rank].phys.nid, map[e2e_rank].phys.pid, phys.phys.nid,
              phys.phys.pid);
    for (int a = 0; a < e2e_size; ++a)
        for (int b = a + 1; b < e2e_size; ++b)
            E2E_CHECK(map[a].phys.nid != map[b].phys.nid ||
                          map[a].phys.pid != map[b].phys.pid,
                      "ranks %d and %d share the physical id (%u, %u)", a, b,
                      map[a].phys.nid, map[a].phys.pid);
    if (nodes > 0)
        for (int a = 0; a < e2e_size; ++a)
            for (int b = a + 1; b < e2e_size; ++b) {
                int same_node = (a % nodes) == (b % nodes);
                int same_nid = map[a].phys.nid == map[b].phys.nid;
                E2E_CHECK(same_node == same_nid,
                          "ranks %d and %d: nids %u and %u, but round-robin "
                          "over %d nodes puts them on %s node",
                          a, b, map[a].phys.nid, map[b].phys.nid, nodes,
                          same_node ? "the same" : "different");
            }

    if (block > 0)
        for (int a = 0; a < e2e_size; ++a)
            for (int b = a + 1; b < e2e_size; ++b) {
                int same_node = a / block == b / block;
                int same_nid = map[a].phys.nid == map[b].phys.nid;
                E2E_CHECK(same_node == same_nid,
                          "ranks %d and %d: nids %u and %u, but block placement "
                          "of %d per node puts them on %s node",
                          a, b, map[a].phys.nid, map[b].phys.nid, block,
                          same_node ? "the same" : "different");
            }

    e2e_barrier_init(ni);
    e2e_barrier();
    e2e_barrier();
    printf("rank_env: rank %d of %d, nid %u pid %u\n", e2e_rank, e2e_size,
           phys.phys.nid, phys.phys.pid);
    e2e_barrier_fini();
    free(map);
    E2E_OK(PtlNIFini(ni));
    PtlFini();
    return e2e_finish("rank_env");
}
