// What the server learned of ranks that got a fatal signal: the signal, the
// faulting address, and the crashed thread's stack, read while the rank
// waited in its signal handler (preload/crash_handler.cpp). Written by the
// rank watcher's thread, read by the simulation when the rank's end is
// reported: hence the lock.
#pragma once

#include "call_sites.hpp"
#include "segment.hpp"

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace s4bxi::job {

struct CrashReport {
  int signal = 0;
  uint64_t address = 0; // SIGSEGV and SIGBUS
  bool in_segment = false; // the address is in the run's shared segment, outside the rank's channel
  std::vector<Frame> frames; // innermost first
};

class CrashReports {
public:
  static constexpr unsigned kFramesKept = 8;

  // Reads the crash the rank's channel describes, then lets the rank go on
  // dying (sets crash_read and wakes it).
  void read(unsigned rank, pid_t pid, ipc::Channel& channel);
  [[nodiscard]] std::optional<CrashReport> of(unsigned rank) const;

private:
  mutable std::mutex mutex_;
  std::map<unsigned, CrashReport> reports_;
};

// "0x7f00": a faulting address as the reports write it.
std::string address_text(uint64_t address);

// " at address 0x0 in crash_here() at crash.c:20": where, for the sentence
// that reports the rank's end; empty without a report.
std::string crash_place(const CrashReport& report);

} // namespace s4bxi::job
