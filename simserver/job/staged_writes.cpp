#include "staged_writes.hpp"

#include "rank_memory.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace s4bxi::job {
namespace {

// The ranks with writes staged now: few at a time (those whose answer has
// not taken them yet), so that a read or write of any rank's memory looks
// through them in a few instructions.
std::vector<StagedWrites*>& pending()
{
  static std::vector<StagedWrites*> all;
  return all;
}

void forget_pending(StagedWrites* writes)
{
  auto& all = pending();
  all.erase(std::remove(all.begin(), all.end(), writes), all.end());
}

// Staged writes wait at most until the simulation moves on to a later time
// (what lands then, or what another rank does then, comes after them), unless
// their rank's answer is sure to come at a known time. (A timer
// due now, at the end of the scheduling round, cost a round of its own per
// write: 4% more rounds in a 27-rank halo exchange.)
void flush_when_time_advances()
{
  static const bool hooked = [] {
    simgrid::s4u::Engine::on_time_advance_cb([](double) {
      std::vector<StagedWrites*> due;
      due.swap(pending());
      for (StagedWrites* writes : due) {
        if (writes->kept())
          pending().push_back(writes);
        else
          writes->flush();
      }
    });
    return true;
  }();
  (void)hooked;
}

} // namespace

void StagedWrites::open()
{
  if (area_ == nullptr)
    return;
  // Copied: the channel is the process's to write. (A process that lies here
  // only gets its own memory written at other places than it asked: the
  // server writes nothing outside the channel.)
  ranges_ = area_->ranges;
  open_ = true;
}

bool StagedWrites::stage(uint64_t address, const void* bytes, std::size_t length)
{
  if (not open_ || length == 0 || count_ >= ipc::kMaxStagedWrites || length > ipc::kStagedBytes - bytes_used_ ||
      not ranges_.covers(address, length))
    return false;
  std::memcpy(area_->bytes + bytes_used_, bytes, length);
  entries_[count_] = {.address = address, .length = static_cast<uint32_t>(length), .offset = bytes_used_};
  area_->writes[count_] = entries_[count_];
  if (count_++ == 0)
    pending().push_back(this);
  bytes_used_ += static_cast<uint32_t>(length);
  staged_total_++;
  flush_when_time_advances();
  return true;
}

uint32_t StagedWrites::close_for_answer()
{
  const uint32_t taken = count_;
  if (taken > 0)
    forget_pending(this);
  count_ = 0;
  bytes_used_ = 0;
  open_ = false;
  return taken;
}

void StagedWrites::flush()
{
  if (count_ == 0)
    return;
  // Taken off first: the writes below ask flush_staged_writes_of too.
  const uint32_t count = count_;
  const std::array<ipc::StagedWrite, ipc::kMaxStagedWrites> entries = entries_;
  forget_pending(this);
  count_ = 0;
  bytes_used_ = 0;
  flushed_total_ += count;
  // (Within the memory the process published: a write that fails now, its
  // heap or stack taken away meanwhile by another of its threads, leaves
  // those bytes unwritten, as a write into memory gone would.)
  for (uint32_t i = 0; i < count; ++i)
    write_rank_memory(pid_, entries[i].address, area_->bytes + entries[i].offset, entries[i].length);
}

void StagedWrites::forget()
{
  if (count_ > 0)
    forget_pending(this);
  count_ = 0;
  bytes_used_ = 0;
  open_ = false;
}

void flush_staged_writes_of(pid_t pid)
{
  for (StagedWrites* writes : pending())
    if (writes->pid() == pid) {
      writes->flush();
      return;
    }
}

} // namespace s4bxi::job
