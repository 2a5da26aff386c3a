// Base fixture of the end-to-end tests: every test gets a unique marker to
// put on its program's command line, and at the end the fixture checks that
// no process carrying the marker and no new s4bxi shared-memory segment
// survived the test's runs.
#pragma once

#include "harness.hpp"
#include "json_lite.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace e2e {

inline bool contains(const std::string &text, const std::string &what)
{
    return text.find(what) != std::string::npos;
}

// A JSON file (a report, a trace), or nothing, with a failure that says why.
inline std::optional<json::Value> read_json(const std::string &path)
{
    std::string error;
    auto doc = json::parse(read_file(path), &error);
    EXPECT_TRUE(doc.has_value()) << path << " is not valid JSON: " << error;
    return doc;
}

#ifdef E2E_MPI_PROGRAMS_DIR
// Path of an MPI test program (mpi_programs/, built with the system's mpicc).
inline std::string mpi_program(const std::string &name)
{
    return std::string(E2E_MPI_PROGRAMS_DIR) + "/" + name;
}
#endif

inline bool icontains(std::string text, std::string what)
{
    auto lower = [](std::string &s) {
        for (char &c : s)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    };
    lower(text);
    lower(what);
    return text.find(what) != std::string::npos;
}

// The fields of a line of a trace's events.csv (no field holds a comma; an
// empty last field counts).
inline std::vector<std::string> csv_fields(const std::string &line)
{
    std::vector<std::string> fields;
    size_t from = 0;
    for (size_t comma; (comma = line.find(',', from)) != std::string::npos; from = comma + 1)
        fields.push_back(line.substr(from, comma - from));
    fields.push_back(line.substr(from));
    return fields;
}

// SimGrid ends together every action due within its precision (the
// surf/precision option, 1e-13 s) of the date time moves to: a run with other
// time points (a scheduling round more or less) may see an event end that
// much earlier or later. Below that, two dates are one instant to it.
inline constexpr double kSimGridPrecisionS = 1e-13;

// The lines of a text in sorted order: ranks print in any order, and a
// trace's simultaneous rows may come in another order.
inline std::vector<std::string> sorted_lines(const std::string &text)
{
    auto ls = lines(text);
    std::sort(ls.begin(), ls.end());
    return ls;
}

// The first difference between two traces' events.csv, rows of kind `skipped`
// left out, beyond `tolerance` seconds for the start and end times; empty
// when none. Rows are paired in order of their other fields, then times.
inline std::string events_differ(const std::string &a, const std::string &b, double tolerance,
                                 const std::string &skipped = "CALL")
{
    struct Row {
        std::string fields; // all but the times
        double start = 0, end = 0;
        std::string line;
    };
    auto rows_of = [&](const std::string &csv) {
        std::vector<Row> rows;
        for (const std::string &line : lines(csv)) {
            const std::vector<std::string> cells = csv_fields(line);
            if (cells.size() < 7 || cells[0] == "kind" || cells[0] == skipped)
                continue;
            Row row;
            row.line = line;
            for (size_t i = 0; i < cells.size(); ++i)
                if (i != 5 && i != 6)
                    row.fields += cells[i] + ",";
            row.start = std::stod(cells[5]);
            row.end = std::stod(cells[6]);
            rows.push_back(row);
        }
        std::sort(rows.begin(), rows.end(), [](const Row &x, const Row &y) {
            return std::tie(x.fields, x.start, x.end) < std::tie(y.fields, y.start, y.end);
        });
        return rows;
    };
    const std::vector<Row> left = rows_of(a), right = rows_of(b);
    if (left.size() != right.size())
        return std::to_string(left.size()) + " rows against " + std::to_string(right.size());
    for (size_t i = 0; i < left.size(); ++i)
        if (left[i].fields != right[i].fields || std::abs(left[i].start - right[i].start) > tolerance ||
            std::abs(left[i].end - right[i].end) > tolerance)
            return left[i].line + "\nagainst\n" + right[i].line;
    return {};
}

// How many rows of a trace's events.csv are of `kind` with at least
// `min_bytes` bytes.
inline size_t count_rows(const std::string &events, const std::string &kind, uint64_t min_bytes = 0)
{
    size_t count = 0;
    for (const std::string &line : lines(events)) {
        const std::vector<std::string> cells = csv_fields(line);
        if (cells.size() >= 7 && cells[0] == kind && std::stoull(cells[4]) >= min_bytes)
            count++;
    }
    return count;
}

class E2ETest : public ::testing::Test {
protected:
    void SetUp() override
    {
        marker_ = unique_marker();
        shm_before_ = s4bxi_shm_entries();
        ASSERT_TRUE(std::filesystem::exists(launcher()))
            << "the launcher " << launcher() << " is not built";
    }

    void TearDown() override
    {
        std::vector<int> left;
        for (int i = 0; i < 30; ++i) {
            left = processes_with(marker_);
            if (left.empty())
                break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        std::string pids;
        for (int p : left)
            pids += " " + std::to_string(p);
        EXPECT_TRUE(left.empty())
            << "processes left behind by the run (pids" << pids << ")";
        for (int p : left)
            kill(p, SIGKILL);
        const auto leaked = leaked_shm_entries(shm_before_);
        std::string names;
        for (const auto &n : leaked)
            names += " /dev/shm/" + n;
        EXPECT_TRUE(leaked.empty())
            << "shared-memory segments left behind:" << names;
    }

    // s4bxi-run with the given options, program and program arguments; the
    // marker is appended as the program's last argument.
    RunResult run(std::vector<std::string> args, const RunOptions &opts = {})
    {
        args.push_back(marker_);
        RunResult r = run_s4bxi(args, opts);
        EXPECT_FALSE(r.timed_out)
            << "the run did not finish in time and was killed\n"
            << describe(r);
        return r;
    }

    // s4bxi-run with extra environment variables (env NAME=VALUE ... s4bxi-run).
    RunResult run_with_env(const std::vector<std::string> &variables, const std::vector<std::string> &args)
    {
        std::vector<std::string> argv{"/usr/bin/env"};
        argv.insert(argv.end(), variables.begin(), variables.end());
        argv.push_back(launcher());
        argv.insert(argv.end(), args.begin(), args.end());
        argv.push_back(marker_);
        auto r = run_command(argv);
        EXPECT_FALSE(r.timed_out) << describe(r);
        return r;
    }

    // A run with a trace and a report, in a directory of its own: what it
    // printed, the trace's events.csv and the report (nullopt, and a
    // failure, when it could not be read).
    struct TracedRun {
        RunResult result;
        std::string events;
        std::optional<json::Value> report;
    };
    TracedRun run_traced(const std::vector<std::string> &options, const std::vector<std::string> &job)
    {
        TempDir dir;
        std::vector<std::string> args = options;
        args.insert(args.end(), {"--trace", dir.file("trace"), "--report", dir.file("run.json")});
        args.insert(args.end(), job.begin(), job.end());
        TracedRun traced;
        traced.result = run(args);
        traced.events = read_file(dir.file("trace") + "/events.csv");
        std::string error;
        traced.report = json::parse(read_file(dir.file("run.json")), &error);
        EXPECT_TRUE(traced.report.has_value()) << error << "\n" << describe(traced.result);
        return traced;
    }

    // Two runs of one job with an optimization on and off: both end well
    // and end at the same simulated time.
    void expect_same_simulated_end(const RunResult &on, const RunResult &off)
    {
        EXPECT_EQ(on.exit_code, 0) << describe(on);
        EXPECT_EQ(off.exit_code, 0) << describe(off);
        const auto on_summary = parse_summary(on.err);
        const auto off_summary = parse_summary(off.err);
        EXPECT_TRUE(on_summary && off_summary) << describe(on) << describe(off);
        if (on_summary && off_summary) {
            EXPECT_EQ(on_summary->simulated_s, off_summary->simulated_s);
        }
    }

    // Exit status 0 and the summary line naming nranks.
    void expect_success(const RunResult &r, int nranks)
    {
        EXPECT_EQ(r.exit_code, 0) << describe(r);
        auto s = parse_summary(r.err);
        ASSERT_TRUE(s.has_value())
            << "no summary line on stderr\n" << describe(r);
        EXPECT_EQ(s->ranks, nranks) << describe(r);
        EXPECT_GE(s->simulated_s, 0.0) << describe(r);
        EXPECT_GE(s->wall_s, 0.0) << describe(r);
        // The summary comes last.
        auto ls = lines(r.err);
        ASSERT_FALSE(ls.empty());
        EXPECT_TRUE(contains(ls.back(), "s4bxi-run: simulated time"))
            << "the summary is not the last line on stderr\n" << describe(r);
    }

    // Exit status 2, one line on stderr: "s4bxi-run: ..." naming keyword.
    // Every rank of a self-checking program said "NAME: rank R: all checks passed".
    void expect_all_passed(const RunResult &r, const std::string &name, int nranks)
    {
        expect_success(r, nranks);
        for (int rank = 0; rank < nranks; ++rank)
            EXPECT_TRUE(contains(r.out, name + ": rank " + std::to_string(rank) + ": all checks passed"))
                << "rank " << rank << " did not report success\n" << describe(r);
        EXPECT_FALSE(contains(r.err, "FAIL")) << describe(r);
    }

    void expect_usage_error(const RunResult &r, const std::string &keyword)
    {
        EXPECT_EQ(r.exit_code, 2) << describe(r);
        auto ls = lines(r.err);
        ASSERT_EQ(ls.size(), 1u)
            << "a usage error must be one sentence on stderr\n" << describe(r);
        EXPECT_EQ(ls[0].rfind("s4bxi-run: ", 0), 0u) << describe(r);
        if (!keyword.empty()) {
            EXPECT_TRUE(icontains(ls[0], keyword))
                << "the message should mention \"" << keyword << "\"\n"
                << describe(r);
        }
        EXPECT_LT(r.wall_s, 20.0) << "a usage error should be reported fast";
    }

    std::string marker_;
    std::set<std::string> shm_before_;
};

} // namespace e2e
