// The trace recorder on its own: file layout, call nesting, tracks for
// overlapping slices, times, and closing with calls still open.
#include "trace/recorder.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace s4bxi::trace;

namespace {

class RecorderTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    dir_ = std::filesystem::temp_directory_path() / ("s4bxi-trace-test-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::unique_ptr<Recorder> open()
  {
    std::string error;
    auto recorder = Recorder::open((dir_ / "t").string(), {"node0", "fancy"}, error);
    EXPECT_TRUE(recorder) << error;
    return recorder;
  }
  std::vector<std::string> csv_lines() const
  {
    std::ifstream in(dir_ / "t" / "events.csv");
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
      lines.push_back(line);
    return lines;
  }
  std::string json() const
  {
    std::ifstream in(dir_ / "t" / "trace.json");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path dir_;
};

TEST_F(RecorderTest, WritesOneRowPerEventWithTheDocumentedColumns)
{
  auto recorder = open();
  recorder->record({.kind = Kind::Put, .node = 0, .rank = 0, .vn = 0, .bytes = 8, .start = 1e-6, .end = 2.5e-6,
                    .dst = 1, .wire_bytes = 73});
  recorder->record({.kind = Kind::PcieCommand, .node = 1, .bytes = 64, .start = 0.1, .end = 0.2});
  recorder->close(3e-6);
  auto lines = csv_lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "kind,node,rank,vn,bytes,start_s,end_s,actor,detail");
  EXPECT_EQ(lines[1], "PUT,0,0,0,8,1e-06,2.5e-06,wire0,dst=1 wire_bytes=73");
  EXPECT_EQ(lines[2], "PCI_COMMAND,1,,,64,0.1,0.2,pcie,");
  const std::string text = json();
  EXPECT_NE(text.find("\"name\":\"PUT\",\"cat\":\"message\",\"ph\":\"X\",\"pid\":1"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":1.000000,\"dur\":1.500000"), std::string::npos) << text;
  EXPECT_NE(text.find("\"ts\":100000.000000,\"dur\":100000.000000"), std::string::npos) << text;
  // Processes named after the hosts, with the index when the name lacks it.
  EXPECT_NE(text.find("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"node0\"}}"),
            std::string::npos);
  EXPECT_NE(text.find("\"args\":{\"name\":\"fancy (node 1)\"}"), std::string::npos);
  EXPECT_EQ(text.substr(text.size() - 4), "\n]}\n");
  EXPECT_EQ(recorder->events_written(), 2u);
}

TEST_F(RecorderTest, WaitsOfACallComeAfterTheCall)
{
  auto recorder = open();
  recorder->begin_call({.kind = Kind::Call, .node = 0, .rank = 3, .start = 1.0, .what = "PtlEQWait"});
  recorder->record({.kind = Kind::Wait, .node = 0, .rank = 3, .start = 1.0, .end = 2.0, .what = "PtlEQWait"});
  recorder->record({.kind = Kind::Tx, .node = 0, .vn = 1, .start = 1.5, .end = 1.6, .what = "ACK", .dst = 1});
  recorder->end_call(3, 2.0);
  recorder->close(2.0);
  auto lines = csv_lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], "TX,0,,1,0,1.5,1.6,tx1,ACK dst=1") << "not held: another actor's";
  EXPECT_EQ(lines[2], "CALL,0,3,,0,1,2,rank3,PtlEQWait");
  EXPECT_EQ(lines[3], "WAIT,0,3,,0,1,2,rank3,PtlEQWait");
}

TEST_F(RecorderTest, CallsStillOpenAtTheEndAreClosedThen)
{
  auto recorder = open();
  recorder->begin_call({.kind = Kind::Call, .node = 1, .rank = 0, .start = 0.5, .what = "PtlCTWait"});
  recorder->close(7.0);
  auto lines = csv_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1], "CALL,1,0,,0,0.5,7,rank0,PtlCTWait");
  recorder->record({.kind = Kind::Put, .start = 8, .end = 9});
  EXPECT_EQ(csv_lines().size(), 2u) << "nothing is written after close";
}

TEST_F(RecorderTest, OverlappingSlicesGetTracksOfTheirOwn)
{
  auto recorder = open();
  // Three messages in flight at once, then one after they all arrived.
  recorder->record({.kind = Kind::Put, .node = 0, .vn = 0, .start = 0, .end = 10});
  recorder->record({.kind = Kind::Put, .node = 0, .vn = 0, .start = 1, .end = 11});
  recorder->record({.kind = Kind::Put, .node = 0, .vn = 0, .start = 2, .end = 12});
  recorder->record({.kind = Kind::Put, .node = 0, .vn = 0, .start = 12, .end = 13});
  recorder->close(13);
  const std::string text = json();
  for (const char* name : {"\"wire out vn0\"", "\"wire out vn0 #2\"", "\"wire out vn0 #3\""})
    EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
  EXPECT_EQ(text.find("\"wire out vn0 #4\""), std::string::npos) << "the fourth fits on the first track";
}

TEST_F(RecorderTest, UnwritableDirectoryIsOneSentence)
{
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  std::string error;
  auto recorder = Recorder::open((dir_ / "file" / "t").string(), {}, error);
  EXPECT_FALSE(recorder);
  EXPECT_NE(error.find("cannot create the trace directory"), std::string::npos) << error;
}

} // namespace
