// Bad values, wherever they come from (a platform file, --cfg, --log, --gdb,
// a fattree: specification, the program itself): one sentence on stderr
// starting with "s4bxi-run: " that names the value, exit status 2, and never
// an abort (SimGrid's backtrace, exit 134), a hang, or anything left behind.
// A report or trace that cannot be written is an error too.
#include "e2e_test.hpp"
#include "json_lite.hpp"
#include "s4bxi_platforms.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <thread>

namespace e2e {
namespace {

class RobustValues : public E2ETest {
protected:
    // rank_env on 2 ranks with `options` before it.
    RunResult run_rank_env(std::vector<std::string> options, std::chrono::milliseconds timeout = std::chrono::seconds(30))
    {
        options.insert(options.end(), {"-n", "2", program("rank_env")});
        RunOptions limits;
        limits.timeout = timeout;
        return run(options, limits);
    }

    RunResult run_on_platform(const StarValues &values)
    {
        platform_ = s4bxi_star_platform(values);
        const std::string file = dir_.file("platform.xml");
        write_file(file, platform_);
        return run_rank_env({"--platform", file});
    }

    TempDir dir_;
    std::string platform_;
};

// Platform files ---------------------------------------------------------

TEST_F(RobustValues, PlatformHostWithZeroCores)
{
    expect_usage_error(run_on_platform({.cores = "0"}), "core");
}

TEST_F(RobustValues, PlatformLinkWithNegativeBandwidth)
{
    expect_usage_error(run_on_platform({.bxi_bandwidth = "-1GBps"}), "bandwidth");
}

TEST_F(RobustValues, PlatformLinkWithZeroBandwidth)
{
    expect_usage_error(run_on_platform({.bxi_bandwidth = "0Bps"}), "bandwidth");
}

TEST_F(RobustValues, PlatformLinkWithNegativeLatency)
{
    expect_usage_error(run_on_platform({.bxi_latency = "-5ns"}), "latency");
}

// --cfg, --log ------------------------------------------------------------

TEST_F(RobustValues, CfgNotANumber)
{
    expect_usage_error(run_rank_env({"--cfg=s4bxi/nic-tx-delay:nan"}), "nic-tx-delay");
}

TEST_F(RobustValues, CfgWithoutValue)
{
    expect_usage_error(run_rank_env({"--cfg=s4bxi/cpu-factor"}), "cpu-factor");
}

TEST_F(RobustValues, CfgAbsurdActorCount)
{
    // Used to start a hundred million actors, deaf to SIGTERM meanwhile.
    expect_usage_error(run_rank_env({"--cfg=s4bxi/tx-actors:100000000"}), "tx-actors");
}

TEST_F(RobustValues, LogUnknownThreshold)
{
    expect_usage_error(run_rank_env({"--log=foo.thres:bar"}), "bar");
}

TEST_F(RobustValues, LogWithoutSetting)
{
    expect_usage_error(run_rank_env({"--log=s4bxi_nic"}), "s4bxi_nic");
}

// The limits are stated where users look for them.
TEST_F(RobustValues, HelpCfgStatesLimits)
{
    auto r = run_s4bxi({"--help-cfg"});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    for (const auto &line : lines(r.out)) {
        if (contains(line, "s4bxi/tx-actors")) {
            EXPECT_TRUE(contains(line, "1 to ")) << "no range in: " << line;
        }
    }
}

// --gdb, fattree: ---------------------------------------------------------

TEST_F(RobustValues, GdbHugeRankRange)
{
    // Used to end in std::bad_alloc (a billion ranks listed one by one).
    expect_usage_error(run_rank_env({"--gdb", "0-999999999"}), "gdb");
}

TEST_F(RobustValues, FatTreeWithAbsurdNodeCount)
{
    // A billion nodes: used to hang while SimGrid built them.
    auto r = run_rank_env({"--platform", "fattree:3;1000,1000,1000;1,1,1;1,1,1"});
    expect_usage_error(r, "nodes");
}

TEST_F(RobustValues, FatTreeWithAbsurdParallelLinks)
{
    auto r = run_rank_env({"--platform", "fattree:2;2,2;1,1000000;1,1000000"});
    expect_usage_error(r, "fat-tree");
}

// Programs ------------------------------------------------------------------

// A minimal i386 executable, dynamically linked (a PT_INTERP naming the
// 32-bit loader), whose code exits 0: what a program built with -m32 looks
// like to the launcher, without needing a 32-bit toolchain.
void write_32bit_executable(const std::string &path)
{
    std::string elf;
    auto u8 = [&](uint8_t v) { elf.push_back(static_cast<char>(v)); };
    auto u16 = [&](uint16_t v) { u8(v & 0xFF); u8(v >> 8); };
    auto u32 = [&](uint32_t v) { u16(v & 0xFFFF); u16(v >> 16); };
    const uint32_t base = 0x08048000, header = 52, phdrs = 2 * 32, interp_at = header + phdrs;
    const std::string interp = "/lib/ld-linux.so.2";
    const uint32_t code_at = interp_at + static_cast<uint32_t>(interp.size()) + 1;
    const uint8_t code[] = {0xb8, 0x01, 0, 0, 0, 0x31, 0xdb, 0xcd, 0x80}; // exit(0)
    const uint32_t total = code_at + sizeof code;
    for (int b : {0x7f, int('E'), int('L'), int('F'), 1 /*32-bit*/, 1 /*LSB*/, 1 /*version*/, 0})
        u8(static_cast<uint8_t>(b));
    elf.append(8, '\0');
    u16(2); u16(3); u32(1); u32(base + code_at); u32(header); u32(0); u32(0);
    u16(header); u16(32); u16(2); u16(40); u16(0); u16(0);
    // PT_INTERP, then PT_LOAD of the whole file (read, execute).
    u32(3); u32(interp_at); u32(base + interp_at); u32(base + interp_at);
    u32(static_cast<uint32_t>(interp.size()) + 1); u32(static_cast<uint32_t>(interp.size()) + 1); u32(4); u32(1);
    u32(1); u32(0); u32(base); u32(base); u32(total); u32(total); u32(5); u32(0x1000);
    elf += interp;
    elf.push_back('\0');
    elf.append(reinterpret_cast<const char *>(code), sizeof code);
    write_file(path, elf);
    chmod(path.c_str(), 0755);
}

TEST_F(RobustValues, ThirtyTwoBitProgram)
{
    const std::string program32 = dir_.file("prog32");
    write_32bit_executable(program32);
    auto r = run({"-n", "2", program32});
    expect_usage_error(r, "32-bit");
}

// --report, --trace -----------------------------------------------------

// The run itself went well, but its report is lost: not a success, and one
// sentence about the report.
void expect_report_error(const RunResult &r, const std::string &path)
{
    EXPECT_NE(r.exit_code, 0) << describe(r);
    EXPECT_FALSE(contains(r.err, "Backtrace")) << describe(r);
    int sentences = 0;
    for (const auto &line : lines(r.err))
        if (contains(line, "report"))
            ++sentences;
    EXPECT_EQ(sentences, 1) << "one sentence about the report\n" << describe(r);
    EXPECT_TRUE(contains(r.err, "s4bxi-run: ") && contains(r.err, path)) << describe(r);
}

TEST_F(RobustValues, ReportOnFullDevice)
{
    expect_report_error(run_rank_env({"--report", "/dev/full"}), "/dev/full");
}

TEST_F(RobustValues, ReportIsADirectory)
{
    auto r = run_rank_env({"--report", dir_.path()});
    expect_usage_error(r, "report");
}

TEST_F(RobustValues, ReportWithoutPermission)
{
    std::string path;
    if (geteuid() != 0) {
        const std::string closed = dir_.file("closed");
        mkdir(closed.c_str(), 0555);
        path = closed + "/report.json";
    } else {
        // Root writes anywhere permissions allow nothing; a read-only sysfs
        // attribute still refuses it.
        path = "/sys/kernel/notes";
        if (access(path.c_str(), F_OK) != 0 || open(path.c_str(), O_WRONLY) >= 0)
            GTEST_SKIP() << "no file that root cannot write";
    }
    auto r = run_rank_env({"--report", path});
    expect_usage_error(r, "report");
}

// A second job given the trace directory of a job still running is refused;
// the first one's trace stays whole.
TEST_F(RobustValues, TwoJobsOneTraceDirectory)
{
    const std::string trace = dir_.file("trace");
    RunResult first;
    std::thread first_job([&] {
        first = run({"-n", "1", "--trace", trace, program("busy_compute"), "3"});
    });
    // The first job has opened its trace once trace.json exists.
    for (int i = 0; i < 200 && access((trace + "/trace.json").c_str(), F_OK) != 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    auto second = run({"-n", "1", "--trace", trace, program("busy_compute"), "0.01"});
    first_job.join();
    expect_usage_error(second, "trace");
    expect_success(first, 1);
    std::string error;
    EXPECT_TRUE(json::parse(read_file(trace + "/trace.json"), &error).has_value()) << error;
    const auto csv = lines(read_file(trace + "/events.csv"));
    ASSERT_FALSE(csv.empty());
    int headers = 0;
    for (const auto &line : csv)
        headers += line.rfind("kind,", 0) == 0 ? 1 : 0;
    EXPECT_EQ(headers, 1) << "events.csv of two runs interleaved";
}

} // namespace
} // namespace e2e
