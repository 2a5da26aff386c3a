// What the NIC will still do in a rank's memory: every message or operation
// on its way to reading or writing it holds one unit of the rank's count
// until it has done so, or is gone (lost, given up, failed). A rank whose
// count is zero can be let run while the NIC takes its next command, since
// nothing can change or read its memory meanwhile: the early answer of
// PtlPut (s4bxi/early-put-answer, portals/api_data.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

namespace s4bxi::nic {

class MemoryWork {
public:
  using Count = std::shared_ptr<uint32_t>; // shared: a message may outlive its rank's entry

  MemoryWork() = default;
  explicit MemoryWork(Count count) : count_(std::move(count)) { ++*count_; }
  // A copied message is another message, which holds nothing (as its
  // reference count, nic/message.hpp).
  MemoryWork(const MemoryWork&) noexcept {}
  MemoryWork& operator=(const MemoryWork& other) noexcept
  {
    if (this != &other)
      release();
    return *this;
  }
  MemoryWork(MemoryWork&& other) noexcept : count_(std::move(other.count_)) {}
  MemoryWork& operator=(MemoryWork&& other) noexcept
  {
    if (this != &other) {
      release();
      count_ = std::move(other.count_);
    }
    return *this;
  }
  ~MemoryWork() { release(); }

  // Done with the rank's memory: the count goes down now, once.
  void release()
  {
    if (count_) {
      --*count_;
      count_.reset();
    }
  }

  // Releases `work` when the scope ends (a handler with several returns).
  struct ReleasedAtExit {
    MemoryWork& work;
    ~ReleasedAtExit() { work.release(); }
  };

private:
  Count count_;
};

} // namespace s4bxi::nic
