// What preload/mpi_hooks (libs4bxi-mpi-time.so, preloaded into MPI ranks next
// to this library) calls around every MPI function of the program: the
// thread's CPU clock stands still inside, and the time spent there is counted
// for the report (sim_clock::library_enter). In a process that is not a
// rank, they count nothing.
#include "export.hpp"
#include "sim_clock.hpp"

extern "C" S4BXI_EXPORT void s4bxi_library_enter()
{
  s4bxi::preload::sim_clock::library_enter();
}

extern "C" S4BXI_EXPORT void s4bxi_library_leave()
{
  s4bxi::preload::sim_clock::library_leave();
}
