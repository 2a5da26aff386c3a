/*
 * abort_symbol: a program that imports PtlAbort, which only the current
 * generation of Sandia's portals4.h declares (docs/sandia-abi-generations.md).
 * Stripped of its debug information, it is what s4bxi-run --abi auto must
 * still recognise as that generation from its dynamic symbols (test_abi.cpp).
 * PtlAbort with no call waiting or polling does nothing.
 */
#include <portals4.h>

#include <stdio.h>

int main(void)
{
    if (PtlInit() != PTL_OK) {
        fprintf(stderr, "abort_symbol: FAIL: PtlInit\n");
        return 1;
    }
    PtlAbort();
    PtlFini();
    printf("abort_symbol: all checks passed\n");
    return 0;
}
