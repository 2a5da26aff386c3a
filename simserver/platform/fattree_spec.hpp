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

// Returns the spec, or std::nullopt with `error` set to one sentence saying what is wrong.
std::optional<FatTreeSpec> parse_fattree(const std::string& text, std::string& error);

} // namespace s4bxi::platform
