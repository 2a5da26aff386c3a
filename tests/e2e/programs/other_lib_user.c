/*
 * other_lib_user: linked against other_libportals (whose calls all fail), not
 * against the emulator's library. Under s4bxi-run every call must succeed and
 * give this rank's identity: the preloaded library answered.
 */
#include <portals4.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    ptl_handle_ni_t ni;
    ptl_process_t me;
    const char *pmi_rank = getenv("PMI_RANK");
    if (PtlInit() != PTL_OK ||
        PtlNIInit(PTL_IFACE_DEFAULT, PTL_NI_MATCHING | PTL_NI_LOGICAL, PTL_PID_ANY, NULL, NULL, &ni) != PTL_OK ||
        PtlGetId(ni, &me) != PTL_OK || PtlNIFini(ni) != PTL_OK) {
        fprintf(stderr, "other_lib_user: a Portals call failed\n");
        return 1;
    }
    PtlFini();
    if (pmi_rank == NULL || (unsigned)atoi(pmi_rank) != me.rank) {
        fprintf(stderr, "other_lib_user: rank %u, PMI_RANK %s\n", me.rank, pmi_rank ? pmi_rank : "(unset)");
        return 1;
    }
    printf("other_lib_user: rank %u: all checks passed\n", me.rank);
    return 0;
}
