/*
 * pmi_bootstrap: the usual way a Portals runtime starts: PMI-1 gives rank and
 * size, each rank publishes its physical Portals id in the key-value space,
 * a PMI barrier, each rank reads all ids and installs them with PtlSetMap on
 * a logical NI, then a ring of Puts proves the map. Rank 1 sleeps 3
 * simulated seconds before the barrier: everyone leaves it after 3 s.
 * "abort [CODE]" as arguments: rank 1 calls PMI_Abort(CODE) instead (7 when
 * CODE is not a number), as shmem_global_exit(CODE) does through SOS's
 * simple-PMI client.
 */
#include "e2e_common.h"
#include "simple_pmi.h"

int main(int argc, char **argv)
{
    int spawned = 0, rank = -1, size = 0, universe = 0, appnum = -1, name_max = 0;
    char kvs[256], key[64], value[256];
    E2E_CHECK(PMI_Init(&spawned) == PMI_SUCCESS, "PMI_Init failed");
    if (PMI_Get_rank(&rank) != PMI_SUCCESS || PMI_Get_size(&size) != PMI_SUCCESS || size < 1)
        E2E_DIE("PMI_Get_rank/PMI_Get_size failed");
    e2e_rank = rank;
    E2E_CHECK(PMI_Get_universe_size(&universe) == PMI_SUCCESS && universe == size, "universe size %d", universe);
    E2E_CHECK(PMI_Get_appnum(&appnum) == PMI_SUCCESS && appnum == 0, "appnum");
    E2E_CHECK(PMI_KVS_Get_name_length_max(&name_max) == PMI_SUCCESS && name_max > 0, "get_maxes");
    E2E_CHECK(PMI_KVS_Get_my_name(kvs, sizeof kvs) == PMI_SUCCESS && kvs[0] != '\0', "kvs name");

    if (argc > 1 && strcmp(argv[1], "abort") == 0 && rank == 1) {
        int code = 7;
        char *end = NULL;
        long given = argc > 2 ? strtol(argv[2], &end, 10) : 0;
        if (argc > 2 && end != argv[2] && *end == '\0')
            code = (int)given;
        PMI_Abort(code, "test abort");
    }

    /* Physical identity through a physical NI, published in the KVS. */
    ptl_handle_ni_t phys_ni, ni;
    ptl_process_t me;
    E2E_OK(PtlInit());
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_PHYSICAL, PTL_PID_ANY, NULL, NULL, &phys_ni));
    E2E_OK(PtlGetPhysId(phys_ni, &me));
    snprintf(key, sizeof key, "portals-id-%d", rank);
    snprintf(value, sizeof value, "%u:%u", me.phys.nid, me.phys.pid);
    E2E_CHECK(PMI_KVS_Put(kvs, key, value) == PMI_SUCCESS, "put");
    E2E_CHECK(PMI_KVS_Commit(kvs) == PMI_SUCCESS, "commit");
    if (rank == 1)
        sleep(3);
    struct timespec before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    E2E_CHECK(PMI_Barrier() == PMI_SUCCESS, "barrier");
    clock_gettime(CLOCK_MONOTONIC, &after);
    double left = (double)after.tv_sec + (double)after.tv_nsec * 1e-9;
    E2E_CHECK(left >= 3.0, "rank %d left the barrier at %.6f s, before rank 1 reached it (3 s)", rank, left);

    /* Everybody's id, from the KVS, as the job map of a logical NI. */
    ptl_process_t *map = calloc((size_t)size, sizeof *map);
    for (int r = 0; r < size; r++) {
        unsigned nid, pid;
        snprintf(key, sizeof key, "portals-id-%d", r);
        E2E_CHECK(PMI_KVS_Get(kvs, key, value, sizeof value) == PMI_SUCCESS, "get %s", key);
        E2E_CHECK(sscanf(value, "%u:%u", &nid, &pid) == 2, "value '%s'", value);
        map[r].phys.nid = nid;
        map[r].phys.pid = pid;
    }
    E2E_CHECK(PMI_KVS_Get(kvs, "no-such-key", value, sizeof value) == PMI_FAIL, "a missing key must fail");
    E2E_OK(PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni));
    E2E_OK(PtlSetMap(ni, (ptl_size_t)size, map));
    e2e_size = size;

    /* A ring: rank r Puts its rank to r+1 and receives from r-1. */
    ptl_handle_eq_t eq;
    ptl_pt_index_t pt;
    static int received = -1, sent;
    E2E_OK(PtlEQAlloc(ni, 16, &eq));
    E2E_OK(PtlPTAlloc(ni, 0, eq, 4, &pt));
    ptl_me_t entry;
    memset(&entry, 0, sizeof entry);
    entry.start = &received;
    entry.length = sizeof received;
    entry.ct_handle = PTL_CT_NONE;
    entry.uid = PTL_UID_ANY;
    entry.match_id.rank = PTL_RANK_ANY;
    entry.options = PTL_ME_OP_PUT | PTL_ME_EVENT_LINK_DISABLE;
    ptl_handle_me_t me_handle;
    E2E_OK(PtlMEAppend(ni, pt, &entry, PTL_PRIORITY_LIST, NULL, &me_handle));
    E2E_CHECK(PMI_Barrier() == PMI_SUCCESS, "second barrier");
    sent = rank;
    ptl_md_t md;
    memset(&md, 0, sizeof md);
    md.start = &sent;
    md.length = sizeof sent;
    md.eq_handle = eq;
    md.ct_handle = PTL_CT_NONE;
    ptl_handle_md_t md_handle;
    E2E_OK(PtlMDBind(ni, &md, &md_handle));
    ptl_process_t next = {.rank = (ptl_rank_t)((rank + 1) % size)};
    E2E_OK(PtlPut(md_handle, 0, sizeof sent, PTL_ACK_REQ, next, pt, 0, 0, NULL, 0));
    int got_put = 0, got_ack = 0;
    while (!got_put || !got_ack) {
        ptl_event_t ev;
        E2E_OK(PtlEQWait(eq, &ev));
        got_put |= ev.type == PTL_EVENT_PUT;
        got_ack |= ev.type == PTL_EVENT_ACK;
    }
    E2E_CHECK(received == (rank + size - 1) % size, "received %d from the ring, expected %d", received,
              (rank + size - 1) % size);
    E2E_CHECK(PMI_Barrier() == PMI_SUCCESS, "last barrier");
    E2E_OK(PtlMDRelease(md_handle));
    E2E_OK(PtlMEUnlink(me_handle));
    E2E_OK(PtlPTFree(ni, pt));
    E2E_OK(PtlEQFree(eq));
    E2E_OK(PtlNIFini(ni));
    E2E_OK(PtlNIFini(phys_ni));
    PtlFini();
    free(map);
    E2E_CHECK(PMI_Finalize() == PMI_SUCCESS, "finalize");
    return e2e_finish("pmi_bootstrap");
}
