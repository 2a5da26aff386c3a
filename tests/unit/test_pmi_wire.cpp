#include "pmi/pmi_wire.hpp"

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
