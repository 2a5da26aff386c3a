// Real-world MPI programs: Debian's own prebuilt binaries (packages
// netpipe-openmpi, mumps-test, lammps and hpcc, which tools/install-deps.sh
// installs), unmodified, run under the launcher through OpenMPI's Portals 4
// components, with their results checked: NetPIPE's integrity check and
// latency figures, MUMPS's solution of its example system, LAMMPS's thermo
// output (the same as under mpirun), HPCC's residual checks and summary.
//
// A missing program fails its test (it is not skipped). Inputs are in
// mpi_programs/inputs/. Part of e2e_mpi_tests (ctest names e2e.MpiDebian.*,
// labels e2e and mpi).
#include "e2e_test.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

namespace e2e {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::string input(const std::string &name)
{
    return std::string(E2E_MPI_INPUTS_DIR) + "/" + name;
}

::testing::AssertionResult installed(const std::string &path, const std::string &package)
{
    if (fs::exists(path))
        return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << path << " is missing: Debian's " << package
                                         << " package is not installed (tools/install-deps.sh installs it)";
}

// The numbers of a line of whitespace-separated numbers (empty if any word is
// not a number).
std::vector<double> numbers(const std::string &line)
{
    std::istringstream in(line);
    std::vector<double> v;
    std::string word;
    while (in >> word) {
        char *end = nullptr;
        double x = std::strtod(word.c_str(), &end);
        if (end == word.c_str() || *end != '\0')
            return {};
        v.push_back(x);
    }
    return v;
}

class MpiDebian : public E2ETest {
protected:
    // s4bxi-run with args (the marker is appended as the program's last
    // argument), from directory dir, optionally with stdin from a file.
    RunResult run_in(const TempDir &dir, const std::vector<std::string> &args, milliseconds timeout,
                     std::optional<std::string> stdin_file = std::nullopt)
    {
        RunOptions opts;
        opts.timeout = timeout;
        opts.cwd = dir.path();
        opts.stdin_file = std::move(stdin_file);
        return run(args, opts);
    }
};

// ---------------------------------------------------------------------------
// NetPIPE (netpipe-openmpi): ping-pong between two ranks.

const char *const kNetpipe = "/usr/bin/NPopenmpi";

// "  K:  SIZE bytes  REPS times -->  ..." lines on rank 0's stderr.
struct NetpipeLine {
    long size;
    std::string rest;
};
std::vector<NetpipeLine> netpipe_lines(const std::string &text)
{
    static const std::regex re(R"(^\s*[0-9]+:\s+([0-9]+) bytes\s+[0-9]+ times -->\s*(.*)$)");
    std::vector<NetpipeLine> v;
    for (const auto &line : lines(text)) {
        std::smatch m;
        if (std::regex_match(line, m, re))
            v.push_back({std::stol(m[1]), m[2]});
    }
    return v;
}

// Integrity mode: every message from 5 B to 3 MiB + 1 (perturbations of +-1
// and 3 B around each size) checked for content, 10 times.
TEST_F(MpiDebian, NetpipeIntegrity)
{
    ASSERT_TRUE(installed(kNetpipe, "netpipe-openmpi"));
    TempDir dir;
    auto r = run_in(dir, {"-n", "2", kNetpipe, "-i", "-n", "10", "-u", "4194304", "-o", dir.file("np.out")},
                    milliseconds(120000));
    expect_success(r, 2);
    const auto checked = netpipe_lines(r.err + r.out);
    ASSERT_EQ(checked.size(), 40u) << describe(r);
    for (const auto &line : checked)
        EXPECT_EQ(line.rest, "Integrity check passed") << line.size << " B\n" << describe(r);
    EXPECT_EQ(checked.front().size, 5);
    EXPECT_EQ(checked.back().size, 3145729);
    EXPECT_FALSE(icontains(r.out + r.err, "fail")) << describe(r);
}

// The same with s4bxi/run-ahead: while a rank computes (NetPIPE checks each
// message's content between its MPI calls), the simulation goes on up to the
// earliest time of its next call, and never past it. Before, the bound read
// the rank's CPU time after the rank had entered MPI (whose CPU time is not
// compute), and 3 of 8 runs had a call come before it ("runs late"); five
// runs, each with about 400 entries into MPI after a computation.
TEST_F(MpiDebian, NetpipeIntegrityRunningAheadOfComputingRanks)
{
    ASSERT_TRUE(installed(kNetpipe, "netpipe-openmpi"));
    for (int attempt = 0; attempt < 5; ++attempt) {
        TempDir dir;
        auto r = run_in(dir,
                        {"-n", "2", "--cfg=s4bxi/run-ahead:yes", kNetpipe, "-i", "-n", "10", "-u", "4194304", "-o",
                         dir.file("np.out")},
                        milliseconds(120000));
        expect_success(r, 2);
        EXPECT_FALSE(contains(r.err + r.out, "before the time the simulation had gone on to")) << describe(r);
        const auto checked = netpipe_lines(r.err + r.out);
        ASSERT_EQ(checked.size(), 40u) << describe(r);
        for (const auto &line : checked)
            EXPECT_EQ(line.rest, "Integrity check passed") << line.size << " B\n" << describe(r);
        if (HasFailure())
            break;
    }
}

// Performance mode with zero compute (deterministic simulated times): one
// line per size, 1 B to 64 KiB, whose latencies are the model's.
TEST_F(MpiDebian, NetpipeLatency)
{
    ASSERT_TRUE(installed(kNetpipe, "netpipe-openmpi"));
    TempDir dir;
    auto r = run_in(dir,
                    {"-n", "2", "--cfg=s4bxi/compute:none", kNetpipe, "-n", "20", "-u", "65536", "-p", "0", "-o",
                     dir.file("np.out")},
                    milliseconds(120000));
    expect_success(r, 2);
    // Sizes 1, 2, 3, 4, 6, 8, 12, ... 49152, 65536.
    std::vector<long> sizes{1, 2, 3};
    for (long p = 4; p <= 65536; p *= 2) {
        sizes.push_back(p);
        if (p * 3 / 2 < 65536)
            sizes.push_back(p * 3 / 2);
    }
    static const std::regex re(R"(^([0-9.]+) Mbps in\s+([0-9.]+) usec$)");
    const auto measured = netpipe_lines(r.err + r.out);
    ASSERT_EQ(measured.size(), sizes.size()) << describe(r);
    std::vector<double> usec, mbps;
    for (size_t i = 0; i < measured.size(); ++i) {
        EXPECT_EQ(measured[i].size, sizes[i]) << describe(r);
        std::smatch m;
        ASSERT_TRUE(std::regex_match(measured[i].rest, m, re))
            << "unparsable: \"" << measured[i].rest << "\"\n" << describe(r);
        mbps.push_back(std::stod(m[1]));
        usec.push_back(std::stod(m[2]));
        EXPECT_GT(usec.back(), 0.0) << measured[i].size << " B";
    }
    // A few microseconds for one byte (PCIe, NIC, a switch and two links),
    // more for 64 KiB, which stays under the 12.5 GB/s link (NetPIPE's Mbps
    // are 2^20 bits/s).
    EXPECT_GT(usec.front(), 0.5);
    EXPECT_LT(usec.front(), 10.0);
    EXPECT_GT(usec.back(), usec.front());
    EXPECT_LT(mbps.back(), 12.5e9 * 8 / 1048576);
    EXPECT_GT(mbps.back(), mbps.front());
    // The output file has the same sizes.
    const auto saved = lines(read_file(dir.file("np.out")));
    ASSERT_EQ(saved.size(), sizes.size()) << read_file(dir.file("np.out"));
    for (size_t i = 0; i < saved.size(); ++i) {
        const auto v = numbers(saved[i]);
        ASSERT_EQ(v.size(), 3u) << saved[i];
        EXPECT_EQ(static_cast<long>(v[0]), sizes[i]) << saved[i];
    }
}

// ---------------------------------------------------------------------------
// MUMPS (mumps-test): the sparse direct solver's example, a 5x5 system whose
// solution is 1 2 3 4 5, read from stdin by the host rank, solved by 2 ranks.

TEST_F(MpiDebian, MumpsSimpleTest)
{
    const std::string program = "/usr/lib/mumps/dsimpletest";
    const std::string system = "/usr/lib/mumps/input_simpletest_real";
    ASSERT_TRUE(installed(program, "mumps-test"));
    ASSERT_TRUE(installed(system, "mumps-test"));
    TempDir dir;
    auto r = run_in(dir, {"-n", "2", program}, milliseconds(120000), system);
    expect_success(r, 2);
    static const std::regex mpi_re(R"(executing #MPI =\s+2\b)");
    EXPECT_TRUE(std::regex_search(r.out, mpi_re)) << "MUMPS did not see 2 MPI processes\n" << describe(r);
    std::optional<std::vector<double>> solution;
    for (const auto &line : lines(r.out)) {
        const auto at = line.find("Solution is");
        if (at != std::string::npos)
            solution = numbers(line.substr(at + 11));
    }
    ASSERT_TRUE(solution.has_value()) << "no \"Solution is\" line\n" << describe(r);
    ASSERT_EQ(solution->size(), 5u) << describe(r);
    for (size_t i = 0; i < 5; ++i)
        EXPECT_NEAR((*solution)[i], static_cast<double>(i + 1), 1e-10) << "x" << i + 1 << "\n" << describe(r);
}

// ---------------------------------------------------------------------------
// LAMMPS (lammps): molecular dynamics of 4000 Lennard-Jones atoms on a 1x2x2
// grid of ranks (inputs/in.lj). The thermodynamics are those of the same run
// under mpirun on 4 ranks, to the 8 printed digits: ghost-atom exchanges and
// reductions carried the right data.

TEST_F(MpiDebian, LammpsLennardJones)
{
    const std::string program = "/usr/bin/lmp";
    ASSERT_TRUE(installed(program, "lammps"));
    TempDir dir;
    // "-var marker" swallows the marker that run() appends (LAMMPS refuses an
    // unknown argument).
    auto r = run_in(dir, {"-n", "4", program, "-in", input("in.lj"), "-var", "marker"}, milliseconds(120000));
    expect_success(r, 4);
    EXPECT_TRUE(contains(r.out, "1 by 2 by 2 MPI processor grid")) << describe(r);
    EXPECT_TRUE(contains(r.out, "on 4 procs for 100 steps with 4000 atoms")) << describe(r);
    // Step Temp E_pair E_mol TotEng Press
    const std::map<int, std::vector<double>> expected{
        {0, {3, -6.7733681, 0, -2.2744931, -3.7033504}},
        {100, {1.6712577, -4.7875609, 0, -2.281301, 5.6613913}},
    };
    std::map<int, std::vector<double>> thermo;
    bool in_thermo = false;
    for (const auto &line : lines(r.out)) {
        if (line.rfind("Step Temp E_pair E_mol TotEng Press", 0) == 0) {
            in_thermo = true;
            continue;
        }
        if (!in_thermo)
            continue;
        auto v = numbers(line);
        if (v.size() != 6)
            break;
        thermo[static_cast<int>(v[0])] = std::vector<double>(v.begin() + 1, v.end());
    }
    const char *const names[] = {"Temp", "E_pair", "E_mol", "TotEng", "Press"};
    for (const auto &[step, values] : expected) {
        ASSERT_TRUE(thermo.count(step)) << "no thermo line for step " << step << "\n" << describe(r);
        for (size_t i = 0; i < values.size(); ++i)
            EXPECT_NEAR(thermo[step][i], values[i], 1e-9)
                << "step " << step << " " << names[i] << "\n" << describe(r);
    }
}

// ---------------------------------------------------------------------------
// HPCC (hpcc): the HPC Challenge suite (HPL, DGEMM, STREAM, PTRANS,
// RandomAccess, FFT, latency and bandwidth) on a 1x2 grid. inputs/hpccinf.txt
// is Debian's example with N 100 and NB 20: the sizes of the other benchmarks
// follow from N (the memory HPL uses), except the latency and bandwidth
// tests' (fixed: about 1.8 GB over 45000 messages), which take most of the
// run.

TEST_F(MpiDebian, HpccSmall)
{
    const std::string program = "/usr/bin/hpcc";
    ASSERT_TRUE(installed(program, "hpcc"));
    TempDir dir;
    fs::copy_file(input("hpccinf.txt"), dir.file("hpccinf.txt"));
    auto r = run_in(dir, {"-n", "2", program}, milliseconds(240000));
    expect_success(r, 2);
    const std::string out = read_file(dir.file("hpccoutf.txt"));
    ASSERT_TRUE(contains(out, "End of HPC Challenge tests.")) << "hpccoutf.txt:\n"
                                                              << out.substr(0, 8000) << "\n" << describe(r);
    bool residual_seen = false;
    for (const auto &line : lines(out))
        if (contains(line, "||Ax-b||_oo/(eps*")) {
            residual_seen = true;
            EXPECT_TRUE(contains(line, "PASSED")) << "HPL residual check: " << line;
        }
    EXPECT_TRUE(residual_seen) << "no HPL residual line in hpccoutf.txt:\n" << out;
    EXPECT_TRUE(contains(out, "1 tests completed and passed residual checks")) << out;
    EXPECT_FALSE(contains(out, "FAILED") || contains(out, "(failed)")) << out;

    const auto begin = out.find("Begin of Summary section.");
    const auto end = out.find("End of Summary section.");
    ASSERT_TRUE(begin != std::string::npos && end != std::string::npos && begin < end) << out;
    std::map<std::string, std::string> summary;
    for (const auto &line : lines(out.substr(begin, end - begin))) {
        const auto eq = line.find('=');
        if (eq != std::string::npos)
            summary[line.substr(0, eq)] = line.substr(eq + 1);
    }
    auto value = [&](const std::string &key) -> double {
        auto it = summary.find(key);
        EXPECT_TRUE(it != summary.end()) << "no " << key << " in the summary of hpccoutf.txt";
        return it == summary.end() ? std::nan("") : std::atof(it->second.c_str());
    };
    EXPECT_EQ(value("Success"), 1);
    EXPECT_EQ(value("CommWorldProcs"), 2);
    EXPECT_EQ(value("HPL_N"), 100);
    EXPECT_EQ(value("HPL_nprow"), 1);
    EXPECT_EQ(value("HPL_npcol"), 2);
    EXPECT_EQ(value("MPIFFT_Procs"), 2);
    for (const char *key :
         {"HPL_Tflops", "StarDGEMM_Gflops", "PTRANS_GBs", "MPIRandomAccess_GUPs", "MPIRandomAccess_LCG_GUPs",
          "StarSTREAM_Triad", "MPIFFT_Gflops", "StarFFT_Gflops", "MinPingPongLatency_usec",
          "RandomlyOrderedRingLatency_usec", "NaturallyOrderedRingLatency_usec", "MinPingPongBandwidth_GBytes",
          "RandomlyOrderedRingBandwidth_GBytes"}) {
        const double v = value(key);
        EXPECT_GT(v, 0.0) << key;
    }
    // The distributed FFT's data went through the network intact; the
    // bandwidths stay under the 12.5 GB/s link.
    EXPECT_LT(value("MPIFFT_maxErr"), 1e-12);
    EXPECT_LT(value("MaxPingPongBandwidth_GBytes"), 12.5);
}

} // namespace
} // namespace e2e
