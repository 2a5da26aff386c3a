/* What every generated wrapper of libs4bxi-mpi-time.so uses (see
   CMakeLists.txt): the real MPI function, found once, and the calls into
   libportals around it (preload/library_calls.cpp). */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Weak: without libportals (a process that is not a rank), the wrappers only
   forward. */
void s4bxi_library_enter(void) __attribute__((weak));
void s4bxi_library_leave(void) __attribute__((weak));

static inline void enter(void)
{
  if (s4bxi_library_enter != NULL)
    s4bxi_library_enter();
}

static inline void leave(void)
{
  if (s4bxi_library_leave != NULL)
    s4bxi_library_leave();
}

/* The program's MPI library's function `name`, kept in `*slot`. The next
   definition after this library is libmpi's when libmpi is a dependency of
   the program; a libmpi opened later with RTLD_LOCAL (a Python module's) is
   not searched by RTLD_NEXT, so it is asked directly. */
static inline void* real_function(const char* name, void** slot)
{
  void* real = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (real != NULL)
    return real;
  real = dlsym(RTLD_NEXT, name);
  if (real == NULL) {
    void* libmpi = dlopen("libmpi.so.40", RTLD_LAZY | RTLD_NOLOAD);
    if (libmpi != NULL)
      real = dlsym(libmpi, name);
  }
  if (real == NULL) {
    fprintf(stderr, "libs4bxi-mpi-time (s4bxi): the program calls %s, which no MPI library loaded in it defines\n",
            name);
    abort();
  }
  __atomic_store_n(slot, real, __ATOMIC_RELEASE);
  return real;
}
