#include "memory_region.hpp"

#include "../job/rank_memory.hpp"
#include "protocol.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace s4bxi::portals {

MemoryRegion MemoryRegion::contiguous(uint64_t address, uint64_t length)
{
  return from_segments({{address, length}});
}

MemoryRegion MemoryRegion::from_segments(std::vector<Segment> segments)
{
  MemoryRegion region;
  for (const Segment& segment : segments) {
    if (segment.length == 0)
      continue;
    region.length_ += segment.length;
    region.segments_.push_back(segment);
  }
  return region;
}

std::optional<uint64_t> MemoryRegion::address_at(uint64_t offset) const
{
  for (const Segment& segment : segments_) {
    if (offset < segment.length)
      return segment.address + offset;
    offset -= segment.length;
  }
  return std::nullopt;
}

bool read_region(pid_t pid, const MemoryRegion& region, uint64_t offset, void* destination, uint64_t bytes)
{
  auto* out = static_cast<unsigned char*>(destination);
  return region.for_each_piece(offset, bytes, [&](uint64_t address, uint64_t length, uint64_t position) {
    return job::read_rank_memory(pid, address, out + position, length);
  });
}

bool write_region(pid_t pid, const MemoryRegion& region, uint64_t offset, const void* source, uint64_t bytes)
{
  const auto* in = static_cast<const unsigned char*>(source);
  return region.for_each_piece(offset, bytes, [&](uint64_t address, uint64_t length, uint64_t position) {
    return job::write_rank_memory(pid, address, in + position, length);
  });
}

std::optional<MemoryRegion> load_iovec(pid_t pid, uint64_t address, uint64_t count)
{
  if (count == 0)
    return MemoryRegion{};
  if (count > std::numeric_limits<uint64_t>::max() / ipc::option::kIovecEntryBytes)
    return std::nullopt;
  std::vector<unsigned char> raw(count * ipc::option::kIovecEntryBytes);
  if (not job::read_rank_memory(pid, address, raw.data(), raw.size()))
    return std::nullopt;
  std::vector<MemoryRegion::Segment> segments(count);
  uint64_t total = 0;
  for (uint64_t i = 0; i < count; ++i) {
    std::memcpy(&segments[i].address, raw.data() + i * ipc::option::kIovecEntryBytes, 8);
    std::memcpy(&segments[i].length, raw.data() + i * ipc::option::kIovecEntryBytes + 8, 8);
    if (segments[i].length > std::numeric_limits<uint64_t>::max() - total)
      return std::nullopt; // the lengths overflow: not a region
    total += segments[i].length;
  }
  return MemoryRegion::from_segments(std::move(segments));
}

} // namespace s4bxi::portals
