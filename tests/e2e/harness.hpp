// Runs s4bxi-run (or any command) as a child process group with a wall-clock
// limit, capturing stdout, stderr and the exit status, and checks that a run
// leaves nothing behind (rank processes, shared-memory segments).
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace e2e {

struct RunResult {
    int exit_code = -1;      // exit status, or 128 + signal if killed
    int term_signal = 0;     // signal that killed the launcher, if any
    bool timed_out = false;  // the harness had to kill the run
    double wall_s = 0;       // real time from start to exit
    std::string out;
    std::string err;
    std::string command;     // for diagnostics
};

inline constexpr int kSharedPipeRead = 5;
inline constexpr int kSharedPipeWrite = 6;

struct RunOptions {
    std::chrono::milliseconds timeout{60000};
    // Send this signal to the launcher (not its group) after the delay.
    std::optional<std::chrono::milliseconds> signal_after;
    int signal = 2; // SIGINT
    // The child's standard input: this file instead of /dev/null.
    std::optional<std::string> stdin_file;
    // The child's working directory, if not empty (the harness's otherwise).
    std::string cwd;
    // A pipe created before the launcher is started, inherited by it and so
    // by every rank: its read end is descriptor kSharedPipeRead, its write
    // end kSharedPipeWrite.
    bool shared_pipe = false;
};

// Path of the launcher, of a test program, of an example.
std::string launcher();
std::string program(const std::string &name);
std::string example(const std::string &name);

// A string unique to this test run; put it in a rank's argv so that its
// processes can be found afterwards.
std::string unique_marker();

RunResult run_command(const std::vector<std::string> &argv,
                      const RunOptions &options = {});
// s4bxi-run followed by args.
RunResult run_s4bxi(const std::vector<std::string> &args,
                    const RunOptions &options = {});

// Live processes (other than this one) whose command line contains marker.
std::vector<int> processes_with(const std::string &marker);
// Names of /dev/shm entries containing "s4bxi".
std::set<std::string> s4bxi_shm_entries();
// Entries in `now` but not in `before` that no live process holds open or
// mapped (leaked segments), after a short grace period.
std::vector<std::string> leaked_shm_entries(const std::set<std::string> &before);

// Parses "s4bxi-run: simulated time X s, wall time Y s, N ranks".
struct Summary {
    double simulated_s = -1;
    double wall_s = -1;
    int ranks = -1;
};
std::optional<Summary> parse_summary(const std::string &err);

// Lines of text, without the newlines, empty lines dropped.
std::vector<std::string> lines(const std::string &text);

// A temporary directory removed at destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir &) = delete;
    TempDir &operator=(const TempDir &) = delete;
    const std::string &path() const { return path_; }
    std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

std::string read_file(const std::string &path);
void write_file(const std::string &path, const std::string &content);

// Human-readable dump of a run for failure messages.
std::string describe(const RunResult &r);

} // namespace e2e
