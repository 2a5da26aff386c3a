// Portals 4.1 conformance: one self-checking program per feature (see each
// program's header comment for what it checks), run under s4bxi-run with 1
// to 8 ranks, in the three binary flavours of portals4.h (Sandia's current
// generation, the default; Sandia's previous one; BXI's); and the options
// only the current generation names (generation_options). A program exits 0
// only if every data and event check passed; each also prints how much it
// checked, so that a program that silently skipped its work fails here.
#include "e2e_test.hpp"

#include <regex>
#include <tuple>

namespace e2e {
namespace {

class Conformance : public E2ETest {
protected:
    // Runs `name` (built against the default flavour, Sandia's current
    // generation; "<abi>/name" built against the flavour `abi`, "bxi" or
    // "sandia-legacy") on `nranks` ranks, with the launcher's `options`,
    // and expects every rank to pass.
    RunResult run_program(const std::string &name, int nranks, const std::string &abi = "",
                          const std::vector<std::string> &options = {})
    {
        std::vector<std::string> args = options;
        if (!abi.empty())
            args.insert(args.end(), {"--abi", abi});
        args.insert(args.end(), {"-n", std::to_string(nranks), program(abi.empty() ? name : abi + "/" + name)});
        auto r = run(args);
        expect_success(r, nranks);
        for (int rank = 0; rank < nranks; ++rank)
            EXPECT_TRUE(contains(r.out, name + ": rank " + std::to_string(rank) + ": all checks passed"))
                << "rank " << rank << " did not report success\n" << describe(r);
        EXPECT_FALSE(contains(r.err, "FAIL")) << describe(r);
        EXPECT_FALSE(contains(r.err, "not supported")) << describe(r);
        EXPECT_LT(r.wall_s, 10.0) << "too slow for the test suite\n" << describe(r);
        return r;
    }

    void check_atomics(const std::string &abi)
    {
        auto r = run_program("atomics", 2, abi);
        // 14 datatypes x 18 operations: 192 allowed pairs (98 of them without
        // a swap, also run with PtlAtomic) and 60 refused.
        EXPECT_TRUE(contains(r.out, "atomics: 192 fetching and 98 plain operations checked, 60 refused pairs"))
            << describe(r);
    }
};

// Every operation on every datatype through PtlFetchAtomic/PtlSwap and
// PtlAtomic, values computed independently; refused pairs; events with the
// operation and datatype; overflow atomics; limits.
TEST_F(Conformance, AtomicsOnEveryDatatype)
{
    check_atomics("");
}

TEST_F(Conformance, AtomicsOnEveryDatatypeBxiAbi)
{
    check_atomics("bxi");
}

TEST_F(Conformance, AtomicsOnEveryDatatypeLegacySandiaAbi)
{
    check_atomics("sandia-legacy");
}

// Fetch-and-add, a CSWAP lock, MSWAP, MIN and MAX from 8 ranks at once.
TEST_F(Conformance, AtomicsUnderContention)
{
    auto r = run_program("atomic_contention", 8);
    EXPECT_TRUE(contains(r.out, "atomic_contention: 8 ranks, 80 fetch-and-adds, 24 locked updates")) << describe(r);
}

// The same with one rank, which targets itself.
TEST_F(Conformance, AtomicsOnOneRank)
{
    auto r = run_program("atomic_contention", 1);
    EXPECT_TRUE(contains(r.out, "atomic_contention: 1 ranks, 10 fetch-and-adds, 3 locked updates")) << describe(r);
}

// Thresholds (success + failure), release order, buffer read at release,
// immediate release, Get/Atomic/FetchAtomic/Swap, CTInc/CTSet chains,
// cancellation; then a ring of 4 ranks released NIC to NIC.
TEST_F(Conformance, TriggeredOperations)
{
    auto r = run_program("triggered_ops", 4);
    EXPECT_TRUE(contains(r.out, "triggered_ops: pairwise part done")) << describe(r);
    EXPECT_TRUE(contains(r.out, "triggered_ops: ring of 4 ranks done")) << describe(r);
}

TEST_F(Conformance, TriggeredOperationsBxiAbi)
{
    auto r = run_program("triggered_ops", 2, "bxi");
    EXPECT_TRUE(contains(r.out, "triggered_ops: ring of 2 ranks done")) << describe(r);
}

TEST_F(Conformance, TriggeredOperationsLegacySandiaAbi)
{
    auto r = run_program("triggered_ops", 2, "sandia-legacy");
    EXPECT_TRUE(contains(r.out, "triggered_ops: ring of 2 ranks done")) << describe(r);
}

// PTL_SEARCH_ONLY / PTL_SEARCH_DELETE on MEs and LEs, SEARCH and *_OVERFLOW
// events, PTL_NI_NO_MATCH, AUTO_UNLINK/AUTO_FREE of an overflow entry.
TEST_F(Conformance, UnexpectedListSearch)
{
    run_program("unexpected_search", 2);
}

TEST_F(Conformance, UnexpectedListSearchBxiAbi)
{
    run_program("unexpected_search", 2, "bxi");
}

// The previous generation's searches count as Portals 4.1's: only what a
// search-delete consumes.
TEST_F(Conformance, UnexpectedListSearchLegacySandiaAbi)
{
    run_program("unexpected_search", 2, "sandia-legacy");
}

// PTL_PT_FLOWCTRL: no match, full EQ and no unexpected-header room disable
// the entry (PT_DISABLED, PTL_NI_PT_DISABLED at the initiator), PtlPTEnable;
// a full EQ without flow control drops events only.
TEST_F(Conformance, FlowControl)
{
    run_program("flow_control", 2);
}

TEST_F(Conformance, FlowControlBxiAbi)
{
    run_program("flow_control", 2, "bxi");
}

TEST_F(Conformance, FlowControlLegacySandiaAbi)
{
    run_program("flow_control", 2, "sandia-legacy");
}

// The return codes of every call given invalid arguments, through the
// legacy generation's header (the current one runs in test_programs.cpp):
// the numbers differ between Sandia's two generations, the names must not.
TEST_F(Conformance, ReturnCodesOfInvalidArgumentsLegacySandiaAbi)
{
    run_program("invalid_args", 1, "sandia-legacy");
}

// PTL_ACK_REQ, PTL_CT_ACK_REQ, PTL_OC_ACK_REQ, PTL_NO_ACK_REQ,
// PTL_ME_ACK_DISABLE, the MD event and counting options, the entry event
// options.
TEST_F(Conformance, AcknowledgmentsAndEventOptions)
{
    run_program("ack_kinds", 2);
}

TEST_F(Conformance, AcknowledgmentsAndEventOptionsBxiAbi)
{
    run_program("ack_kinds", 2, "bxi");
}

TEST_F(Conformance, AcknowledgmentsAndEventOptionsLegacySandiaAbi)
{
    run_program("ack_kinds", 2, "sandia-legacy");
}

// PTL_IOVEC MDs and MEs: Put (PIO and DMA), Get, an atomic across segments,
// truncation, offsets, max_iovecs.
TEST_F(Conformance, IoVectors)
{
    run_program("iovec", 2);
}

TEST_F(Conformance, IoVectorsBxiAbi)
{
    run_program("iovec", 2, "bxi");
}

TEST_F(Conformance, IoVectorsLegacySandiaAbi)
{
    run_program("iovec", 2, "sandia-legacy");
}

// PtlStartBundle/PtlEndBundle (nested), PtlAtomicSync, their error codes.
TEST_F(Conformance, BundlesAndAtomicSync)
{
    run_program("bundles", 1);
}

TEST_F(Conformance, BundlesAndAtomicSyncBxiAbi)
{
    run_program("bundles", 1, "bxi");
}

TEST_F(Conformance, BundlesAndAtomicSyncLegacySandiaAbi)
{
    run_program("bundles", 1, "sandia-legacy");
}

// Completion: the SEND event of a Put without acknowledgment, or the ACK,
// ends the operation; the MD is released at once (8 B and 64 KiB).
// On 1 rank (a Put to itself), 2 and 4 (a ring).
TEST_F(Conformance, MdReleasedAtCompletion)
{
    for (int nranks : {1, 2, 4}) {
        auto r = run_program("completion", nranks);
        int ranks_released = 0; // each rank's initiator said it
        for (const auto &line : lines(r.out))
            ranks_released += contains(line, "completion: 16 MDs released at completion") ? 1 : 0;
        EXPECT_EQ(ranks_released, nranks) << describe(r);
    }
}

TEST_F(Conformance, MdReleasedAtCompletionBxiAbi)
{
    auto r = run_program("completion", 2, "bxi");
    EXPECT_TRUE(contains(r.out, "completion: 16 MDs released at completion")) << describe(r);
}

TEST_F(Conformance, MdReleasedAtCompletionLegacySandiaAbi)
{
    auto r = run_program("completion", 2, "sandia-legacy");
    EXPECT_TRUE(contains(r.out, "completion: 16 MDs released at completion")) << describe(r);
}

// The options only the current generation of Sandia's portals4.h names:
// PTL_PT_ALLOC_DISABLED, PTL_MD_UNRELIABLE, PTL_ME_LOCAL_INC_UH_RLENGTH and
// counting searches. Ranks pair up; on one rank, the rank targets itself.
TEST_F(Conformance, CurrentGenerationOptionsOnOneRank)
{
    auto r = run_program("generation_options", 1);
    EXPECT_TRUE(contains(r.out, "generation_options: rank 0 checked every option on itself")) << describe(r);
}

TEST_F(Conformance, CurrentGenerationOptions)
{
    auto r = run_program("generation_options", 2);
    EXPECT_TRUE(contains(r.out, "generation_options: rank 1 checked every option as the target of rank 0"))
        << describe(r);
}

TEST_F(Conformance, CurrentGenerationOptionsOnFourRanks)
{
    auto r = run_program("generation_options", 4);
    EXPECT_TRUE(contains(r.out, "generation_options: rank 1 checked every option as the target of rank 0"))
        << describe(r);
    EXPECT_TRUE(contains(r.out, "generation_options: rank 3 checked every option as the target of rank 2"))
        << describe(r);
}

// Counting searches (current generation), Sandia's cases: PtlCTSet to zero,
// the search, and PtlCTGet as soon as it returns reads {2,1} for two matches
// of a persistent SEARCH_ONLY entry, with or without
// PTL_ME_EVENT_CT_OVERFLOW; SEARCH_DELETE, use-once entries, PtlLESearch.
TEST_F(Conformance, SearchesCountBeforeTheyReturn)
{
    for (int nranks : {1, 2}) {
        auto r = run_program("search_counters", nranks);
        EXPECT_TRUE(contains(r.out, "search_counters: rank " + std::to_string(nranks - 1) +
                                        " read 16 counters right after their searches"))
            << describe(r);
    }
}

// An ME that PTL_ME_LOCAL_INC_UH_RLENGTH used up at append is not linked,
// but PtlMEUnlink of its handle answers PTL_OK once, as in Sandia's
// implementation (test_manage_local_and_inc_uh_rlength).
TEST_F(Conformance, UnlinkOfAnEntryUsedUpAtAppend)
{
    for (int nranks : {1, 2}) {
        auto r = run_program("inc_uh_rlength_unlink", nranks);
        EXPECT_TRUE(contains(r.out, "inc_uh_rlength_unlink: rank " + std::to_string(nranks - 1) +
                                        " unlinked the MEs used up at append"))
            << describe(r);
    }
}

// An MD is free once the SEND event of the operation reading it is out, its
// acknowledgment still on its way (Sandia's test_triggered_{ME,LE}_put); the
// MD a reply lands in, once the reply is in. Without compute the
// acknowledgment is always still on its way at the release: the outcome
// does not depend on timing.
class MdReleaseAfterSend : public Conformance,
                           public ::testing::WithParamInterface<std::tuple<std::string, int>> {};

TEST_P(MdReleaseAfterSend, WhileTheAcknowledgmentIsInFlight)
{
    const auto &[abi, nranks] = GetParam();
    auto r = run_program("md_release_after_send", nranks, abi, {"--cfg=s4bxi/compute:none"});
    for (int rank = 0; rank < nranks; ++rank)
        EXPECT_TRUE(contains(r.out, "md_release_after_send: rank " + std::to_string(rank) +
                                        " released 2 MDs after SEND, 2 with the acknowledgment in flight"))
            << "rank " << rank << "\n" << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Abis, MdReleaseAfterSend,
                         ::testing::Values(std::make_tuple(std::string(""), 1), std::make_tuple(std::string(""), 2),
                                           std::make_tuple(std::string("bxi"), 2),
                                           std::make_tuple(std::string("sandia-legacy"), 2)),
                         [](const auto &info) {
                             const std::string abi = std::get<0>(info.param).empty() ? "sandia"
                                                                                      : std::get<0>(info.param);
                             return (abi == "sandia-legacy" ? std::string("sandia_legacy") : abi) + "_" +
                                    std::to_string(std::get<1>(info.param)) + "ranks";
                         });

// 65,536 triggered Gets pending on one trigger (the NI's limit; one more is
// PTL_NO_SPACE), released at once: they complete within the suite's time
// bound (a receive used to cost the length of the backlog of messages in
// the mailbox: 25 s for one rank, 2 s now; the program also runs on more
// ranks, around a ring, at 4 s for two, too close to the bound for the
// suite).
class TriggeredFlood : public Conformance,
                       public ::testing::WithParamInterface<std::tuple<std::string, int>> {};

TEST_P(TriggeredFlood, CostsWhatTheWorkCosts)
{
    const auto &[abi, nranks] = GetParam();
    auto r = run_program("triggered_flood", nranks, abi);
    for (int rank = 0; rank < nranks; ++rank)
        EXPECT_TRUE(contains(r.out, "triggered_flood: rank " + std::to_string(rank) +
                                        ": 65536 triggered Gets pending, the next one PTL_NO_SPACE, all replied"))
            << "rank " << rank << "\n" << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Abis, TriggeredFlood,
                         ::testing::Values(std::make_tuple(std::string(""), 1),
                                           std::make_tuple(std::string("bxi"), 1),
                                           std::make_tuple(std::string("sandia-legacy"), 1)),
                         [](const auto &info) {
                             const std::string abi = std::get<0>(info.param).empty() ? "sandia"
                                                                                      : std::get<0>(info.param);
                             return (abi == "sandia-legacy" ? std::string("sandia_legacy") : abi) + "_" +
                                    std::to_string(std::get<1>(info.param)) + "ranks";
                         });

// A rank that exits with thousands of triggered operations released and not
// sent yet: the operations whose data the NIC had not read are dropped and
// said in one line; no line per operation, and no complaint from SimGrid
// about the reads of the other rank's answers cut short by the end of the run.
TEST_F(Conformance, RankExitsWithTriggeredOperationsInFlight)
{
    auto r = run({"--cfg=s4bxi/compute:none", "-n", "2", program("triggered_flood"), "exit"});
    expect_success(r, 2);
    EXPECT_TRUE(contains(r.out, "triggered_flood: rank 0 exits with 30000 triggered operations released"))
        << describe(r);
    const std::regex dropped("^s4bxi-run: [0-9]+ messages, .* ([0-9]+) operations not sent \\(their rank ended "
                             "before the NIC read their data\\)$");
    int summaries = 0;
    for (const auto &line : lines(r.err)) {
        std::smatch m;
        if (std::regex_match(line, m, dropped)) {
            ++summaries;
            EXPECT_GT(std::stoi(m[1].str()), 1000) << describe(r);
        }
    }
    EXPECT_EQ(summaries, 1) << describe(r);
    EXPECT_FALSE(contains(r.err, "could not be read")) << describe(r);
    EXPECT_FALSE(contains(r.err, "freed before its completion")) << describe(r);
    EXPECT_FALSE(contains(r.err, "Backtrace")) << describe(r);
    EXPECT_LE(lines(r.err).size(), 4u) << "more than the summary\n" << describe(r);
}

} // namespace
} // namespace e2e
