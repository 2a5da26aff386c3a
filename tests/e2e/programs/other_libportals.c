/*
 * A different Portals library with the same SONAME (libportals.so.4), standing
 * for a vendor's or the reference implementation's: every call fails. A
 * program linked against it must still run on the emulator, because
 * s4bxi-run preloads ours in front of it.
 */
#include <portals4.h>

#include <stdio.h>

int PtlInit(void)
{
    fprintf(stderr, "other_libportals: the non-emulated PtlInit was called\n");
    return PTL_FAIL;
}

void PtlFini(void) {}

int PtlNIInit(ptl_interface_t iface, unsigned int options, ptl_pid_t pid, const ptl_ni_limits_t *desired,
              ptl_ni_limits_t *actual, ptl_handle_ni_t *ni_handle)
{
    (void)iface, (void)options, (void)pid, (void)desired, (void)actual, (void)ni_handle;
    return PTL_FAIL;
}

int PtlGetId(ptl_handle_ni_t ni_handle, ptl_process_t *id)
{
    (void)ni_handle, (void)id;
    return PTL_FAIL;
}

int PtlNIFini(ptl_handle_ni_t ni_handle)
{
    (void)ni_handle;
    return PTL_FAIL;
}
