// Large communication buffers backed by huge pages (s4bxi/huge-pages,
// preload/huge_pages.hpp): the buffers a rank appends are collapsed into
// transparent huge pages, with the same bytes and the same simulated times.
#include "e2e_test.hpp"

#include <fstream>
#include <regex>

namespace e2e {
namespace {

// The kernel's transparent huge page mode: "always", "madvise" or "never"
// (the bracketed word of its setting), or empty when it has none.
std::string thp_mode()
{
    std::ifstream setting("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string text((std::istreambuf_iterator<char>(setting)), std::istreambuf_iterator<char>());
    std::smatch chosen;
    return std::regex_search(text, chosen, std::regex(R"(\[(\w+)\])")) ? chosen[1].str() : "";
}

// "huge KiB N" of each rank's line.
std::vector<long> huge_kib(const std::string &out)
{
    std::vector<long> kib;
    for (const std::string &line : lines(out)) {
        std::smatch found;
        if (std::regex_search(line, found, std::regex(R"(huge KiB (-?\d+))")))
            kib.push_back(std::stol(found[1].str()));
    }
    return kib;
}

class HugePages : public E2ETest {
protected:
    // huge_buffers (with `argument` when given), huge pages on and off: both
    // pass, and end at the same simulated time.
    struct OnAndOff {
        RunResult on;
        RunResult off;
    };
    OnAndOff exchange_both_ways(const std::string &argument = "")
    {
        auto exchange = [&](const std::string &on) {
            std::vector<std::string> words{"-n", "2", "--cfg=s4bxi/compute:none", "--cfg=s4bxi/huge-pages:" + on,
                                           program("huge_buffers")};
            if (not argument.empty())
                words.push_back(argument);
            return run(words);
        };
        OnAndOff both{exchange("yes"), exchange("no")};
        expect_all_passed(both.on, "huge_buffers", 2);
        expect_all_passed(both.off, "huge_buffers", 2);
        expect_same_simulated_end(both.on, both.off);
        return both;
    }

    // huge_buffers `argument`: on, each rank's buffer spans `kib` KiB of
    // huge pages; off, none (unless the kernel gives them to every mapping).
    void expect_each_rank_with(const std::string &argument, long kib)
    {
        const std::string mode = thp_mode();
        if (mode.empty() || mode == "never")
            GTEST_SKIP() << "this kernel gives no transparent huge pages";
        const auto [on, off] = exchange_both_ways(argument);
        const std::vector<long> with = huge_kib(on.out);
        ASSERT_EQ(with.size(), 2U) << describe(on);
        for (long each : with)
            EXPECT_EQ(each, kib) << describe(on);
        if (mode != "always") {
            for (long each : huge_kib(off.out))
                EXPECT_EQ(each, 0) << describe(off);
        }
    }
};

// Two 6 MiB buffers (each with at least two aligned 2 MiB stretches) go
// back and forth by a Put and a Get: on, both are backed by huge pages
// (before the option the page walks of their copies cost the server more
// than the copies); off, neither (unless the kernel gives huge pages to
// every mapping anyway). The bytes and the simulated times are the same.
TEST_F(HugePages, LargeBuffersAreCollapsedWithTheSameResults)
{
    const std::string mode = thp_mode();
    if (mode.empty() || mode == "never")
        GTEST_SKIP() << "this kernel gives no transparent huge pages";
    const auto [on, off] = exchange_both_ways();
    const std::vector<long> with = huge_kib(on.out);
    const std::vector<long> without = huge_kib(off.out);
    ASSERT_EQ(with.size(), 2U) << describe(on);
    ASSERT_EQ(without.size(), 2U) << describe(off);
    for (long kib : with)
        EXPECT_GE(kib, 2048) << describe(on);
    if (mode != "always") {
        for (long kib : without)
            EXPECT_EQ(kib, 0) << describe(off);
    }
    // The exchange's simulated time, as each rank's clock saw it.
    auto took = [](const std::string &out) {
        std::vector<std::string> times;
        for (const std::string &line : lines(out))
            if (auto at = line.find("exchange took"); at != std::string::npos)
                times.push_back(line.substr(at));
        std::sort(times.begin(), times.end());
        return times;
    };
    EXPECT_EQ(took(on.out), took(off.out));
}

// A buffer's Put or Get also collapses the stretch at either end that the
// buffer covers most of: here 16 bytes past a 2 MiB boundary, as a malloc'd
// buffer lies past a page boundary, its 6 MiB span two whole stretches and
// all but 16 bytes of the one before (three, where the whole ones alone made
// two: half of a 4 MiB buffer stayed in small pages). Not the stretch after,
// of which it covers 16 bytes. The same bytes, the same simulated times.
TEST_F(HugePages, TheStretchABufferCoversMostOfAtItsEndIsCollapsedToo)
{
    expect_each_rank_with("inside", 3 * 2048);
}

// A buffer below 2 MiB, copied whole, has the stretch it covers a quarter of
// at least collapsed (stop 48: before, nothing below 2 MiB was): a 1 MiB
// buffer with three quarters of its bytes in one stretch and a quarter in the
// next gets the first in a huge page, not the second.
TEST_F(HugePages, AMiddleSizedBufferHasTheStretchItCoversAQuarterOfCollapsed)
{
    expect_each_rank_with("middle-sized", 2048);
}

// An entry used once has the ends it covers most of collapsed too (the one
// message that matches it fills it, as a Put fills its target); a persistent
// one only its whole stretches (Open MPI's 2 MiB blocks for its short
// messages are persistent, and mostly never written). Rank 1's buffer here is
// only the entry the Put lands in.
TEST_F(HugePages, AnEntryUsedOnceHasItsEndsCollapsedAndAPersistentOneNot)
{
    const std::string mode = thp_mode();
    if (mode.empty() || mode == "never")
        GTEST_SKIP() << "this kernel gives no transparent huge pages";
    auto rank_1_kib = [](const RunResult &r) {
        for (const std::string &line : lines(r.out))
            if (line.find("rank 1: huge KiB") != std::string::npos)
                return huge_kib(line).front();
        return -1L;
    };
    const auto [once, once_off] = exchange_both_ways("entry-once");
    const auto [kept, kept_off] = exchange_both_ways("entry-kept");
    EXPECT_EQ(rank_1_kib(once), 3 * 2048) << describe(once);
    EXPECT_EQ(rank_1_kib(kept), 2 * 2048) << describe(kept);
}

} // namespace
} // namespace e2e
