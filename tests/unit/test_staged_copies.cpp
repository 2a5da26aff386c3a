// The process's side of the staged writes (preload/staged_writes.hpp): it
// publishes the memory a write cannot fault in (its heap, its stack from the
// calling frame up), and copies what the server staged, in order, and
// nothing that would land outside what it published.
#include "own_memory.hpp"
#include "staged_writes.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace s4bxi::preload {
namespace {

TEST(StagedCopies, PublishesTheHeapAndTheStackAndCopiesWhatWasStagedInOrder)
{
  auto area = std::make_unique<ipc::StagedWrites>();
  auto* on_heap = static_cast<uint64_t*>(std::malloc(4 * sizeof(uint64_t)));
  ASSERT_NE(on_heap, nullptr);
  std::memset(on_heap, 0, 4 * sizeof(uint64_t));
  uint64_t on_stack[2] = {0, 0};
  staged_writes::publish(*area);
  const auto heap_word = reinterpret_cast<uint64_t>(on_heap);
  const auto stack_word = reinterpret_cast<uint64_t>(on_stack);
  EXPECT_TRUE(heap_word >= area->ranges.heap_start && heap_word + 32 <= area->ranges.heap_end);
  EXPECT_TRUE(stack_word >= area->ranges.stack_start && stack_word + 16 <= area->ranges.stack_end);

  // Two writes to one place (the later wins), one to the stack, one that
  // lands past the heap it published (not followed).
  const uint64_t values[4] = {5, 6, 7, 8};
  std::memcpy(area->bytes, values, sizeof values);
  area->writes[0] = {.address = heap_word, .length = 8, .offset = 0};
  area->writes[1] = {.address = heap_word, .length = 8, .offset = 8};
  area->writes[2] = {.address = stack_word + 8, .length = 8, .offset = 16};
  area->writes[3] = {.address = area->ranges.heap_end - 4, .length = 8, .offset = 24};
  staged_writes::apply(*area, 4);
  EXPECT_EQ(on_heap[0], 6U);
  EXPECT_EQ(on_stack[1], 7U);
  EXPECT_EQ(on_stack[0], 0U);
  // Only as many as the reply counts.
  area->writes[0] = {.address = heap_word + 8, .length = 8, .offset = 24};
  staged_writes::apply(*area, 0);
  EXPECT_EQ(on_heap[1], 0U);
  std::free(on_heap);
}

} // namespace
} // namespace s4bxi::preload
