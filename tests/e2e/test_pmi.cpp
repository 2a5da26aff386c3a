// PMI-1 bootstrap over PMI_FD, as a simple-PMI client does it.
#include "e2e_test.hpp"

namespace e2e {
namespace {

class Pmi : public E2ETest {};

// Key-value exchange of physical ids, PtlSetMap, a ring of Puts, and a PMI
// barrier that completes in simulated time when the last rank (sleeping 3 s)
// reaches it.
TEST_F(Pmi, BootstrapThroughKeyValueSpaceAndBarrier)
{
    for (const char *ranks : {"2", "5"}) {
        auto r = run({"-n", ranks, program("pmi_bootstrap")});
        expect_success(r, std::atoi(ranks));
        for (int rank = 0; rank < std::atoi(ranks); ++rank)
            EXPECT_TRUE(contains(r.out, "pmi_bootstrap: rank " + std::to_string(rank) + ": all checks passed"))
                << describe(r);
        auto summary = parse_summary(r.err);
        ASSERT_TRUE(summary) << describe(r);
        EXPECT_GE(summary->simulated_s, 3.0) << describe(r);
        EXPECT_LT(summary->simulated_s, 3.1) << describe(r);
    }
}

// Issue 3's acceptance: a program compiled against each flavour's header,
// bootstrapping through PMI-1 with a simple-PMI client, under the matching
// --abi (and under auto, which must find the same flavour).
TEST_F(Pmi, BootstrapWithEachBinaryFlavour)
{
    for (const char *flavour : {"bxi", "sandia"})
        for (const char *abi : {flavour, "auto"}) {
            auto r = run({"-n", "2", "--abi", abi, program(std::string(flavour) + "/pmi_bootstrap")});
            expect_success(r, 2);
            for (int rank = 0; rank < 2; ++rank)
                EXPECT_TRUE(contains(r.out, "pmi_bootstrap: rank " + std::to_string(rank) + ": all checks passed"))
                    << flavour << " program, --abi " << abi << "\n" << describe(r);
        }
}

// PMI_Abort ends the job with the given code and names the rank.
TEST_F(Pmi, AbortEndsTheJobWithItsExitCode)
{
    auto r = run({"-n", "3", program("pmi_bootstrap"), "abort"});
    EXPECT_EQ(r.exit_code, 7) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 called PMI_Abort (exit code 7)")) << describe(r);
}

} // namespace
} // namespace e2e
