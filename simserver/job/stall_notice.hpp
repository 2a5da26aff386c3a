// What a rank does when the simulation has waited for its next call for a
// long real time: blocked in the kernel outside any emulated call (a pipe, a
// socket, a futex of its own: the simulation cannot go on without it), or
// running without calling anything (spinning on memory, or a long compute).
// Said on the terminal, so that a run that stalls is never silent.
#pragma once

#include <string>
#include <sys/types.h>
#include <vector>

namespace s4bxi::job {

// "blocked in the kernel in read(fd 3: pipe:[4567])" or "running (12.3 s of
// CPU time since its last call)"; `cpu_at_last_call_s` is the process's CPU
// time when its last call was answered. `pmi_fd`: the process's end of its
// PMI socket (a wait there is a PMI call, which the emulator serves: "blocked
// in a PMI call (...)"), -1 if it has none.
std::string what_process_does(pid_t pid, double cpu_at_last_call_s, int pmi_fd = -1);

// The process's CPU time (user + system, all threads), or 0.
double process_cpu_s(pid_t pid);

// Its main thread sleeps reading a pipe that only the processes in
// `job_pids` hold (so only one of them could write to it): then, if none of
// them runs, nothing ever will. A terminal, a socket, a file, a pipe from
// another program, or another system call: false, it may still end.
bool blocked_on_job_pipe(pid_t pid, const std::vector<pid_t>& job_pids);

// The threads of a process that a check looks at: all of them (the
// default), or one (`only`: the thread of a lane), or all but some (`except`:
// the threads that have lanes of their own, and the one in an exchange).
struct ThreadSet {
  pid_t only = 0;
  std::vector<pid_t> except;
  [[nodiscard]] bool includes(pid_t tid) const;
};

// Every thread in `threads` sleeps waiting for what only the processes in
// `job_pids` can do: reading a pipe only they hold, or in a futex wait
// without a timeout (a mutex, a condition, a join: another of its own
// threads, or a process it shares memory with, must wake it).
bool waits_only_for_the_job(pid_t pid, const ThreadSet& threads, const std::vector<pid_t>& job_pids);

// Whether thread `tid` of process `pid` still exists.
bool thread_exists(pid_t pid, pid_t tid);

// One of its threads in `threads` is running or runnable.
bool any_thread_running(pid_t pid, const ThreadSet& threads = {});

// How many of its threads in `threads` are running or runnable.
unsigned threads_running(pid_t pid, const ThreadSet& threads = {});

// Whether its main thread (the one whose id is the process's) is running or
// runnable: one read, where threads_running lists the threads first.
bool main_thread_running(pid_t pid);

// Every thread sleeps in the kernel, interruptibly (a pipe, a socket, a futex,
// waitpid, poll), and none in a write or a send (a full pipe, e.g. its
// standard output read slowly, drains by itself: that is not waiting for
// something to happen): nothing runs, nothing waits for a disk (D) or a
// debugger (stopped). Such a process can only be woken by something else.
// Looks at the threads in `threads` only.
bool asleep_in_kernel(pid_t pid, const ThreadSet& threads = {});

} // namespace s4bxi::job
