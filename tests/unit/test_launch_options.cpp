#include "launch_options.hpp"

#include "command_line.hpp"

#include <gtest/gtest.h>

using s4bxi::parse_launch_options;

namespace {
std::optional<s4bxi::LaunchOptions> parse(std::vector<std::string> args, std::string& error)
{
  return parse_launch_options(args, error);
}
} // namespace

TEST(LaunchOptions, ParsesTheMpirunLikeForms)
{
  std::string error;
  auto options = parse({"-n", "16", "--platform", "fattree:2;4,4;1,2;1,2", "--report=run.json",
                        "--cfg=s4bxi/cpu-factor:2", "./app", "-x", "--not-ours"},
                       error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->ranks, 16u);
  EXPECT_EQ(options->platform, "fattree:2;4,4;1,2;1,2");
  EXPECT_EQ(options->report_path, "run.json");
  ASSERT_EQ(options->simgrid_args.size(), 1u);
  EXPECT_EQ(options->simgrid_args[0], "--cfg=s4bxi/cpu-factor:2");
  EXPECT_EQ(options->program, (std::vector<std::string>{"./app", "-x", "--not-ours"}));
}

TEST(LaunchOptions, DoubleDashEndsOptions)
{
  std::string error;
  auto options = parse({"-np", "2", "--", "-weird-name"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->program[0], "-weird-name");
}

TEST(LaunchOptions, RejectsBadInputWithOneSentence)
{
  std::string error;
  EXPECT_FALSE(parse({"--frobnicate", "./app"}, error));
  EXPECT_NE(error.find("unknown option '--frobnicate'"), std::string::npos);
  EXPECT_FALSE(parse({"-n", "zero", "./app"}, error));
  EXPECT_NE(error.find("not a positive integer"), std::string::npos);
  EXPECT_FALSE(parse({"-n", "0", "./app"}, error));
  EXPECT_FALSE(parse({"-n"}, error));
  EXPECT_NE(error.find("needs a value"), std::string::npos);
  EXPECT_FALSE(parse({"-n", "2"}, error));
  EXPECT_NE(error.find("no program"), std::string::npos);
}

TEST(LaunchOptions, ServerArgumentsParseBackToTheSameOptions)
{
  std::string error;
  auto options = parse({"-n", "3", "--log=s4bxi_nic.thres:debug", "--report", "r.json", "prog", "a"}, error);
  ASSERT_TRUE(options);
  options->preload_library = "/x/lib/libportals.so.4";
  auto again = parse(s4bxi::to_arguments(*options), error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->ranks, 3u);
  EXPECT_EQ(again->report_path, "r.json");
  EXPECT_EQ(again->preload_library, "/x/lib/libportals.so.4");
  EXPECT_EQ(again->simgrid_args, options->simgrid_args);
  EXPECT_EQ(again->program, options->program);
}

TEST(LaunchOptions, TraceDirectoryReachesTheServer)
{
  std::string error;
  auto options = parse({"-n", "2", "--trace", "out/trace", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->trace_dir, "out/trace");
  auto again = parse(s4bxi::to_arguments(*options), error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->trace_dir, "out/trace");
  options = parse({"prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_TRUE(options->trace_dir.empty());
  EXPECT_FALSE(parse({"--trace=", "prog"}, error));
  EXPECT_NE(error.find("--trace needs a directory"), std::string::npos) << error;
  options = parse({"prog", "--trace", "t"}, error); // after the program, the program's argument
  ASSERT_TRUE(options) << error;
  EXPECT_TRUE(options->trace_dir.empty());
  EXPECT_FALSE(parse({"--trace"}, error));
  EXPECT_NE(error.find("needs a value"), std::string::npos) << error;
}

TEST(LaunchOptions, AbiIsAutoUnlessGiven)
{
  std::string error;
  auto options = parse({"prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->abi, s4bxi::Abi::Auto);
  EXPECT_FALSE(options->verbose);
  options = parse({"--abi", "bxi", "-v", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->abi, s4bxi::Abi::Bxi);
  EXPECT_TRUE(options->verbose);
  options = parse({"--abi=sandia", "--verbose", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->abi, s4bxi::Abi::Sandia);
  EXPECT_TRUE(options->verbose);
  options = parse({"--abi", "sandia-legacy", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->abi, s4bxi::Abi::SandiaLegacy);
  options = parse({"--abi=sandia-legacy", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->abi, s4bxi::Abi::SandiaLegacy);
  options = parse({"--abi=auto", "prog", "--abi", "bxi"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->abi, s4bxi::Abi::Auto) << "options after the program are the program's";
}

TEST(LaunchOptions, UnknownAbiIsOneSentence)
{
  std::string error;
  EXPECT_FALSE(parse({"--abi", "BXI", "prog"}, error));
  EXPECT_EQ(error, "the ABI 'BXI' is unknown (use --abi auto, bxi, sandia or sandia-legacy)");
  EXPECT_FALSE(parse({"--abi", "sandia_legacy", "prog"}, error));
  EXPECT_NE(s4bxi::usage_text().find("--abi auto|bxi|sandia|sandia-legacy"), std::string::npos)
      << "the help names every ABI";
  EXPECT_FALSE(parse({"--abi"}, error));
  EXPECT_NE(error.find("--abi needs a value"), std::string::npos);
}

TEST(LaunchOptions, AbiAndVerbosityReachTheServer)
{
  std::string error;
  auto options = parse({"--abi", "bxi", "-v", "prog"}, error);
  ASSERT_TRUE(options) << error;
  options->preload_library = "/x/lib/bxi/libportals.so.4";
  auto again = parse(s4bxi::to_arguments(*options), error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->abi, s4bxi::Abi::Bxi);
  EXPECT_TRUE(again->verbose);
  EXPECT_EQ(again->preload_library, "/x/lib/bxi/libportals.so.4");
  EXPECT_STREQ(s4bxi::abi_name(s4bxi::Abi::Sandia), "sandia");
  EXPECT_STREQ(s4bxi::abi_name(s4bxi::Abi::SandiaLegacy), "sandia-legacy");
  // --abi sandia-legacy reaches the server too.
  options = parse({"--abi", "sandia-legacy", "prog"}, error);
  ASSERT_TRUE(options) << error;
  again = parse(s4bxi::to_arguments(*options), error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->abi, s4bxi::Abi::SandiaLegacy);
}

TEST(LaunchOptions, DebuggedRanksAreAListOfRanksAndRanges)
{
  std::string error;
  auto options = parse({"-n", "16", "--gdb", "7,0-2,2,9-10", "--debugger", "gdb -tui", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->debugged_ranks, (std::vector<unsigned>{0, 1, 2, 7, 9, 10}));
  auto again = parse(s4bxi::to_arguments(*options), error);
  ASSERT_TRUE(again) << error;
  EXPECT_EQ(again->debugged_ranks, options->debugged_ranks);
  EXPECT_EQ(again->debugger, "gdb -tui");
  for (const char* bad : {"", "a", "1,", "3-1", "-2", "1--2"}) {
    EXPECT_FALSE(parse({"-n", "16", "--gdb", bad, "prog"}, error)) << bad;
    EXPECT_NE(error.find("not a list of ranks"), std::string::npos) << bad << ": " << error;
  }
  EXPECT_FALSE(parse({"-n", "4", "--gdb", "4", "prog"}, error));
  EXPECT_EQ(error, "--gdb names rank 4, but the job has 4 ranks (0 to 3)");
}

TEST(LaunchOptions, CommandLinesSplitLikeAShell)
{
  using Words = std::vector<std::string>;
  EXPECT_EQ(s4bxi::split_command_line("gdb -tui"), (Words{"gdb", "-tui"}));
  EXPECT_EQ(s4bxi::split_command_line("  gdb  -ex 'break main' -ex \"print x\" "),
            (Words{"gdb", "-ex", "break main", "-ex", "print x"}));
  EXPECT_EQ(s4bxi::split_command_line("a''b \"\""), (Words{"ab", ""}));
  EXPECT_FALSE(s4bxi::split_command_line("gdb -ex 'unclosed"));
  EXPECT_EQ(s4bxi::split_command_line(""), (Words{}));
}

TEST(LaunchOptions, MpiModeIsAutoUnlessGiven)
{
  std::string error;
  auto options = parse({"prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->mpi, s4bxi::MpiMode::Auto);
  options = parse({"--mpi", "on", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->mpi, s4bxi::MpiMode::On);
  options = parse({"--mpi=off", "prog", "--mpi", "on"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->mpi, s4bxi::MpiMode::Off) << "options after the program are the program's";
  options = parse({"--mpi=auto", "prog"}, error);
  ASSERT_TRUE(options) << error;
  EXPECT_EQ(options->mpi, s4bxi::MpiMode::Auto);
}

TEST(LaunchOptions, UnknownMpiModeIsOneSentence)
{
  std::string error;
  EXPECT_FALSE(parse({"--mpi", "yes", "prog"}, error));
  EXPECT_EQ(error, "the MPI mode 'yes' is unknown (use --mpi auto, on or off)");
  EXPECT_FALSE(parse({"--mpi"}, error));
  EXPECT_NE(error.find("--mpi needs a value"), std::string::npos);
  EXPECT_NE(s4bxi::usage_text().find("--mpi auto|on|off"), std::string::npos);
}
