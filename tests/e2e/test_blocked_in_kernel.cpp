// Ranks blocked in the kernel outside any emulated call (a pipe between two
// ranks): after s4bxi/park-after real seconds the simulation goes on without
// the blocked rank, and its clock resumes at the simulated time it woke, as
// a wait (simserver/job/parked_ranks.hpp). The deadlock case is in
// test_failures.cpp.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class BlockedInKernel : public E2ETest {};

// Rank 1 reads a pipe created before the ranks were started; rank 0 sleeps
// 2 ms of simulated time, then writes. Before, the simulation waited for
// rank 1's next call, so rank 0's sleep never ended.
TEST_F(BlockedInKernel, PipeBetweenRanksCreatedBeforeTheyStart)
{
    RunOptions opts;
    opts.shared_pipe = true;
    opts.timeout = std::chrono::milliseconds(20000);
    auto r = run({"-n", "2", program("pipe_between_ranks"), std::to_string(kSharedPipeRead),
                  std::to_string(kSharedPipeWrite)},
                 opts);
    EXPECT_FALSE(r.timed_out) << describe(r);
    expect_all_passed(r, "pipe_between_ranks", 2);
    EXPECT_TRUE(contains(r.out, "pipe_between_ranks: rank 1 woke ")) << describe(r);
    // The blocked time is a wait of rank 1, not compute.
    auto s = parse_summary(r.err);
    ASSERT_TRUE(s.has_value()) << describe(r);
    EXPECT_GE(s->simulated_s, 0.002) << describe(r);
}

} // namespace
} // namespace e2e
