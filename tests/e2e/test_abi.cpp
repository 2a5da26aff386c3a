// Binary compatibility (docs/abi.md): the same programs
// compiled against each flavour of portals4.h (bxi, sandia, sandia-legacy)
// run on that flavour's library, chosen with --abi or found by --abi auto
// (the two Sandia generations told apart by the return codes in the debug
// information); BXI's extension calls work; and without debug information the
// launcher falls back on the program's calls, then on the default, and says so.
//
// Programs: programs/<flavour>/<name> (built with -g against
// preload/include/<flavour>), programs/stripped/<flavour>_<name> (the same,
// strip --strip-debug).
#include "e2e_test.hpp"

namespace e2e {
namespace {

class Abi : public E2ETest {
protected:
    void expect_all_passed(const RunResult &r, const std::string &name)
    {
        expect_success(r, 2);
        for (int rank = 0; rank < 2; ++rank)
            EXPECT_TRUE(contains(r.out, name + ": rank " + std::to_string(rank) +
                                            ": all checks passed"))
                << "rank " << rank << " did not report success\n"
                << describe(r);
        EXPECT_FALSE(contains(r.err, "FAIL")) << describe(r);
    }

    // The launcher's line about the ABI, or "" when it said nothing.
    static std::string abi_line(const RunResult &r)
    {
        for (const auto &line : lines(r.err))
            if (line.rfind("s4bxi-run: ABI ", 0) == 0)
                return line;
        return "";
    }
};

const char *const kPrograms[] = {"put_get_integrity", "eq_ct_events"};

TEST_F(Abi, BxiProgramsRunUnderAbiBxi)
{
    for (const char *name : kPrograms) {
        auto r = run({"--abi", "bxi", "-n", "2", program(std::string("bxi/") + name)});
        expect_all_passed(r, name);
        EXPECT_EQ(abi_line(r), "") << "an explicit --abi needs no comment\n" << describe(r);
    }
}

TEST_F(Abi, AutoFindsBxiInTheDebugInformation)
{
    for (const char *name : kPrograms) {
        auto r = run({"--abi=auto", "-n", "2", program(std::string("bxi/") + name)});
        expect_all_passed(r, name);
        EXPECT_EQ(abi_line(r), "") << "a choice made from the debug information is silent\n"
                                   << describe(r);
    }
    // The same choice, said aloud.
    auto r = run({"--verbose", "-n", "2", program("bxi/put_get_integrity")});
    expect_all_passed(r, "put_get_integrity");
    EXPECT_EQ(abi_line(r), "s4bxi-run: ABI bxi (DWARF: ptl_handle_ni_t is 8 bytes)") << describe(r);
}

TEST_F(Abi, SandiaProgramsRunUnderAbiSandia)
{
    for (const char *name : kPrograms) {
        auto r = run({"--abi=sandia", "-n", "2", program(std::string("sandia/") + name)});
        expect_all_passed(r, name);
        EXPECT_EQ(abi_line(r), "") << describe(r);
    }
}

TEST_F(Abi, AutoFindsSandiaInTheDebugInformation)
{
    for (const char *name : kPrograms) {
        auto r = run({"-n", "2", program(std::string("sandia/") + name)});
        expect_all_passed(r, name);
        EXPECT_EQ(abi_line(r), "") << describe(r);
    }
    auto r = run({"-v", "--abi", "auto", "-n", "2", program("sandia/eq_ct_events")});
    expect_all_passed(r, "eq_ct_events");
    EXPECT_EQ(abi_line(r), "s4bxi-run: ABI sandia (DWARF: the return codes include PTL_ABORTED, the numbering "
                           "since Sandia's 2023 renumbering)")
        << describe(r);
}

TEST_F(Abi, SandiaLegacyProgramsRunUnderAbiSandiaLegacy)
{
    for (const char *name : kPrograms) {
        auto r = run({"--abi", "sandia-legacy", "-n", "2", program(std::string("sandia-legacy/") + name)});
        expect_all_passed(r, name);
        EXPECT_EQ(abi_line(r), "") << describe(r);
    }
}

// The handles are 4 bytes in both Sandia generations: the return codes the
// program compares with (enum ptl_retvals in its DWARF) tell them apart.
TEST_F(Abi, AutoFindsSandiaLegacyInTheDebugInformation)
{
    for (const char *name : kPrograms) {
        auto r = run({"-n", "2", program(std::string("sandia-legacy/") + name)});
        expect_all_passed(r, name);
        EXPECT_EQ(abi_line(r), "") << "a choice made from the debug information is silent\n" << describe(r);
    }
    auto r = run({"-v", "-n", "2", program("sandia-legacy/put_get_integrity")});
    expect_all_passed(r, "put_get_integrity");
    EXPECT_EQ(abi_line(r), "s4bxi-run: ABI sandia-legacy (DWARF: the return codes include PTL_INTERRUPTED, the "
                           "numbering before Sandia's 2023 renumbering)")
        << describe(r);
}

// Without debug information a stripped legacy program looks like any Sandia
// program: it gets the default (the current generation), with a line that
// names --abi sandia-legacy, which then runs it.
TEST_F(Abi, StrippedSandiaLegacyProgramNeedsTheOption)
{
    auto r = run({"-n", "2", "--abi", "auto", program("stripped/sandia-legacy_put_get_integrity")});
    const std::string line = abi_line(r);
    EXPECT_EQ(line.rfind("s4bxi-run: ABI sandia, the default (no debug information", 0), 0u) << describe(r);
    EXPECT_TRUE(contains(line, "use --abi sandia-legacy")) << describe(r);
    EXPECT_TRUE(contains(line, "before October 2023")) << describe(r);

    r = run({"--abi", "sandia-legacy", "-n", "2", program("stripped/sandia-legacy_put_get_integrity")});
    expect_all_passed(r, "put_get_integrity");
    EXPECT_EQ(abi_line(r), "") << describe(r);
}

// The wrong generation, given explicitly, fails at once and always the same
// way (docs/sandia-abi-generations.md): the ME option bits above ACK_DISABLE
// moved down one bit, so a legacy program's PTL_ME_EVENT_LINK_DISABLE (0x80)
// reads as PTL_ME_EVENT_COMM_DISABLE on the current library and LINK events
// arrive; and a current program's PTL_ME_EVENT_CT_COMM (0x1000) reads as
// PTL_ME_EVENT_UNLINK_DISABLE on the legacy one, so its counters never count
// and its barrier deadlocks.
TEST_F(Abi, TheWrongSandiaGenerationFails)
{
    auto r = run({"--abi", "sandia", "-n", "2", program("sandia-legacy/put_get_integrity")});
    EXPECT_EQ(r.exit_code, 1) << describe(r);
    EXPECT_TRUE(contains(r.err, "unexpected LINK event on the PT EQ")) << describe(r);
    EXPECT_FALSE(contains(r.out, "all checks passed")) << describe(r);

    r = run({"--abi", "sandia-legacy", "-n", "2", program("sandia/put_get_integrity")});
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "deadlock")) << describe(r);
    EXPECT_FALSE(contains(r.out, "all checks passed")) << describe(r);
}

// PtlAbort is declared by the current Sandia generation only: importing it is
// evidence enough without debug information.
TEST_F(Abi, AutoFindsSandiaByItsPtlAbortCall)
{
    auto r = run({"-n", "1", program("stripped/sandia_abort_symbol")});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(contains(r.out, "abort_symbol: all checks passed")) << describe(r);
    EXPECT_EQ(abi_line(r), "s4bxi-run: ABI sandia (no debug information on the Portals handles; the program uses "
                           "PtlAbort, which only the current generation of Sandia's libportals has)")
        << describe(r);
}

// PtlToStr, PtlFailTypeSize, ptl_ev_desc, ptl_evtostr on real events,
// PtlPutNB, NULL none-handles, BXI's wildcards on logical and physical NIs.
TEST_F(Abi, BxiExtensionsWork)
{
    auto r = run({"-n", "2", program("bxi/bxi_extensions")});
    expect_all_passed(r, "bxi_extensions");
    EXPECT_TRUE(contains(r.out, "bxi_extensions: rank 1: type=PUT fail=OK, init=(0)")) << describe(r);
    EXPECT_TRUE(contains(r.out, "bxi_extensions: rank 0: type=ACK fail=OK")) << describe(r);
}

// Without debug information, a call only BXI's library has is evidence
// enough; the launcher says what it went by.
TEST_F(Abi, AutoFallsBackOnBxiOnlyCalls)
{
    auto r = run({"-n", "2", program("stripped/bxi_bxi_extensions")});
    expect_all_passed(r, "bxi_extensions");
    const std::string line = abi_line(r);
    EXPECT_EQ(line.rfind("s4bxi-run: ABI bxi (no debug information on the Portals handles; the program uses ", 0),
              0u)
        << describe(r);
    EXPECT_TRUE(contains(line, "which only BXI's libportals has")) << describe(r);
}

// Nothing to go by: the default flavour, and a line that says it was a guess
// and how to override it.
TEST_F(Abi, AutoFallsBackOnTheDefaultAndSaysSo)
{
    auto r = run({"-n", "2", program("stripped/sandia_put_get_integrity")});
    expect_all_passed(r, "put_get_integrity");
    const std::string line = abi_line(r);
    EXPECT_EQ(line.rfind("s4bxi-run: ABI sandia, the default (no debug information", 0), 0u) << describe(r);
    EXPECT_TRUE(contains(line, "--abi bxi")) << describe(r);
    EXPECT_TRUE(contains(line, "--abi sandia-legacy")) << describe(r);

    // A stripped BXI program without BXI-only calls needs --abi bxi.
    r = run({"--abi", "bxi", "-n", "2", program("stripped/bxi_put_get_integrity")});
    expect_all_passed(r, "put_get_integrity");
}

// A program that calls Portals only through a library it loads (as an
// OpenSHMEM program through SOS's libsma.so): the library tells, here by its
// debug information, and with nothing guessed the launcher says nothing.
TEST_F(Abi, AutoReadsTheLibraryThroughWhichTheProgramCallsPortals)
{
    auto r = run({"-n", "2", program("bxi/through_library")});
    expect_all_passed(r, "through_library");
    EXPECT_EQ(abi_line(r), "") << describe(r);
    r = run({"-v", "-n", "2", program("bxi/through_library")});
    expect_all_passed(r, "through_library");
    const std::string line = abi_line(r);
    EXPECT_EQ(line.rfind("s4bxi-run: ABI bxi (DWARF: ptl_handle_ni_t is 8 bytes), read from libthrough_library.so (",
                         0),
              0u)
        << describe(r);
    EXPECT_TRUE(contains(line, "the library through which the program calls Portals")) << describe(r);
}

// A program that does not call Portals gets the default without comment.
TEST_F(Abi, ProgramsWithoutPortalsGetNoComment)
{
    auto r = run({"-n", "1", program("time_sleep")});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_EQ(abi_line(r), "") << describe(r);
}

TEST_F(Abi, UnknownAbiIsAUsageError)
{
    auto r = run({"--abi", "cray", "-n", "2", program("bxi/put_get_integrity")});
    expect_usage_error(r, "--abi auto, bxi, sandia or sandia-legacy");
    EXPECT_TRUE(contains(r.err, "'cray'")) << describe(r);
    r = run_s4bxi({"-n", "2", "--abi"});
    expect_usage_error(r, "--abi needs a value");
    // After the program, --abi is the program's own argument.
    r = run({"-n", "2", program("bxi/put_get_integrity"), "--abi", "cray"});
    expect_all_passed(r, "put_get_integrity");
}

} // namespace
} // namespace e2e
