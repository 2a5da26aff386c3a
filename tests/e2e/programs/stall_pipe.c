/*
 * A rank blocked outside any emulated call: rank 1 reads a pipe that nobody
 * writes, while rank 0 waits for an event. Nothing can ever release either:
 * the launcher must report a deadlock (which rank, in which system call, on
 * what), not hang silently.
 */
#include "e2e_common.h"

#include <unistd.h>

int main(void)
{
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    if (e2e_rank == 1) {
        int ends[2];
        char byte;
        if (pipe(ends) != 0)
            return 1;
        (void)!read(ends[0], &byte, 1); /* nobody writes */
        return 1;
    }
    e2e_wait_forever(ni);
    return 1;
}
