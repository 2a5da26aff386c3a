// Python MPI programs (mpi4py, Debian's python3-mpi4py over Debian's OpenMPI)
// run under the real launcher with no option: python3 links no libmpi, so the
// launcher finds OpenMPI through mpi4py's module (tools/python_mpi.hpp). The
// programs (mpi_programs/*.py, conventions of mpi_check.h through
// mpi_check.py) run from the source tree; so does Debian's benchmark module
// mpi4py.bench, an interpreter wrapper script, and a script that hides its
// interpreter (--mpi on).
#include "e2e_test.hpp"
#include "json_lite.hpp"

#include <cstdlib>
#include <filesystem>
#include <regex>

namespace e2e {
namespace {

namespace fs = std::filesystem;

// Debian's interpreter and the mpi4py python3-mpi4py installs for it (not
// whichever python3 comes first in PATH: a pyenv shim has no mpi4py).
const char *const kPython = "/usr/bin/python3";
const char *const kMpi4py = "/usr/lib/python3/dist-packages/mpi4py";

std::string script(const std::string &name)
{
    return std::string(E2E_MPI_SOURCE_DIR) + "/" + name;
}

class PythonMpi : public E2ETest {
protected:
    void SetUp() override
    {
        E2ETest::SetUp();
        // Not a skip: tools/install-deps.sh installs it, so its absence is a
        // broken set-up, which must show.
        ASSERT_TRUE(fs::exists(kMpi4py)) << "python3-mpi4py is not installed (" << kMpi4py
                                         << " is missing): run tools/install-deps.sh, which installs it";
    }

    // Exit status 0, the summary, the OK line, no FAIL, and none of the
    // lines OpenMPI's PSM libraries print when they are loaded ("RTC
    // timebase": they time the cycle counter against the simulated clock).
    void expect_ok(const RunResult &r, int nranks, const std::string &ok)
    {
        expect_success(r, nranks);
        const auto out = lines(r.out);
        EXPECT_TRUE(std::find(out.begin(), out.end(), "OK " + ok) != out.end()) << "no line OK " << ok << "\n"
                                                                                 << describe(r);
        EXPECT_FALSE(contains(r.out, "FAIL") || contains(r.err, "FAIL")) << describe(r);
        EXPECT_FALSE(contains(r.out + r.err, "RTC timebase")) << describe(r);
    }

    // A program of mpi_programs/ on nranks, given the rank count to check.
    RunResult run_script(const std::string &name, int nranks, std::vector<std::string> options = {})
    {
        const std::string n = std::to_string(nranks);
        options.insert(options.begin(), {"-n", n});
        options.insert(options.end(), {kPython, script(name), n});
        return run(options);
    }

    void expect_layer_is_mpi(const std::string &report)
    {
        std::string error;
        auto doc = json::parse(read_file(report), &error);
        ASSERT_TRUE(doc && doc->is_object()) << error;
        const json::Value *layer = doc->get("layer");
        ASSERT_TRUE(layer && layer->kind == json::Value::Kind::String) << read_file(report);
        EXPECT_EQ(layer->string.rfind("MPI", 0), 0u) << "layer \"" << layer->string << "\"";
        EXPECT_GT(doc->get("totals")->get("messages")->number, 0.0) << read_file(report);
    }
};

// One job of N ranks (not N one-rank jobs): each rank names its simulated node.
TEST_F(PythonMpi, HelloTwoRanks)
{
    auto r = run_script("mpi_hello.py", 2);
    expect_ok(r, 2, "hello 2 ranks");
    for (int rank = 0; rank < 2; ++rank)
        EXPECT_TRUE(contains(r.out, "rank " + std::to_string(rank) + " of 2 on node" + std::to_string(rank) + "\n"))
            << describe(r);
}

TEST_F(PythonMpi, HelloFourRanks)
{
    auto r = run_script("mpi_hello.py", 4);
    expect_ok(r, 4, "hello 4 ranks");
    for (int rank = 0; rank < 4; ++rank)
        EXPECT_TRUE(contains(r.out, "rank " + std::to_string(rank) + " of 4 on node" + std::to_string(rank % 2) + "\n"))
            << describe(r);
}

TEST_F(PythonMpi, RingTwoRanks)
{
    TempDir dir;
    auto r = run_script("mpi_ring.py", 2, {"--report", dir.file("run.json")});
    expect_ok(r, 2, "ring 2 ranks");
    expect_layer_is_mpi(dir.file("run.json"));
}

TEST_F(PythonMpi, RingFourRanks)
{
    expect_ok(run_script("mpi_ring.py", 4), 4, "ring 4 ranks");
}

TEST_F(PythonMpi, CollectivesTwoRanks)
{
    expect_ok(run_script("mpi_collectives.py", 2), 2, "collectives 2 ranks");
}

TEST_F(PythonMpi, CollectivesFourRanks)
{
    expect_ok(run_script("mpi_collectives.py", 4), 4, "collectives 4 ranks");
}

// Debian's benchmark module: 50 laps of 4 KiB around 4 ranks (after 5 of
// warm-up), timed with MPI.Wtime, so in simulated time. Its options take no
// stray argument, so the harness's marker goes in a -X option of the
// interpreter, which Python keeps and ignores.
TEST_F(PythonMpi, BenchRingtestFourRanks)
{
    TempDir dir;
    auto r = run_s4bxi({"-n", "4", "--report", dir.file("run.json"), kPython, "-X", marker_, "-m", "mpi4py.bench",
                        "ringtest", "-n", "4096", "-s", "5", "-l", "50"});
    EXPECT_FALSE(r.timed_out) << describe(r);
    expect_success(r, 4);
    std::smatch match;
    ASSERT_TRUE(std::regex_search(r.out, match,
                                  std::regex(R"(time for 50 loops = (\S+) seconds \(4 processes, 4096 bytes\))")))
        << describe(r);
    // 200 messages of 4 KiB: more than 200 one-way latencies, far less than a second.
    const double seconds = std::stod(match[1]);
    EXPECT_GT(seconds, 200 * 1e-6) << describe(r);
    EXPECT_LT(seconds, 1.0) << describe(r);
    EXPECT_FALSE(contains(r.out + r.err, "RTC timebase")) << describe(r);
    expect_layer_is_mpi(dir.file("run.json"));
}

// A shell script that execs python3 (found in PATH, here Debian's): the
// launcher reads the script and sets MPI up, -v says why.
TEST_F(PythonMpi, InterpreterWrapperScript)
{
    const char *path = std::getenv("PATH");
    auto r = run_with_env({"PATH=" + fs::path(kPython).parent_path().string() + ":" + (path ? path : "")},
                          {"-v", "-n", "2", script("python_wrapper.sh"), script("mpi_hello.py"), "2"});
    expect_ok(r, 2, "hello 2 ranks");
    EXPECT_TRUE(contains(r.err, "runs Python (it runs python3) and mpi4py")) << describe(r);
}

// A script whose interpreter the launcher cannot see: --mpi on.
TEST_F(PythonMpi, HiddenInterpreterRunsWithMpiOn)
{
    auto r = run_with_env({std::string("S4BXI_TEST_INTERPRETER=") + kPython},
                          {"--mpi", "on", "-n", "2", script("hidden_interpreter.sh"), script("mpi_ring.py"), "2"});
    expect_ok(r, 2, "ring 2 ranks");
}

// --mca reaches a Python program: an eager limit of 4 KiB makes the ring's
// 64 KiB buffers go by rendezvous.
TEST_F(PythonMpi, McaOptionIsPassed)
{
    auto r = run_script("mpi_ring.py", 2, {"-v", "--mca", "mtl_portals4_eager_limit", "4096"});
    expect_ok(r, 2, "ring 2 ranks");
    EXPECT_TRUE(contains(r.err, "s4bxi-run: OMPI_MCA_mtl_portals4_eager_limit=4096\n")) << describe(r);
}

// A Python program that does not use MPI runs as before under the set-up.
TEST_F(PythonMpi, PythonWithoutMpiRuns)
{
    // (One write per line: print() makes one per word and one for the newline
    // when Python's output is unbuffered, PYTHONUNBUFFERED, and the two ranks
    // share the pipe.)
    auto r = run({"-n", "2", kPython, "-c",
                  "import os, sys; sys.stdout.write('plain %s\\n' % os.environ['PMI_RANK']); sys.stdout.flush()"});
    expect_success(r, 2);
    EXPECT_TRUE(contains(r.out, "plain 0\n") && contains(r.out, "plain 1\n")) << describe(r);
}

// --mpi off and --mca contradict each other.
TEST_F(PythonMpi, McaWithMpiOffIsAUsageError)
{
    auto r = run({"--mpi", "off", "--mca", "btl", "self", "-n", "2", kPython, script("mpi_hello.py")});
    expect_usage_error(r, "--mpi off");
}

} // namespace
} // namespace e2e
