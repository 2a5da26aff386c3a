#include "harness.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include <gtest/gtest.h>

namespace e2e {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string shell_quote(const std::vector<std::string> &argv)
{
    std::string s;
    for (const auto &a : argv) {
        if (!s.empty())
            s += ' ';
        bool plain = !a.empty() && a.find_first_not_of(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
            "_-+=/.,:@%") == std::string::npos;
        s += plain ? a : "'" + a + "'";
    }
    return s;
}

void set_nonblocking(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Reads what is available; returns false at end of file.
bool drain(int fd, std::string &into)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            into.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (n == 0)
            return false;
        if (errno == EINTR)
            continue;
        return true; // EAGAIN
    }
}

// A /proc file of a process that may end while it is read: read() then
// fails (ESRCH), which a std::ifstream turns into an exception (libstdc++'s
// basic_filebuf::underflow). What was read before is what is returned.
std::string read_proc_file(const std::string &path)
{
    std::string s;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return s;
    char buf[4096];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n > 0) {
            s.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        break;
    }
    close(fd);
    return s;
}

std::string read_cmdline(const std::string &pid_dir)
{
    std::string s = read_proc_file(pid_dir + "/cmdline");
    std::replace(s.begin(), s.end(), '\0', ' ');
    return s;
}

std::vector<std::string> pid_dirs()
{
    std::vector<std::string> dirs;
    for (const auto &e : std::filesystem::directory_iterator("/proc")) {
        const std::string name = e.path().filename();
        if (!name.empty() &&
            std::all_of(name.begin(), name.end(), ::isdigit))
            dirs.push_back(e.path());
    }
    return dirs;
}

// Whether any live process has /dev/shm/<name> open or mapped.
bool shm_in_use(const std::string &name)
{
    const std::string path = "/dev/shm/" + name;
    for (const auto &dir : pid_dirs()) {
        std::error_code ec;
        for (const auto &fd :
             std::filesystem::directory_iterator(dir + "/fd", ec)) {
            std::error_code ec2;
            auto target = std::filesystem::read_symlink(fd.path(), ec2);
            if (!ec2 && target.string().rfind(path, 0) == 0)
                return true;
        }
        std::istringstream maps(read_proc_file(dir + "/maps"));
        std::string line;
        while (std::getline(maps, line))
            if (line.find(path) != std::string::npos)
                return true;
    }
    return false;
}

} // namespace

std::string launcher() { return S4BXI_RUN_PATH; }
std::string program(const std::string &name)
{
    return std::string(E2E_PROGRAMS_DIR) + "/" + name;
}
std::string example(const std::string &name)
{
    return std::string(E2E_EXAMPLES_DIR) + "/" + name;
}

std::string unique_marker()
{
    static std::atomic<int> counter{0};
    std::string test = "test";
    if (const auto *info =
            ::testing::UnitTest::GetInstance()->current_test_info())
        test = std::string(info->test_suite_name()) + "." + info->name();
    for (char &c : test)
        if (!isalnum(static_cast<unsigned char>(c)))
            c = '_';
    return "e2e-marker-" + std::to_string(getpid()) + "-" +
           std::to_string(counter++) + "-" + test;
}

RunResult run_command(const std::vector<std::string> &argv,
                      const RunOptions &options)
{
    RunResult r;
    r.command = shell_quote(argv);
    int out_pipe[2], err_pipe[2];
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0)
        throw std::runtime_error("pipe failed");

    const auto t0 = Clock::now();
    pid_t pid = fork();
    if (pid < 0)
        throw std::runtime_error("fork failed");
    if (pid == 0) {
        // Own process group, so that a timeout can kill the whole run. No
        // core files: crashing ranks are part of the tests.
        setpgid(0, 0);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core);
        signal(SIGINT, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        const char *input = options.stdin_file ? options.stdin_file->c_str() : "/dev/null";
        int in = open(input, O_RDONLY);
        if (in < 0) {
            dprintf(err_pipe[1], "e2e harness: cannot open %s as standard input: %s\n", input,
                    strerror(errno));
            _exit(127);
        }
        dup2(in, 0);
        if (in != 0)
            close(in);
        if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
            dprintf(err_pipe[1], "e2e harness: cannot change to directory %s: %s\n",
                    options.cwd.c_str(), strerror(errno));
            _exit(127);
        }
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        // After the standard descriptors: the harness's pipes may have the
        // shared pipe's numbers.
        if (options.shared_pipe) {
            int ends[2];
            if (pipe(ends) != 0 || dup2(ends[0], kSharedPipeRead) < 0 || dup2(ends[1], kSharedPipeWrite) < 0) {
                dprintf(2, "e2e harness: cannot make the shared pipe: %s\n", strerror(errno));
                _exit(127);
            }
            if (ends[0] != kSharedPipeRead && ends[0] != kSharedPipeWrite)
                close(ends[0]);
            if (ends[1] != kSharedPipeRead && ends[1] != kSharedPipeWrite)
                close(ends[1]);
        }
        std::vector<char *> args;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        dprintf(2, "e2e harness: cannot execute %s: %s\n", args[0],
                strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); // also from the parent, to close the race
    close(out_pipe[1]);
    close(err_pipe[1]);
    set_nonblocking(out_pipe[0]);
    set_nonblocking(err_pipe[0]);

    bool out_open = true, err_open = true, exited = false, signalled = false;
    int status = 0;
    Clock::time_point exited_at{};
    for (;;) {
        struct pollfd fds[2] = {{out_pipe[0], POLLIN, 0},
                                {err_pipe[0], POLLIN, 0}};
        poll(fds, 2, 20);
        if (out_open)
            out_open = drain(out_pipe[0], r.out);
        if (err_open)
            err_open = drain(err_pipe[0], r.err);
        if (!exited) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid) {
                exited = true;
                exited_at = Clock::now();
                r.wall_s = seconds_since(t0);
            }
        }
        if (exited) {
            // Output pipes may stay open if a rank process survived the
            // launcher: stop reading after a grace period (the leftover
            // checks report such processes).
            if ((!out_open && !err_open) ||
                seconds_since(exited_at) > 2.0)
                break;
            continue;
        }
        if (options.signal_after && !signalled &&
            Clock::now() - t0 >= *options.signal_after) {
            kill(pid, options.signal);
            signalled = true;
        }
        if (Clock::now() - t0 >= options.timeout) {
            r.timed_out = true;
            kill(-pid, SIGKILL);
            waitpid(pid, &status, 0);
            r.wall_s = seconds_since(t0);
            break;
        }
    }
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (WIFEXITED(status)) {
        r.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r.term_signal = WTERMSIG(status);
        r.exit_code = 128 + r.term_signal;
    }
    return r;
}

RunResult run_s4bxi(const std::vector<std::string> &args,
                    const RunOptions &options)
{
    std::vector<std::string> argv{launcher()};
    argv.insert(argv.end(), args.begin(), args.end());
    RunResult r = run_command(argv, options);
    if (r.timed_out) {
        // Rank processes may live in other process groups: find them by the
        // marker that every test puts on its program's command line.
        for (const auto &a : args)
            if (a.rfind("e2e-marker-", 0) == 0)
                for (int p : processes_with(a))
                    kill(p, SIGKILL);
    }
    return r;
}

std::vector<int> processes_with(const std::string &marker)
{
    std::vector<int> found;
    const int self = getpid();
    for (const auto &dir : pid_dirs()) {
        int pid = std::stoi(std::filesystem::path(dir).filename());
        if (pid == self)
            continue;
        if (read_cmdline(dir).find(marker) != std::string::npos)
            found.push_back(pid);
    }
    return found;
}

std::set<std::string> s4bxi_shm_entries()
{
    std::set<std::string> names;
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator("/dev/shm", ec)) {
        std::string name = e.path().filename();
        if (name.find("s4bxi") != std::string::npos)
            names.insert(name);
    }
    return names;
}

std::vector<std::string> leaked_shm_entries(const std::set<std::string> &before)
{
    // Other tests may run concurrently: a new segment that some process
    // still uses belongs to a run in progress, not to a leak.
    std::vector<std::string> leaked;
    for (int attempt = 0; attempt < 20; ++attempt) {
        leaked.clear();
        for (const auto &name : s4bxi_shm_entries())
            if (!before.count(name) && !shm_in_use(name))
                leaked.push_back(name);
        if (leaked.empty())
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return leaked;
}

std::optional<Summary> parse_summary(const std::string &err)
{
    static const std::regex re(
        R"(s4bxi-run: simulated time ([0-9.eE+-]+) s, wall time ([0-9.eE+-]+) s, ([0-9]+) ranks?)");
    std::smatch m;
    if (!std::regex_search(err, m, re))
        return std::nullopt;
    Summary s;
    s.simulated_s = std::stod(m[1]);
    s.wall_s = std::stod(m[2]);
    s.ranks = std::stoi(m[3]);
    return s;
}

std::vector<std::string> lines(const std::string &text)
{
    std::vector<std::string> v;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (!line.empty())
            v.push_back(line);
    return v;
}

TempDir::TempDir()
{
    char tmpl[] = "/tmp/s4bxi-e2e-XXXXXX";
    if (!mkdtemp(tmpl))
        throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)),
                       std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const std::string &content)
{
    std::ofstream f(path, std::ios::binary);
    f << content;
}

std::string describe(const RunResult &r)
{
    std::ostringstream s;
    s << "command: " << r.command << "\nexit code: " << r.exit_code
      << (r.timed_out ? " (TIMED OUT, killed by the harness)" : "")
      << "\nwall time: " << r.wall_s << " s\n--- stdout ---\n"
      << r.out.substr(0, 8000) << "\n--- stderr ---\n"
      << r.err.substr(0, 8000) << "\n--------------";
    return s.str();
}

} // namespace e2e
