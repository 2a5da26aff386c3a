/*
 * Crashes in named places, for the crash report (function, file and line):
 *   segv    rank 1 stores through a null pointer in store_through(), called
 *           from crash_here();
 *   abort   rank 1 calls abort() from nested_abort();
 *   thread  rank 1's helper thread stores through a null pointer in
 *           thread_body();
 *   handled rank 1 installs its own SIGSEGV handler, which runs first and
 *           exits with status 7 (no crash report: the program decided).
 * Rank 0 waits for an event that never comes.
 */
#include "e2e_common.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

static void __attribute__((noinline)) store_through(volatile int *volatile p)
{
    *p = 42; /* the crash */
}

static void __attribute__((noinline)) crash_here(void)
{
    store_through(NULL);
}

static void __attribute__((noinline)) nested_abort(void)
{
    abort(); /* the abort */
}

static void *thread_body(void *unused)
{
    (void)unused;
    volatile int *volatile p = NULL;
    *p = 7; /* the thread's crash */
    return NULL;
}

static void own_handler(int signal)
{
    (void)signal;
    static const char text[] = "crash_where: the program's own handler ran\n";
    (void)!write(2, text, sizeof text - 1);
    _exit(7);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "segv";
    ptl_handle_ni_t ni = e2e_init(NULL);
    e2e_require_ranks(2);
    e2e_barrier_init(ni);
    e2e_barrier();
    if (e2e_rank == 1) {
        if (strcmp(mode, "abort") == 0) {
            nested_abort();
        } else if (strcmp(mode, "thread") == 0) {
            pthread_t thread;
            pthread_create(&thread, NULL, thread_body, NULL);
            pthread_join(thread, NULL);
        } else {
            if (strcmp(mode, "handled") == 0)
                signal(SIGSEGV, own_handler);
            crash_here();
        }
        return 1;
    }
    e2e_wait_forever(ni);
    return 1;
}
