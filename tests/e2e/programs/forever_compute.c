/*
 * Computes forever without any intercepted call, so that neither the
 * simulation nor the deadlock detection can end the run: only an external
 * signal to s4bxi-run can. Used by the interruption test.
 */
int main(void)
{
    volatile unsigned long x = 0;
    for (;;)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    return 0;
}
