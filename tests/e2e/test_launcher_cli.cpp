// The launcher's command line: help, and usage errors (exit status 2, one
// sentence on stderr starting with "s4bxi-run: "), which must start no rank
// and leave nothing behind (checked by the fixture).
#include "e2e_test.hpp"

namespace e2e {
namespace {

class Launcher : public E2ETest {};

TEST_F(Launcher, HelpDescribesUsage)
{
    auto r = run_s4bxi({"--help"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    const std::string all = r.out + r.err;
    EXPECT_TRUE(contains(all, "s4bxi-run")) << describe(r);
    EXPECT_TRUE(contains(all, "-n")) << describe(r);
    EXPECT_TRUE(contains(all, "--platform")) << describe(r);
    EXPECT_TRUE(contains(all, "--report")) << describe(r);
    EXPECT_TRUE(contains(all, "--cfg")) << describe(r);
}

TEST_F(Launcher, HelpCfgListsModelOptions)
{
    auto r = run_s4bxi({"--help-cfg"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    const std::string all = r.out + r.err;
    EXPECT_TRUE(contains(all, "s4bxi/cpu-factor")) << describe(r);
    EXPECT_TRUE(contains(all, "s4bxi/cpu-threshold")) << describe(r);
    EXPECT_TRUE(contains(all, "s4bxi/compute")) << describe(r);
}

TEST_F(Launcher, UnknownOption)
{
    auto r = run({"--no-such-option", "-n", "2", program("rank_env")});
    expect_usage_error(r, "--no-such-option");
}

TEST_F(Launcher, MissingProgramPath)
{
    auto r = run({"-n", "2", "/nonexistent/e2e-no-such-program"});
    expect_usage_error(r, "not found");
}

TEST_F(Launcher, MissingProgramInPath)
{
    auto r = run({"-n", "2", "e2e-no-such-program-in-path"});
    expect_usage_error(r, "not found");
}

TEST_F(Launcher, NoProgram)
{
    auto r = run_s4bxi({"-n", "2"});
    expect_usage_error(r, "");
}

TEST_F(Launcher, StaticallyLinkedProgram)
{
    auto r = run({"-n", "2", program("static_prog")});
    expect_usage_error(r, "statically linked");
    EXPECT_FALSE(contains(r.out, "should never run")) << describe(r);
}

TEST_F(Launcher, MoreRanksThanCores)
{
    auto r = run({"-n", "1000", program("rank_env")});
    expect_usage_error(r, "cores");
}

TEST_F(Launcher, ZeroRanks)
{
    auto r = run({"-n", "0", program("rank_env")});
    expect_usage_error(r, "");
}

TEST_F(Launcher, NonNumericRankCount)
{
    auto r = run({"-n", "two", program("rank_env")});
    expect_usage_error(r, "");
}

TEST_F(Launcher, NonexistentPlatformFile)
{
    auto r = run({"-n", "2", "--platform", "/nonexistent.xml",
                  program("rank_env")});
    expect_usage_error(r, "platform");
}

TEST_F(Launcher, MalformedPlatformFile)
{
    TempDir dir;
    const std::string xml = dir.file("broken.xml");
    write_file(xml,
               "<?xml version='1.0'?>\n"
               "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
               "<platform version=\"4.1\">\n"
               "  <zone id=\"AS0\" routing=\"Full\">\n"
               "    <host id=\"node-0\" speed=\"1Gf\" core=\"4\">\n"
               "  </zone>\n"
               "<!-- truncated: unbalanced tags, no closing platform -->\n");
    auto r = run({"-n", "2", "--platform", xml, program("rank_env")});
    expect_usage_error(r, "platform");
}

TEST_F(Launcher, GarbageFatTreeSpec)
{
    auto r = run({"-n", "2", "--platform", "fattree:garbage",
                  program("rank_env")});
    expect_usage_error(r, "platform");
}

TEST_F(Launcher, UnknownCfgOption)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/no-such-option:1",
                  program("rank_env")});
    expect_usage_error(r, "s4bxi/no-such-option");
}

TEST_F(Launcher, BadCfgValue)
{
    auto r = run({"-n", "2", "--cfg=s4bxi/cpu-factor:fast",
                  program("rank_env")});
    expect_usage_error(r, "cpu-factor");
}

} // namespace
// More ranks than the descriptor limit allows (two per rank in the server):
// one sentence that says what to raise, and no rank left behind.
TEST_F(Launcher, TooFewFileDescriptorsForTheRanks)
{
    auto r = run_command({"/bin/sh", "-c", "ulimit -n 40 && exec \"$0\" \"$@\"", launcher(), "-n", "32",
                          "--platform", "fattree:2;8,8;1,8;1,1", program("rank_env")});
    EXPECT_EQ(r.exit_code, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, "ulimit -n")) << describe(r);
}

} // namespace e2e
