// The server's writes into a rank's memory that the rank copies itself
// (job/staged_writes.hpp), with this process standing for the rank: only
// what the process published is staged, and only while its call waits; the
// answer takes them; a read or write of its memory that comes first makes
// them, in their order, and so does the simulation moving on in time, unless
// the rank's answer is sure to come at a known time.
#include "job/rank_memory.hpp"
#include "job/staged_writes.hpp"
#include "scenario_engine.hpp"

#include <gtest/gtest.h>
#include <simgrid/s4u/Actor.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <unistd.h>

namespace s4u = simgrid::s4u;
using s4bxi::job::StagedWrites;

TEST(StagedWrites, StagesWhatMayBeAndMakesItInOrderWhenAnythingElseComesFirst)
{
  ScenarioEngine scenario("unit_staged_writes");
  s4u::Host* host = scenario.one_host();
  auto area = std::make_unique<s4bxi::ipc::StagedWrites>();
  static std::array<uint64_t, 8> memory{}; // the rank's heap, as it published it
  auto at = [](size_t i) { return reinterpret_cast<uint64_t>(&memory[i]); };
  area->ranges.heap_start = at(0);
  area->ranges.heap_end = at(0) + sizeof memory - sizeof memory[7]; // the last word is not in it
  StagedWrites writes;
  writes.attach(getpid(), area.get());
  const uint64_t one = 1, two = 2, three = 3, four = 4;

  s4u::Actor::create("server", host, [&] {
    EXPECT_FALSE(writes.stage(at(0), &one, 8)) << "no call waits";
    writes.open();
    EXPECT_FALSE(writes.stage(at(7), &one, 8)) << "not published";
    EXPECT_FALSE(writes.stage(at(6), &one, 16)) << "runs out of what was published";
    EXPECT_TRUE(writes.stage(at(0), &one, 8));
    EXPECT_TRUE(writes.stage(at(0), &two, 8));
    EXPECT_EQ(memory[0], 0U) << "staged, not written";
    // A read of the process's memory comes first: the writes are made, in order.
    uint64_t seen = 0;
    ASSERT_TRUE(s4bxi::job::read_rank_memory(getpid(), at(0), &seen, sizeof seen));
    EXPECT_EQ(seen, 2U);
    EXPECT_EQ(writes.flushed(), 2U);
    // The answer takes what is staged: the process copies it (not the server).
    EXPECT_TRUE(writes.stage(at(1), &three, 8));
    EXPECT_EQ(writes.close_for_answer(), 1U);
    EXPECT_EQ(area->writes[0].address, at(1));
    EXPECT_EQ(area->writes[0].length, 8U);
    uint64_t staged_bytes = 0;
    std::memcpy(&staged_bytes, area->bytes + area->writes[0].offset, 8);
    EXPECT_EQ(staged_bytes, 3U);
    EXPECT_EQ(memory[1], 0U);
    EXPECT_FALSE(writes.stage(at(1), &three, 8)) << "answered: its process runs";
    // A call without an answer before the simulation moves on: its writes are made then.
    writes.open();
    EXPECT_TRUE(writes.stage(at(2), &four, 8));
    EXPECT_EQ(memory[2], 0U);
    s4u::this_actor::sleep_for(1e-6);
    EXPECT_EQ(memory[2], 4U);
    // Unless the answer is sure to come at a known time: kept until then.
    bool answer_known = true;
    writes.keep_while([&answer_known] { return answer_known; });
    EXPECT_TRUE(writes.stage(at(5), &four, 8));
    s4u::this_actor::sleep_for(1e-6);
    EXPECT_EQ(memory[5], 0U) << "kept across the time advance";
    answer_known = false;
    s4u::this_actor::sleep_for(1e-6);
    EXPECT_EQ(memory[5], 4U);
    writes.keep_while({});
    // The room: as many writes and bytes as the channel holds.
    for (uint32_t i = 0; i < s4bxi::ipc::kMaxStagedWrites; ++i)
      EXPECT_TRUE(writes.stage(at(3), &one, 8)) << i;
    EXPECT_FALSE(writes.stage(at(3), &one, 8)) << "more writes than the channel holds";
    EXPECT_EQ(writes.close_for_answer(), s4bxi::ipc::kMaxStagedWrites);
    // The process ended: nothing of it is written any more.
    writes.open();
    EXPECT_TRUE(writes.stage(at(4), &one, 8));
    writes.forget();
    s4u::this_actor::sleep_for(1e-6);
    EXPECT_EQ(memory[4], 0U);
    EXPECT_EQ(writes.staged(), 2U + 1U + 1U + 1U + s4bxi::ipc::kMaxStagedWrites + 1U);
  });
  scenario.run();
}
