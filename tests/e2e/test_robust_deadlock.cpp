// A deadlock is reported in seconds of wall time whatever the machine's load:
// the count of polls in vain that proves it is not restarted by the CPU noise
// of the polling loop.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class RobustDeadlock : public E2ETest {};

// Rank 0 polls an EQ nothing fills, rank 1 waits in PtlEQWait. The count of
// polls in vain restarted whenever a gap of the polling loop measured more
// than 20 us of CPU time (compute between polls), which on a loaded machine
// happens every few thousand polls: 2,000 polls took 23 s and 3,000 took 281 s
// (two CPU hogs beside), 100,000 (the default) never came.
TEST_F(RobustDeadlock, PollsInVainAreCountedWhateverTheirCpuTime)
{
    RunOptions options;
    options.timeout = std::chrono::seconds(90);
    auto r = run({"-n", "2", "--cfg=s4bxi/poll-deadlock-after:20000", program("poll_bounded"), "forever"}, options);
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "20000 polls in a row found nothing")) << describe(r);
    EXPECT_LT(r.wall_s, 60.0) << describe(r);
}

} // namespace
} // namespace e2e
