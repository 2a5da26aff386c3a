// Writes into a rank's memory that the rank copies itself (s4bxi/staged-writes).
//
// The NIC writes a payload into host memory as its message is handled, and
// the server made that write with process_vm_writev: 1.5 us for 8 bytes, up
// to 3 us in a 32-rank alltoall, on the path from one rank's call to the
// next rank's answer. But while a rank's main thread waits in a call, and no
// other thread of it calls, nothing of the process looks at that memory
// before the call returns. So such a write goes into the rank's channel
// instead (ipc::StagedWrites: a memcpy into shared memory), and the process
// copies it to its place when its wait ends, before anything else
// (preload/staged_writes.hpp).
//
// Only where the write cannot fail: within the memory the process published
// with its call (preload/own_memory.hpp: the heap below the break and its
// stack above the caller's frames), since a failed write is an event's
// PTL_NI_SEGV. Whatever else touches the rank's memory first makes the staged
// writes for real, in their order (read_rank_memory and write_rank_memory
// ask flush_staged_writes_of), and so does the simulation when it moves on
// to a later time (unless the rank's proxy sleeps to a known answer), its
// proxy when it waits for a change with no end known, or another thread of
// the process that starts calling, if the rank was not answered by then.
#pragma once

#include "segment.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <sys/types.h>

namespace s4bxi::job {

class StagedWrites {
public:
  // The rank's process and its channel's area (at its first call; again
  // after an exec).
  void attach(pid_t pid, ipc::StagedWrites* area)
  {
    pid_ = pid;
    area_ = area;
  }
  // While `kept` says so, the simulation moving on in time leaves the
  // staged writes staged: the answer is sure to come at a known time (its
  // proxy sleeps to it), and nothing of the process looks until then.
  void keep_while(std::function<bool()> kept) { kept_ = std::move(kept); }
  [[nodiscard]] bool kept() const { return kept_ && kept_(); }
  // Its main thread made a call and waits for the answer: from now on,
  // writes into the memory it published with the call may be staged.
  void open();
  // Stages a write, if it may be: while open, within the published memory,
  // and with room left; false otherwise (the caller writes it itself).
  bool stage(uint64_t address, const void* bytes, std::size_t length);
  // The answer goes out: how many writes the process copies (its
  // Reply::staged_writes). Closed until the next call.
  uint32_t close_for_answer();
  // Makes the staged writes now, in order. The call still waits: later
  // writes may be staged again, after these.
  void flush();
  // The process ended: nothing more is written.
  void forget();

  [[nodiscard]] bool is_open() const { return open_; }
  [[nodiscard]] pid_t pid() const { return pid_; }
  // For the report: writes staged, and how many of them were made by the
  // server after all (a flush).
  [[nodiscard]] uint64_t staged() const { return staged_total_; }
  [[nodiscard]] uint64_t flushed() const { return flushed_total_; }

private:
  pid_t pid_ = -1;
  ipc::StagedWrites* area_ = nullptr;
  std::function<bool()> kept_;
  bool open_ = false;
  // Copied from the channel at open(): the process's to write.
  ipc::WritableRanges ranges_;
  // The staged writes, as the server wrote them into the channel.
  std::array<ipc::StagedWrite, ipc::kMaxStagedWrites> entries_{};
  uint32_t count_ = 0;
  uint32_t bytes_used_ = 0;
  uint64_t staged_total_ = 0;
  uint64_t flushed_total_ = 0;
};

// Before the server reads or writes the memory of process `pid`: makes the
// writes staged for it (job/rank_memory.cpp calls it).
void flush_staged_writes_of(pid_t pid);

} // namespace s4bxi::job
