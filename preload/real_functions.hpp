// The libc functions that the library hooks, as libc implements them.
//
// A hook that must fall back to the real behaviour (not under the emulator, a
// CPU-time clock, a process forked by a rank) and the library itself (which
// measures thread CPU time) call these instead of the hooked names.
#pragma once

#include <ctime>
#include <poll.h>
#include <pthread.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

namespace s4bxi::preload::real {

int clock_gettime(clockid_t clock, timespec* ts);
int gettimeofday(timeval* tv, void* tz);
time_t time(time_t* out);
int nanosleep(const timespec* request, timespec* remaining);
int clock_nanosleep(clockid_t clock, int flags, const timespec* request, timespec* remaining);
int usleep(useconds_t microseconds);
unsigned int sleep(unsigned int seconds);
int poll(pollfd* fds, nfds_t count, int timeout_ms);
int select(int count, fd_set* read, fd_set* write, fd_set* except, timeval* timeout);
int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*start)(void*), void* argument);

// Thread CPU time of the calling thread, in nanoseconds.
unsigned long long thread_cpu_ns();

} // namespace s4bxi::preload::real
