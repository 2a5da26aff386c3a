// A run touches nothing outside the job: it removes only what it made itself,
// never a path named by its environment, and what a killed run left is
// cleaned by a later one.
#include "e2e_test.hpp"

#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

namespace e2e {
namespace {

class RobustCleanup : public E2ETest {};

namespace fs = std::filesystem;

// A pid that names no process: a child that has ended and been reaped.
pid_t ended_pid()
{
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    waitpid(child, nullptr, 0);
    return child;
}

void make_session_directory(const fs::path &dir, const std::string &marker)
{
    fs::create_directories(dir / "ompi.node0.1000");
    write_file((dir / "ompi.node0.1000" / "contact.txt").string(), "x");
    if (not marker.empty())
        write_file((dir / ".s4bxi-run-server").string(), marker + "\n");
}

// The server used to remove the directory named by an inherited
// S4BXI_OMPI_SESSION_BASE at the end of every run, even a Portals one.
TEST_F(RobustCleanup, DirectoryNamedByTheEnvironmentIsLeftAlone)
{
    TempDir dir;
    const fs::path victim = fs::path(dir.path()) / "victim";
    fs::create_directories(victim / "sub");
    write_file((victim / "sub" / "data").string(), "keep me");
    for (const std::string variable : {"S4BXI_OMPI_SESSION_BASE", "OMPI_MCA_orte_tmpdir_base"}) {
        auto r = run_command({"/usr/bin/env", variable + "=" + victim.string(), launcher(), "-n", "2", example("pingpong"),
                              "-m", "4096", "-i", "5", marker_});
        EXPECT_EQ(r.exit_code, 0) << describe(r);
        EXPECT_EQ(read_file((victim / "sub" / "data").string()), "keep me") << variable << "\n" << describe(r);
    }
}

// What a server killed with SIGKILL left in TMPDIR is removed by the next
// run; a directory of the same name without our marker, or whose server
// still runs, is not.
TEST_F(RobustCleanup, SessionDirectoryOfADeadRunIsRemovedByTheNext)
{
    TempDir tmp;
    const fs::path parent = tmp.path();
    const pid_t dead = ended_pid();
    const fs::path stale = parent / ("s4bxi-ompi-" + std::to_string(dead) + "-abcdef");
    const fs::path unmarked = parent / ("s4bxi-ompi-" + std::to_string(dead) + "-ghijkl");
    const fs::path alive = parent / ("s4bxi-ompi-" + std::to_string(getpid()) + "-mnopqr");
    const fs::path other_name = parent / ("s4bxi-ompi-" + std::to_string(dead));
    make_session_directory(stale, std::to_string(dead));
    make_session_directory(unmarked, "");
    make_session_directory(alive, std::to_string(getpid()));
    make_session_directory(other_name, std::to_string(dead));
    auto r = run_command({"/usr/bin/env", "TMPDIR=" + parent.string(), launcher(), "-n", "2", example("pingpong"),
                          "-m", "4096", "-i", "5", marker_});
    EXPECT_EQ(r.exit_code, 0) << describe(r);
    EXPECT_FALSE(fs::exists(stale)) << describe(r);
    EXPECT_TRUE(fs::exists(unmarked / "ompi.node0.1000" / "contact.txt"));
    EXPECT_TRUE(fs::exists(alive / "ompi.node0.1000" / "contact.txt"));
    EXPECT_TRUE(fs::exists(other_name / "ompi.node0.1000" / "contact.txt"));
}

} // namespace
} // namespace e2e
