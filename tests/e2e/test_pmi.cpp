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
    for (const char *flavour : {"bxi", "sandia", "sandia-legacy"})
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

// An abort with code 0 (shmem_global_exit(0)) ends the job with status 0,
// not 1: ranks 0 and 2 wait in the PMI barrier for rank 1 and are stopped.
TEST_F(Pmi, AbortWithCodeZeroEndsTheJobWithZero)
{
    auto r = run({"-n", "3", program("pmi_bootstrap"), "abort", "0"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 called PMI_Abort (exit code 0)")) << describe(r);
}

// A code the shell would read as 0 (256) is not a success.
TEST_F(Pmi, AbortWithACodeOfZeroLow8BitsIsAFailure)
{
    auto r = run({"-n", "2", program("pmi_bootstrap"), "abort", "256"});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 called PMI_Abort (exit code 256)")) << describe(r);
}

std::string pmi_library()
{
    return std::string(E2E_BINARY_DIR) + "/lib/libs4bxi-pmi.so";
}

// libs4bxi-pmi.so loaded as OpenMPI's pmix/flux component loads it, 4 ranks
// on 2 nodes, each placement: the clique is the ranks of the rank's node, the
// host name the node's, values with spaces and of the longest length survive
// the key-value space (the program checks them all, from several threads).
TEST_F(Pmi, LibraryAsOpenMpiLoadsIt)
{
    for (const char *placement : {"round-robin", "block"}) {
        auto r = run({"-n", "4", "--ppn", "2", "--placement", placement, program("pmi_library"), pmi_library()});
        expect_success(r, 4);
        const bool block = std::string(placement) == "block";
        for (int rank = 0; rank < 4; ++rank) {
            const int node = block ? rank / 2 : rank % 2;
            const std::string clique = block ? (node == 0 ? "0,1" : "2,3") : (node == 0 ? "0,2" : "1,3");
            const std::string prefix = "pmi_library: rank " + std::to_string(rank) + ": ";
            EXPECT_TRUE(contains(r.out, prefix + "host node" + std::to_string(node) + " clique " + clique + "\n"))
                << placement << "\n" << describe(r);
            EXPECT_TRUE(contains(r.out, prefix + "all checks passed")) << placement << "\n" << describe(r);
        }
    }
}

// Polls the process answered itself just before a PMI barrier that ends
// later (the other rank enters it 20 simulated microseconds after a Put)
// reach the server before the barrier: replayed after it, the empty poll of
// the queue where the Put's event lands would have found that event, and the
// run would end with "the polls it answered itself do not match".
TEST_F(Pmi, PollsAnsweredInTheProcessReachTheServerBeforeAPmiCommand)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/compute:none", program("polls_before_pmi"), pmi_library()});
    expect_all_passed(r, "polls_before_pmi", 2);
    EXPECT_FALSE(contains(r.err, "do not match")) << describe(r);
}

// PMI_Abort through the library ends the job with its code; the message
// given to PMI_Abort reaches the user.
TEST_F(Pmi, LibraryAbortEndsTheJobWithItsExitCode)
{
    auto r = run({"-n", "2", program("pmi_library"), pmi_library(), "abort"});
    EXPECT_EQ(r.exit_code, 9) << describe(r);
    EXPECT_TRUE(contains(r.err, "rank 1 called PMI_Abort (exit code 9)")) << describe(r);
    EXPECT_TRUE(contains(r.err, "PMI_Abort(9): abort through libs4bxi-pmi")) << describe(r);
}

// Not under s4bxi-run, with libportals preloaded and S4BXI_HOSTNAME set: the
// machine's real host name, and the library makes the process a singleton job.
TEST_F(Pmi, LibraryOutsideTheEmulatorSeesTheRealHostAndASingletonJob)
{
    auto r = run_command({"/usr/bin/env", "-u", "PMI_FD", "-u", "S4BXI_SHM_FD", "-u", "S4BXI_RANK", "-u", "S4BXI_SIZE",
                          "LD_PRELOAD=" + std::string(E2E_BINARY_DIR) + "/lib/libportals.so.4",
                          "S4BXI_HOSTNAME=simulated-node-name", program("pmi_library"), pmi_library(), "outside"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.out, "pmi_library: singleton: all checks passed")) << describe(r);
}

} // namespace
} // namespace e2e
