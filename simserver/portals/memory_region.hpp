// The memory behind an MD, ME or LE: one contiguous range, or the segments of
// an I/O vector (PTL_IOVEC), which the specification says behave exactly as
// one virtually contiguous region. Offsets are in that virtual region.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sys/types.h>
#include <vector>

namespace s4bxi::portals {

class MemoryRegion {
public:
  struct Segment {
    uint64_t address;
    uint64_t length;
  };

  MemoryRegion() = default;
  static MemoryRegion contiguous(uint64_t address, uint64_t length);
  static MemoryRegion from_segments(std::vector<Segment> segments);

  [[nodiscard]] uint64_t length() const { return length_; }
  [[nodiscard]] const std::vector<Segment>& segments() const { return segments_; }

  // Address in the rank's memory of the byte at `offset`, if there is one.
  [[nodiscard]] std::optional<uint64_t> address_at(uint64_t offset) const;

  // Calls f(address, bytes, position) for each contiguous piece of
  // [offset, offset + bytes), position counting from `offset`. False if the
  // range leaves the region.
  template <class F> bool for_each_piece(uint64_t offset, uint64_t bytes, F f) const
  {
    if (offset > length_ || bytes > length_ - offset)
      return false;
    uint64_t position = 0;
    uint64_t skip = offset;
    for (const Segment& segment : segments_) {
      if (position == bytes)
        break;
      if (skip >= segment.length) {
        skip -= segment.length;
        continue;
      }
      const uint64_t take = std::min(segment.length - skip, bytes - position);
      if (not f(segment.address + skip, take, position))
        return false;
      position += take;
      skip = 0;
    }
    return position == bytes;
  }

private:
  std::vector<Segment> segments_;
  uint64_t length_ = 0;
};

// Reads or writes `bytes` at `offset` of `region` in process `pid`; false if
// the range is outside the region or not mapped in the process.
bool read_region(pid_t pid, const MemoryRegion& region, uint64_t offset, void* destination, uint64_t bytes);
bool write_region(pid_t pid, const MemoryRegion& region, uint64_t offset, const void* source, uint64_t bytes);

// Reads an I/O vector of `count` elements at `address` in process `pid`.
std::optional<MemoryRegion> load_iovec(pid_t pid, uint64_t address, uint64_t count);

} // namespace s4bxi::portals
