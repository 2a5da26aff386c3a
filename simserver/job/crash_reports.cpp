#include "crash_reports.hpp"

#include "futex.hpp"

#include <csignal>
#include <cstdio>

namespace s4bxi::job {

void CrashReports::read(unsigned rank, pid_t pid, ipc::Channel& channel)
{
  CrashReport report;
  report.signal = static_cast<int>(channel.crash_signal.load(std::memory_order_acquire));
  report.address = channel.crash_address;
  report.in_segment = channel.crash_in_segment != 0 && (report.signal == SIGSEGV || report.signal == SIGBUS);
  if (report.signal != 0)
    report.frames = crashed_thread_stack(pid, channel.crash_tid, kFramesKept);
  {
    std::lock_guard lock(mutex_);
    reports_[rank] = std::move(report);
  }
  channel.crash_read.store(1, std::memory_order_release);
  ipc::futex_wake_all(&channel.crash_read);
}

std::optional<CrashReport> CrashReports::of(unsigned rank) const
{
  std::lock_guard lock(mutex_);
  if (auto found = reports_.find(rank); found != reports_.end())
    return found->second;
  return std::nullopt;
}

std::string address_text(uint64_t address)
{
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string crash_place(const CrashReport& report)
{
  std::string text;
  if (report.signal == SIGSEGV || report.signal == SIGBUS)
    text += " at address " + address_text(report.address);
  // The innermost frame of the program, past the C library's own (abort,
  // raise) when the program's caller is known.
  for (const Frame& frame : report.frames)
    if (frame.module.rfind("libc.so", 0) != 0 || &frame == &report.frames.back()) {
      text += " in " + describe_frame(frame);
      break;
    }
  return text;
}

} // namespace s4bxi::job
