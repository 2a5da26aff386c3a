// nic/memory_work.hpp: a rank's count of what the NIC will still do in its
// memory goes up once per holder and down once, whatever happens to the
// holder (copied with a message, moved, released early, destroyed).
#include "nic/memory_work.hpp"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace {

using s4bxi::nic::MemoryWork;

TEST(MemoryWork, HolderCountsOnceUntilReleasedOrGone)
{
    auto count = std::make_shared<uint32_t>(0);
    {
        MemoryWork work(count);
        EXPECT_EQ(*count, 1u);
        work.release();
        EXPECT_EQ(*count, 0u);
        work.release(); // once only
        EXPECT_EQ(*count, 0u);
    }
    EXPECT_EQ(*count, 0u);
    {
        MemoryWork work(count);
        EXPECT_EQ(*count, 1u);
    } // gone (a lost message) without being released
    EXPECT_EQ(*count, 0u);
}

TEST(MemoryWork, CopiesHoldNothingAndMovesCarryTheUnit)
{
    auto count = std::make_shared<uint32_t>(0);
    MemoryWork original(count);
    MemoryWork copy(original); // a copied message is another message
    EXPECT_EQ(*count, 1u);
    copy.release();
    EXPECT_EQ(*count, 1u);
    std::vector<MemoryWork> kept;
    kept.push_back(std::move(original)); // moved along with its message
    EXPECT_EQ(*count, 1u);
    original.release(); // the moved-from one holds nothing
    EXPECT_EQ(*count, 1u);
    MemoryWork other(count);
    EXPECT_EQ(*count, 2u);
    other = std::move(kept.front()); // gives up its own unit, takes the moved one
    EXPECT_EQ(*count, 1u);
    other = MemoryWork(); // gives it up
    EXPECT_EQ(*count, 0u);
}

TEST(MemoryWork, ReleasedAtExitOfAScope)
{
    auto count = std::make_shared<uint32_t>(0);
    MemoryWork work(count);
    {
        const MemoryWork::ReleasedAtExit handled{work};
        EXPECT_EQ(*count, 1u);
    }
    EXPECT_EQ(*count, 0u);
}

TEST(MemoryWork, CountOutlivesItsRankEntry)
{
    MemoryWork work;
    std::weak_ptr<uint32_t> seen;
    {
        auto count = std::make_shared<uint32_t>(0);
        seen = count;
        work = MemoryWork(count);
    } // the rank's entry is gone; the message still holds the count
    EXPECT_FALSE(seen.expired());
    EXPECT_EQ(*seen.lock(), 1u);
    work.release();
    EXPECT_TRUE(seen.expired());
}

} // namespace
