// MPI runs that must never be lost (label reliability): start-up whatever the
// machine's load, and Open MPI's session directories removed, however the run
// ends, without touching anything else.
#include "e2e_test.hpp"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <set>

namespace e2e {
namespace {

namespace fs = std::filesystem;

// Entries of `dir` whose name starts with s4bxi-ompi-.
std::vector<std::string> session_directories(const std::string &dir)
{
    std::vector<std::string> found;
    for (const auto &entry : fs::directory_iterator(dir))
        if (entry.path().filename().string().rfind("s4bxi-ompi-", 0) == 0)
            found.push_back(entry.path().filename().string());
    return found;
}

class RobustMpi : public E2ETest {};

// Ranks parked as soon as they sleep in the kernel (Open MPI's start-up reads
// sockets and waits on its threads' futexes) still get every PMI answer: a
// loaded machine made about one start-up in ten hang when a parked rank was
// woken for a Portals call or its end, never for PMI data.
TEST_F(RobustMpi, StartUpWithRanksParkedAtOnce)
{
    RunOptions options;
    options.timeout = std::chrono::seconds(60);
    for (int attempt = 0; attempt < 3; ++attempt) {
        auto r = run({"-n", "4", "--cfg=s4bxi/park-after:0.001", mpi_program("mpi_hello")}, options);
        expect_success(r, 4);
        EXPECT_TRUE(contains(r.out, "rank 3 of 4")) << describe(r);
        if (HasFailure())
            return;
    }
}

// The run's session directory is made in TMPDIR and removed at the end;
// one left by a server killed with SIGKILL is removed by the next run.
TEST_F(RobustMpi, SessionDirectoryIsRemovedEvenAfterAKill)
{
    TempDir tmp;
    auto r = run_command({"/usr/bin/env", "TMPDIR=" + tmp.path(), launcher(), "-n", "2", mpi_program("mpi_hello"), marker_});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(session_directories(tmp.path()).empty()) << describe(r);

    // A job that runs until it is killed (a ping-pong of 10^8 round trips),
    // killed once Open MPI is up.
    RunOptions kill_it;
    kill_it.signal = SIGKILL;
    kill_it.signal_after = std::chrono::milliseconds(3000);
    r = run_command({"/usr/bin/env", "TMPDIR=" + tmp.path(), launcher(), "-n", "2", mpi_program("mpi_wtime"), "100000000",
                     marker_},
                    kill_it);
    EXPECT_EQ(r.term_signal, SIGKILL) << describe(r);
    EXPECT_EQ(session_directories(tmp.path()).size(), 1U) << describe(r);
    // The ranks die with their server; then any run cleans up after it.
    for (int i = 0; i < 50 && not processes_with(marker_).empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    r = run_command({"/usr/bin/env", "TMPDIR=" + tmp.path(), launcher(), "-n", "2", example("pingpong"), "-m", "4096", "-i",
                     "5", marker_});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_TRUE(session_directories(tmp.path()).empty()) << describe(r);
}

// The groups of a deadlock sentence, "rank 0 ...; ranks 1-3 ...", each with
// the ranks it names.
std::vector<std::pair<std::vector<int>, std::string>> deadlock_groups(const std::string &err)
{
    std::vector<std::pair<std::vector<int>, std::string>> groups;
    const std::string start = "deadlock: no rank can make progress (";
    const size_t from = err.find(start);
    if (from == std::string::npos)
        return groups;
    std::string list = err.substr(from + start.size(), err.find(')' , err.find("); each", from)) - from);
    list = list.substr(0, list.find("); each"));
    size_t at = 0;
    while (at < list.size()) {
        size_t end = list.find("; rank", at);
        const std::string group = list.substr(at, end == std::string::npos ? std::string::npos : end - at);
        // "rank 3 ..." or "ranks 0-2, 5, 7-9 ...".
        std::vector<int> ranks;
        const char *p = group.c_str() + (group.rfind("ranks ", 0) == 0 ? 6 : 5);
        for (int first = 0, last = 0, used = 0;; p += used) {
            if (std::sscanf(p, "%d-%d%n", &first, &last, &used) != 2) {
                if (std::sscanf(p, "%d%n", &first, &used) != 1)
                    break;
                last = first;
            }
            for (int r = first; r <= last; ++r)
                ranks.push_back(r);
            if (std::strncmp(p + used, ", ", 2) != 0)
                break;
            used += 2;
        }
        groups.emplace_back(ranks, group);
        if (end == std::string::npos)
            break;
        at = end + 2;
    }
    return groups;
}

// Each of ranks 0..n-1 is named in a group that contains `what`.
void expect_every_rank_in(const RunResult &r, int n, const std::string &what_of_even, const std::string &what_of_odd)
{
    std::set<int> seen;
    for (const auto &[ranks, group] : deadlock_groups(r.err))
        for (int rank : ranks) {
            EXPECT_TRUE(contains(group, rank % 2 == 0 ? what_of_even : what_of_odd)) << group << "\n" << describe(r);
            seen.insert(rank);
        }
    EXPECT_EQ(seen.size(), static_cast<size_t>(n)) << describe(r);
}

// Every rank in a blocking MPI call for a message nobody sends: Open MPI
// polls Portals forever. With the defaults this was reported only after
// 100,000 polls in vain (minutes); now once Open MPI's loop has gone round
// with nothing in flight and every rank's stack shows a blocking MPI call.
TEST_F(RobustMpi, DeadlockInBlockingMpiCallsIsReportedWithTheirCallSites)
{
    RunOptions options;
    options.timeout = std::chrono::seconds(60);
    auto r = run({"-n", "2", mpi_program("mpi_deadlock"), "recv"}, options);
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    expect_every_rank_in(r, 2, "in MPI_Recv() at mpi_deadlock.c:", "in MPI_Recv() at mpi_deadlock.c:");
    EXPECT_LT(r.wall_s, 20.0) << describe(r);

    // Rank 0 in MPI_Recv, the others in MPI_Barrier.
    r = run({"-n", "4", mpi_program("mpi_deadlock"), "mixed"}, options);
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    for (const auto &[ranks, group] : deadlock_groups(r.err))
        for (int rank : ranks)
            EXPECT_TRUE(contains(group, rank == 0 ? "in MPI_Recv() at mpi_deadlock.c:" : "in MPI_Barrier() at mpi_deadlock.c:"))
                << group << "\n" << describe(r);
    size_t named = 0;
    for (const auto &group : deadlock_groups(r.err))
        named += group.first.size();
    EXPECT_EQ(named, 4U) << describe(r);
    EXPECT_LT(r.wall_s, 20.0) << describe(r);
}

// Dynamic processes are not supported (issue 21): MPI_Comm_spawn fails at
// its root, which returns the error; on one rank the program handles it and
// goes on; on two, the other rank waits for the root's word, and the
// deadlock report says that spawning is not supported.
TEST_F(RobustMpi, SpawnIsRefusedWithASentence)
{
    RunOptions options;
    options.timeout = std::chrono::seconds(60);
    auto alone = run({"-n", "1", mpi_program("mpi_spawn")}, options);
    EXPECT_EQ(alone.exit_code, 0) << describe(alone);
    EXPECT_TRUE(contains(alone.out, "OK spawn refused")) << describe(alone);
    auto r = run({"-n", "2", mpi_program("mpi_spawn")}, options);
    EXPECT_EQ(r.exit_code, 86) << describe(r);
    EXPECT_TRUE(contains(r.err, "in MPI_Comm_spawn() at mpi_spawn.c:")) << describe(r);
    EXPECT_TRUE(contains(r.err, "MPI_Comm_spawn is not supported")) << describe(r);
    EXPECT_LT(r.wall_s, 20.0) << describe(r);
}

} // namespace
} // namespace e2e
