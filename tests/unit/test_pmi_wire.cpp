#include "pmi_wire.hpp"

// The ranks' PMI library reads its clique from the environment the server sets.
#include "../../preload/pmi_client/node_ranks.hpp"

#include <gtest/gtest.h>

using namespace s4bxi::pmi;

TEST(PmiWire, ParsesCommandAndFields)
{
  auto command = parse_line("cmd=put kvsname=kvs_1_0 key=id-3 value=0:12");
  ASSERT_TRUE(command);
  EXPECT_EQ(command->name, "put");
  EXPECT_EQ(command->field("kvsname"), "kvs_1_0");
  EXPECT_EQ(command->field("key"), "id-3");
  EXPECT_EQ(command->field("value"), "0:12");
  EXPECT_EQ(command->field("absent"), "");
}

TEST(PmiWire, ToleratesExtraSpacesAndRejectsLinesWithoutCmd)
{
  auto command = parse_line("  cmd=barrier_in   ");
  ASSERT_TRUE(command);
  EXPECT_EQ(command->name, "barrier_in");
  EXPECT_FALSE(parse_line("key=value"));
  EXPECT_FALSE(parse_line(""));
}

TEST(PmiWire, FormatsAnswers)
{
  EXPECT_EQ(format_line("get_result", {{"rc", "0"}, {"value", "x"}}), "cmd=get_result rc=0 value=x\n");
}

TEST(PmiWire, SplitsCompleteLinesAndKeepsTheRest)
{
  std::string buffer = "cmd=init pmi_version=1\ncmd=get_maxes\ncmd=get_app";
  auto lines = take_lines(buffer);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "cmd=init pmi_version=1");
  EXPECT_EQ(lines[1], "cmd=get_maxes");
  EXPECT_EQ(buffer, "cmd=get_app");
  buffer += "num\n";
  lines = take_lines(buffer);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "cmd=get_appnum");
  EXPECT_TRUE(buffer.empty());
}

// OpenMPI's modex values are base64 padded with spaces (and a chunk may begin
// or end with them): value= is the last field and runs to the end of the line.
TEST(PmiWire, ValueRunsToTheEndOfTheLineSpacesIncluded)
{
  auto command = parse_line("cmd=put kvsname=kvs_1_0 key=1-3-key0 value= a b  c=d ");
  ASSERT_TRUE(command);
  EXPECT_EQ(command->field("kvsname"), "kvs_1_0");
  EXPECT_EQ(command->field("key"), "1-3-key0");
  EXPECT_EQ(command->field("value"), " a b  c=d ");

  auto answer = parse_line("cmd=get_result rc=0 msg=success value=AB  -");
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->field("rc"), "0");
  EXPECT_EQ(answer->field("value"), "AB  -");

  auto empty = parse_line("cmd=put kvsname=k key=x value=");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->field("value"), "");
  EXPECT_EQ(empty->fields.count("value"), 1u);
}

// A key that merely ends in "value" is an ordinary field.
TEST(PmiWire, OnlyAFieldNamedValueTakesTheRestOfTheLine)
{
  auto command = parse_line("cmd=x myvalue=1 other=2");
  ASSERT_TRUE(command);
  EXPECT_EQ(command->field("myvalue"), "1");
  EXPECT_EQ(command->field("other"), "2");
}

// Whatever order the caller gives, value= is written last, so that the
// reader's rule above holds; a line round-trips through both functions.
TEST(PmiWire, FormatsValueLastAndRoundTrips)
{
  EXPECT_EQ(format_line("get_result", {{"value", "x y"}, {"rc", "0"}, {"msg", "success"}}),
            "cmd=get_result rc=0 msg=success value=x y\n");
  const std::string value = "  leading, inner  and trailing spaces  ";
  std::string line = format_line("put", {{"kvsname", "kvs"}, {"key", "k"}, {"value", value}});
  ASSERT_EQ(line.back(), '\n');
  line.pop_back();
  auto command = parse_line(line);
  ASSERT_TRUE(command);
  EXPECT_EQ(command->name, "put");
  EXPECT_EQ(command->field("value"), value);
}

TEST(PmiNodeRanks, ParsesTheRanksOfTheNode)
{
  using s4bxi::pmi_client::parse_node_ranks;
  EXPECT_EQ(parse_node_ranks("0,2", 2, 4), (std::vector<int>{0, 2}));
  EXPECT_EQ(parse_node_ranks("3", 3, 4), (std::vector<int>{3}));
  EXPECT_EQ(parse_node_ranks("1,5,9,13", 9, 16), (std::vector<int>{1, 5, 9, 13}));
}

// Anything else is refused (the library then puts the rank alone on its node).
TEST(PmiNodeRanks, RefusesMalformedLists)
{
  using s4bxi::pmi_client::parse_node_ranks;
  for (const char* text : {"", ",", "0,", ",0", "0,,2", "0;2", "0 ,2", "a", "-1,0", "0,4", "2,0", "0,0", "+0"})
    EXPECT_FALSE(parse_node_ranks(text, 0, 4)) << "'" << text << "'";
  EXPECT_FALSE(parse_node_ranks("0,2", 1, 4)) << "a list without the rank itself";
}
