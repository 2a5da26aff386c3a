// The rows of a trace's events.csv (docs/trace-format.md), read and checked
// against the documented columns and kinds: what the tests of the trace
// (test_trace.cpp) and of the RX engines' order (test_mpi.cpp) read.
#pragma once

#include "e2e_test.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace e2e {

inline const char *const kHeader = "kind,node,rank,vn,bytes,start_s,end_s,actor,detail";

inline const std::set<std::string> kKinds = {
    "PUT", "GET", "ATOMIC", "FETCH_ATOMIC", "ACK", "GET_RESPONSE", "FETCH_ATOMIC_RESPONSE",
    "BXI_ACK", "TX", "RX", "E2E", "PCI_COMMAND", "PCI_PIO", "PCI_DMA_READ", "PCI_DMA_WRITE", "PCI_EVENT",
    "COMPUTE", "CALL", "WAIT", "POLL"};
inline const std::set<std::string> kMessageKinds = {"PUT", "GET", "ATOMIC", "FETCH_ATOMIC", "ACK",
                                             "GET_RESPONSE", "FETCH_ATOMIC_RESPONSE", "BXI_ACK"};

struct Row {
    std::string kind;
    int node = -1;
    int rank = -1; // -1: empty
    int vn = -1;
    unsigned long long bytes = 0;
    double start = 0;
    double end = 0;
    std::string actor;
    std::string detail;
};

inline bool parse_int(const std::string &text, long long &value)
{
    if (text.empty())
        return false;
    char *end = nullptr;
    value = std::strtoll(text.c_str(), &end, 10);
    return *end == '\0';
}

inline bool parse_double(const std::string &text, double &value)
{
    if (text.empty())
        return false;
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return *end == '\0';
}

// Parses events.csv, failing the test on any malformed row.
inline std::vector<Row> read_csv(const std::string &path)
{
    const std::string text = read_file(path);
    std::vector<Row> rows;
    std::istringstream in(text);
    std::string line;
    EXPECT_TRUE(std::getline(in, line)) << "empty " << path;
    EXPECT_EQ(line, kHeader);
    int number = 1;
    while (std::getline(in, line)) {
        ++number;
        auto fields = csv_fields(line);
        EXPECT_EQ(fields.size(), 9u) << "line " << number << ": " << line;
        if (fields.size() != 9)
            continue;
        Row row;
        long long value = 0;
        row.kind = fields[0];
        EXPECT_TRUE(kKinds.count(row.kind)) << "line " << number << ": unknown kind: " << line;
        EXPECT_TRUE(parse_int(fields[1], value) && value >= 0) << "line " << number << ": node: " << line;
        row.node = static_cast<int>(value);
        if (!fields[2].empty()) {
            EXPECT_TRUE(parse_int(fields[2], value) && value >= 0) << "line " << number << ": rank: " << line;
            row.rank = static_cast<int>(value);
        }
        if (!fields[3].empty()) {
            EXPECT_TRUE(parse_int(fields[3], value) && (value == 0 || value == 1))
                << "line " << number << ": vn: " << line;
            row.vn = static_cast<int>(value);
        }
        EXPECT_TRUE(parse_int(fields[4], value) && value >= 0) << "line " << number << ": bytes: " << line;
        row.bytes = static_cast<unsigned long long>(value);
        EXPECT_TRUE(parse_double(fields[5], row.start) && row.start >= 0) << "line " << number << ": " << line;
        EXPECT_TRUE(parse_double(fields[6], row.end) && row.end >= row.start)
            << "line " << number << ": the end is before the start: " << line;
        row.actor = fields[7];
        EXPECT_FALSE(row.actor.empty()) << "line " << number << ": " << line;
        row.detail = fields[8];
        rows.push_back(row);
    }
    return rows;
}

} // namespace e2e
