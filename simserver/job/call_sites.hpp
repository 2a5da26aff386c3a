// Where a live rank process is, read from outside: its threads' stacks,
// unwound and symbolized with elfutils (libdwfl attaches with ptrace, which
// the server may do: it is the ranks' parent). Used when the run stops on a
// deadlock, to say where in the program each blocked rank made its call.
#pragma once

#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace s4bxi::job {

struct Frame {
  std::string function; // demangled when it is C++; empty if unknown
  std::string file;     // source file, without directories; empty without debug information
  int line = 0;
  std::string module;   // the ELF object, without directories
};

// The frames of the thread of `pid` that is inside a Portals call, from the
// outermost frame of the Portals library (the call's entry point) outwards,
// at most `max_frames`; empty if the process cannot be read or no thread is
// in the Portals library.
std::vector<Frame> portals_call_stack(pid_t pid, unsigned max_frames);

// The frames of thread `tid` of `pid` that stopped in a fatal signal's
// handler: from the frame that received the signal outwards (the handler and
// the signal trampoline left out), at most `max_frames`.
std::vector<Frame> crashed_thread_stack(pid_t pid, pid_t tid, unsigned max_frames);

// "crash_here() at crash.c:20", or "abort() in libc.so.6" without debug information.
std::string describe_frame(const Frame& frame);

// The MPI call a Portals call was made from, when the program called
// Portals through MPI (Open MPI's libraries and components): its name as the
// program wrote it (MPI_Recv for the PMPI_Recv frame) and the program's frame
// that called it (empty function and file if the stack read ends before it).
struct MpiCall {
  std::string function;
  Frame caller;
};
std::optional<MpiCall> mpi_call_of(const std::vector<Frame>& stack);

// An MPI call that returns only once what it waits for has come: MPI_Recv,
// MPI_Wait, the collectives, MPI_Finalize... but not MPI_Test, MPI_Iprobe or
// a nonblocking start, which return after one turn of progress.
bool mpi_call_blocks(const std::string& function);

// "at solver.c:212 in exchange()": where the program made the call (the
// first frame outside the Portals library) in a stack as portals_call_stack
// returns it; for a call made through MPI, "in MPI_Recv() at solver.c:212 in
// exchange()"; empty if there is no program frame.
std::string describe_call_site(const std::vector<Frame>& stack);

} // namespace s4bxi::job
