// I/O vectors (PTL_IOVEC): a vector of segments behaves as one virtually
// contiguous region, offsets included.
#include "portals/memory_region.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>

using s4bxi::portals::MemoryRegion;

namespace {

uint64_t address(const void* p)
{
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

} // namespace

TEST(MemoryRegion, OffsetsWalkTheSegmentsInOrder)
{
  auto region = MemoryRegion::from_segments({{1000, 10}, {5000, 0}, {2000, 5}, {3000, 20}});
  EXPECT_EQ(region.length(), 35u);
  EXPECT_EQ(region.segments().size(), 3u); // empty segments do not count
  EXPECT_EQ(region.address_at(0), 1000u);
  EXPECT_EQ(region.address_at(9), 1009u);
  EXPECT_EQ(region.address_at(10), 2000u);
  EXPECT_EQ(region.address_at(16), 3001u);
  EXPECT_FALSE(region.address_at(35).has_value());

  std::vector<std::pair<uint64_t, uint64_t>> pieces;
  std::vector<uint64_t> positions;
  EXPECT_TRUE(region.for_each_piece(8, 10, [&](uint64_t a, uint64_t n, uint64_t position) {
    pieces.emplace_back(a, n);
    positions.push_back(position);
    return true;
  }));
  EXPECT_EQ(positions, (std::vector<uint64_t>{0, 2, 7}));
  ASSERT_EQ(pieces.size(), 3u);
  EXPECT_EQ(pieces[0], (std::pair<uint64_t, uint64_t>{1008, 2}));
  EXPECT_EQ(pieces[1], (std::pair<uint64_t, uint64_t>{2000, 5}));
  EXPECT_EQ(pieces[2], (std::pair<uint64_t, uint64_t>{3000, 3}));
  EXPECT_FALSE(region.for_each_piece(30, 6, [](uint64_t, uint64_t, uint64_t) { return true; }));
  EXPECT_TRUE(region.for_each_piece(35, 0, [](uint64_t, uint64_t, uint64_t) { return true; }));
}

// Scatter and gather through real memory (this process's own).
TEST(MemoryRegion, ReadsAndWritesAcrossSegments)
{
  unsigned char a[4] = {}, b[3] = {}, c[5] = {};
  auto region = MemoryRegion::from_segments({{address(a), 4}, {address(b), 3}, {address(c), 5}});
  const unsigned char data[7] = {1, 2, 3, 4, 5, 6, 7};
  ASSERT_TRUE(s4bxi::portals::write_region(getpid(), region, 2, data, sizeof data));
  EXPECT_EQ(std::vector<unsigned char>(a, a + 4), (std::vector<unsigned char>{0, 0, 1, 2}));
  EXPECT_EQ(std::vector<unsigned char>(b, b + 3), (std::vector<unsigned char>{3, 4, 5}));
  EXPECT_EQ(std::vector<unsigned char>(c, c + 5), (std::vector<unsigned char>{6, 7, 0, 0, 0}));
  unsigned char back[5] = {};
  ASSERT_TRUE(s4bxi::portals::read_region(getpid(), region, 3, back, sizeof back));
  EXPECT_EQ(std::vector<unsigned char>(back, back + 5), (std::vector<unsigned char>{2, 3, 4, 5, 6}));
  EXPECT_FALSE(s4bxi::portals::read_region(getpid(), region, 10, back, 3));
}

TEST(MemoryRegion, LoadsAnIoVectorFromMemory)
{
  unsigned char x[8], y[16];
  struct {
    uint64_t base;
    uint64_t length;
  } vector[2] = {{address(x), sizeof x}, {address(y), sizeof y}};
  auto region = s4bxi::portals::load_iovec(getpid(), address(vector), 2);
  ASSERT_TRUE(region.has_value());
  EXPECT_EQ(region->length(), 24u);
  EXPECT_EQ(region->address_at(8), address(y));
  EXPECT_TRUE(s4bxi::portals::load_iovec(getpid(), 0, 0).has_value()); // an empty vector is an empty region
  EXPECT_FALSE(s4bxi::portals::load_iovec(getpid(), 8, 1).has_value()); // unmapped
}
