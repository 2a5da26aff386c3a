// Fatal signals of a rank (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT): before
// the process dies, the server reads its stack, to report where it crashed.
#pragma once

#include "segment.hpp"

namespace s4bxi::preload::crash {

// Installs the handler for each fatal signal whose action is still the
// default (a program's own handler, installed before or after, takes over).
// `crash_fd` is the write end of the run's crash pipe.
// `segment`, `segment_length`: the run's shared segment as this process maps
// it (a fault there is a stray write into the emulator's memory).
void install(ipc::Channel* channel, uint32_t rank, int crash_fd, const void* segment, std::size_t segment_length);

// In a forked child: our handlers go back to the default action.
void forget();

} // namespace s4bxi::preload::crash
