// OpenSHMEM programs (issue 21): Sandia OpenSHMEM's own unit tests, C and
// C++ (modules/tests-sos: test/unit and test/shmemx), unmodified, built
// against our libportals (shmem/CMakeLists.txt) and run under s4bxi-run on 2
// and 4 ranks, one ctest each. The expected result is SOS's own criterion
// (its `make check`): every rank exits 0; and the job ends with its summary,
// the ABI read from libsma.so without a guess.
//
// Every test SOS builds runs, its multithreaded ones included (mt_*,
// threading, web, gettid_register: each thread has its own lane to the
// server, issue 20).
// Without SOS (its tarball is absent from a clone outside the team, or
// tools/install-deps.sh has not prepared it), every test is skipped with the
// reason. Part of e2e_shmem_tests (ctest names e2e.Sos/Shmem.*, labels e2e
// and shmem).
#include "e2e_test.hpp"

#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

namespace e2e {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// In SOS's order (test/unit/Makefile.am: its C tests, global_exit, the C++
// tests, the threaded tests; no Fortran).
const char *const kUnitTests[] = {
    "hello", "pi", "micro_unit_shmem", "circular_shift", "accessible_ping", "max_reduction", "big_reduction",
    "to_all", "strided_put", "barrier", "bcast", "put1", "get1", "swap1", "ping", "pingpong", "shmalloc",
    "shmem_calloc", "shrealloc", "shmemalign", "get_g", "iput32", "iput64", "iput128", "iput_short",
    "iput_double", "iput_float", "iput_long", "iput_longdouble", "iput_longlong", "sping", "pingpong-short",
    "ipgm", "iput-iget", "swapm", "cswap", "waituntil", "atomic_inc", "set_lock", "test_lock",
    "test_lock_cswap", "fcollect64", "bigput", "bigget", "ns", "bcast_flood", "lfinc", "shmem_info",
    "query_thread", "set_fetch", "alltoall", "alltoalls", "c11_test_shmem_g", "c11_test_shmem_get",
    "c11_test_shmem_p", "c11_test_shmem_put", "c11_test_shmem_put_signal", "c11_test_shmem_atomic_fetch",
    "c11_test_shmem_atomic_set", "c11_test_shmem_atomic_add", "c11_test_shmem_atomic_inc",
    "c11_test_shmem_atomic_and", "c11_test_shmem_atomic_or", "c11_test_shmem_atomic_xor",
    "c11_test_shmem_atomic_swap", "c11_test_shmem_atomic_cswap", "c11_test_shmem_wait_until",
    "c11_test_shmem_wait_until_vector", "c11_shmem_wait_until_all_any_some", "c11_test_shmem_test",
    "c11_shmem_test_vector", "c11_shmem_test_all_any_some", "c11_shmem_team_collective_types",
    "c11_shmem_team_reduce", "get_nbi", "put_nbi", "rma_coverage", "collect", "repeated_barriers",
    "repeated_syncs", "broadcast_active_set", "reduce_active_set", "reduce_in_place", "bcast_in_place",
    "collect_active_set", "atomic_bitwise", "nop_collectives", "self_collectives", "zero_comm", "sync-size",
    "many-ctx", "shmem_test", "shmem_ptr", "shmem_team_ptr", "shmem_malloc_with_hints", "put_signal",
    "put_signal_nbi", "signal_fetch", "signal_wait_until", "shmem_team_b2b_collectives",
    "shmem_team_collect_active_set", "shmem_team_max", "shmem_team_reuse_teams", "shmem_team_shared",
    "shmem_team_split_2d", "shmem_team_translate", "shmem_team_reduce", "shmem_team_get_config",
    "shmem_team_negative_stride", "shmem_ctx_get_team", "atomic_nbi", "fadd_nbi", "global_exit",
    "cxx_test_shmem_complex", "cxx_test_shmem_g", "cxx_test_shmem_get", "cxx_test_shmem_p",
    "cxx_test_shmem_put", "cxx_test_shmem_atomic_fetch", "cxx_test_shmem_atomic_set",
    "cxx_test_shmem_atomic_add", "cxx_test_shmem_atomic_inc", "cxx_test_shmem_atomic_and",
    "cxx_test_shmem_atomic_or", "cxx_test_shmem_atomic_xor", "cxx_test_shmem_atomic_swap",
    "cxx_test_shmem_atomic_cswap", "cxx_test_shmem_wait_until", "cxx_test_shmem_test",
    "cxx_test_shmem_bitwise_reduce", "cxx_test_shmem_max_min_reduce", "cxx_test_shmem_sum_prod_reduce",
    "cxx_shmem_test_all", "mt_a2a", "mt_contention", "mt_membar", "mt_lock_test", "threading", "web",
    "thread_wait", "query_thread_funneled"
};

// test/shmemx/Makefile.am, less in_scan, ex_scan and scan_in_place: that
// test commit calls scan functions of a newer SOS, which do not link.
const char *const kShmemxTests[] = {
    "shmem_ct", "c11_test_shmem_ibput", "c11_test_shmem_ibget", "perf_counter", "shmemx_team_node",
    "shmem_malloc_with_hints", "signal_add", "signal_set", "gettid_register", "cxx_test_shmem_g",
    "cxx_test_shmem_get", "cxx_test_shmem_ibget", "cxx_test_shmem_p", "cxx_test_shmem_put",
    "cxx_test_shmem_ibput", "cxx_test_shmem_atomic_fetch", "cxx_test_shmem_atomic_set",
    "cxx_test_shmem_atomic_add", "cxx_test_shmem_atomic_inc", "cxx_test_shmem_atomic_and",
    "cxx_test_shmem_atomic_or", "cxx_test_shmem_atomic_xor", "cxx_test_shmem_atomic_swap",
    "cxx_test_shmem_atomic_cswap", "cxx_test_shmem_wait_until", "cxx_test_shmem_test"
};

// Several threads of one rank communicating at once (the mt_ tests,
// threading, web, gettid_register) need each thread's calls to go their own
// way to the server: each thread has a lane of its own (issue 20).

// bigget's 1,000 Gets copy gigabytes between the rank processes (over a
// minute of wall time here); 100, bigput's own default, take the same path.
const std::map<std::string, std::vector<std::string>> kArguments = {
    {"unit/bigget", {"-l", "100"}},
};

struct SosRun {
    std::string dir;  // unit or shmemx
    std::string name; // the program
    int ranks = 2;
};

// gtest prints the parameter in failure messages and test listings.
void PrintTo(const SosRun &run, std::ostream *out)
{
    *out << run.dir << "/" << run.name << " on " << run.ranks << " ranks";
}

// Every test, on 2 and on 4 ranks.
std::vector<SosRun> runs()
{
    std::vector<SosRun> selected;
    for (int ranks : {2, 4}) {
        for (const char *name : kUnitTests)
            selected.push_back({"unit", name, ranks});
        for (const char *name : kShmemxTests)
            selected.push_back({"shmemx", name, ranks});
    }
    return selected;
}

// unit_hello_2ranks (gtest names allow no '-').
std::string run_name(const ::testing::TestParamInfo<SosRun> &info)
{
    std::string name = info.param.dir + "_" + info.param.name + "_" + std::to_string(info.param.ranks) + "ranks";
    for (char &c : name)
        if (c == '-')
            c = '_';
    return name;
}

bool sos_built()
{
#ifdef E2E_SOS_TESTS_DIR
    return true;
#else
    return false;
#endif
}

std::string sos_tests_dir()
{
#ifdef E2E_SOS_TESTS_DIR
    return E2E_SOS_TESTS_DIR;
#else
    return "";
#endif
}

class Shmem : public E2ETest, public ::testing::WithParamInterface<SosRun> {
protected:
    void SetUp() override
    {
        E2ETest::SetUp();
        if (not sos_built())
            GTEST_SKIP() << "Sandia OpenSHMEM is not built (" << E2E_SOS_SKIP_REASON
                         << "), so its tests are skipped";
    }
};

TEST_P(Shmem, Runs)
{
    const SosRun &sos = GetParam();
    const std::string key = sos.dir + "/" + sos.name;
    const fs::path built = fs::path(sos_tests_dir()) / sos.dir / sos.name;
    ASSERT_TRUE(fs::exists(built)) << "SOS's test " << key << " was not built (" << built.string() << ")";
    // The rank processes carry the test's marker in their command line (it is
    // checked that none survives): in argv[0], through a symbolic link, as
    // many of SOS's tests read their positional arguments.
    TempDir dir;
    const fs::path link = fs::path(dir.path()) / (marker_ + "." + sos.name);
    fs::create_symlink(built, link);
    std::vector<std::string> args = {"-n", std::to_string(sos.ranks), link.string()};
    if (auto extra = kArguments.find(key); extra != kArguments.end())
        args.insert(args.end(), extra->second.begin(), extra->second.end());
    RunOptions options;
    options.timeout = milliseconds(100000);
    options.cwd = dir.path();
    const RunResult r = run_s4bxi(args, options);
    ASSERT_FALSE(r.timed_out) << "the run did not finish in time and was killed\n" << describe(r);
    expect_success(r, sos.ranks);
    EXPECT_FALSE(contains(r.err, "s4bxi-run: ABI ")) << "the ABI was guessed\n" << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Sos, Shmem, ::testing::ValuesIn(runs()), run_name);

// Every test SOS built is in the lists above (nothing left out by mistake),
// and every test listed was built.
class ShmemSuite : public E2ETest {};

TEST_F(ShmemSuite, EveryBuiltTestIsListed)
{
    if (not sos_built())
        GTEST_SKIP() << "Sandia OpenSHMEM is not built (" << E2E_SOS_SKIP_REASON << "), so its tests are skipped";
    const std::pair<std::string, std::set<std::string>> lists[] = {
        {"unit", {std::begin(kUnitTests), std::end(kUnitTests)}},
        {"shmemx", {std::begin(kShmemxTests), std::end(kShmemxTests)}},
    };
    for (const auto &[dir, listed] : lists) {
        std::set<std::string> built; // SOS's programs: executable files without an extension
        for (const auto &entry : fs::directory_iterator(fs::path(sos_tests_dir()) / dir))
            if (entry.is_regular_file() && access(entry.path().c_str(), X_OK) == 0 && entry.path().extension().empty())
                built.insert(entry.path().filename().string());
        EXPECT_EQ(built, listed) << "SOS's test/" << dir << " and the lists of test_shmem.cpp differ";
    }
}

} // namespace
} // namespace e2e
