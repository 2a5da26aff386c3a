/* Built with -static: s4bxi-run must refuse it, since a statically linked
 * program cannot get the preloaded library. */
#include <stdio.h>

int main(void)
{
    puts("static_prog: this should never run under s4bxi-run");
    return 0;
}
