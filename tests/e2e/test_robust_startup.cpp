// Start-up must never be lost to the machine's load: whatever a rank that the
// server parked (asleep in the kernel longer than s4bxi/park-after) does
// next, a PMI exchange included, it is served. Real-time thresholds decide
// how fast an answer comes, never whether it comes.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class RobustStartup : public E2ETest {};

// Every rank sleeps in the kernel past park-after before each PMI exchange,
// as a descheduled rank of an MPI job on a loaded machine does: its put,
// barrier and gets reach the server while it is parked.
TEST_F(RobustStartup, PmiExchangeOfAParkedRankIsServed)
{
    RunOptions options;
    options.timeout = std::chrono::seconds(30);
    for (const char *ranks : {"2", "4"}) {
        auto r = run({"-n", ranks, "--cfg=s4bxi/park-after:0.005", program("pmi_while_parked"), "3", "120"}, options);
        expect_success(r, std::atoi(ranks));
        for (int rank = 0; rank < std::atoi(ranks); ++rank)
            EXPECT_TRUE(contains(r.out, "pmi_while_parked: rank " + std::to_string(rank) + ": all checks passed"))
                << describe(r);
        EXPECT_FALSE(contains(r.err, "note:")) << describe(r);
    }
}

} // namespace
} // namespace e2e
