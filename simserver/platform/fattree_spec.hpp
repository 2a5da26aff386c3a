// Parsing of the `fattree:` platform specification, the notation of SimGrid's
// fat-tree clusters: "fattree:LEVELS;DOWN,...;UP,...;PARALLEL,..." e.g.
// "fattree:2;4,4;1,2;1,2" (16 nodes: 4 per leaf switch, 4 leaf switches).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace s4bxi::platform {

struct FatTreeSpec {
  unsigned levels = 0;
  std::vector<unsigned> down;     // children per switch, per level
  std::vector<unsigned> up;       // parents per switch, per level
  std::vector<unsigned> parallel; // links between a switch and each parent, per level

  [[nodiscard]] unsigned node_count() const;
};

inline constexpr const char* kFatTreePrefix = "fattree:";

// The largest fat trees built: every node gets a NIC with its actors, and
// SimGrid builds every switch and link before the run starts, so a spec
// beyond these would take the machine's memory (or hours) rather than run.
inline constexpr unsigned long kMaxFatTreeNodes = 16384;
inline constexpr unsigned long kMaxFatTreeSwitches = 16384;
inline constexpr unsigned long kMaxFatTreeLinks = 1000000;

// Returns the spec, or std::nullopt with `error` set to one sentence saying
// what is wrong (a size beyond the limits above included).
std::optional<FatTreeSpec> parse_fattree(const std::string& text, std::string& error);

} // namespace s4bxi::platform
