#include "fattree_spec.hpp"

#include <algorithm>
#include <charconv>
#include <sstream>

namespace s4bxi::platform {

unsigned FatTreeSpec::node_count() const
{
  unsigned nodes = 1;
  for (unsigned children : down)
    nodes *= children;
  return nodes;
}

namespace {

std::vector<std::string> split(const std::string& text, char separator)
{
  std::vector<std::string> parts;
  std::string part;
  std::istringstream stream(text);
  while (std::getline(stream, part, separator))
    parts.push_back(part);
  if (not text.empty() && text.back() == separator)
    parts.emplace_back();
  return parts;
}

bool parse_unsigned(const std::string& text, unsigned& value)
{
  if (text.empty())
    return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value > 0;
}

// Multiplication that stops at `cap` + 1 instead of overflowing.
unsigned long long capped_product(unsigned long long a, unsigned long long b, unsigned long long cap)
{
  if (a != 0 && b > (cap + 1) / a)
    return cap + 1;
  return std::min(a * b, cap + 1);
}

// Nodes, switches and links as SimGrid's FatTreeZone builds them: level i
// (1 = leaf switches) has prod(down[i..]) * prod(up[..i]) switches, and each
// element of level i-1 has up[i] parents, joined by parallel[i] links each.
std::optional<std::string> size_problem(const FatTreeSpec& spec, const std::string& text)
{
  constexpr unsigned long long cap = 1ULL << 40;
  unsigned long long nodes = 1;
  for (unsigned children : spec.down)
    nodes = capped_product(nodes, children, cap);
  if (nodes > kMaxFatTreeNodes)
    return "fat-tree specification '" + text + "' has " + (nodes > cap ? "over a trillion" : std::to_string(nodes)) +
           " nodes; at most " + std::to_string(kMaxFatTreeNodes) + " nodes are supported";
  unsigned long long switches = 0;
  unsigned long long links = 0;
  unsigned long long below = nodes; // elements of the level under the current one
  for (unsigned level = 0; level < spec.levels; ++level) {
    links = std::min(links + capped_product(capped_product(below, spec.up[level], cap), spec.parallel[level], cap),
                     cap + 1);
    unsigned long long at_level = capped_product(below / spec.down[level], spec.up[level], cap);
    switches = std::min(switches + at_level, cap + 1);
    below = at_level;
  }
  if (switches > kMaxFatTreeSwitches)
    return "fat-tree specification '" + text + "' has " + std::to_string(switches) + " switches; at most " +
           std::to_string(kMaxFatTreeSwitches) + " are supported";
  if (links > kMaxFatTreeLinks)
    return "fat-tree specification '" + text + "' has " + std::to_string(links) + " links; at most " +
           std::to_string(kMaxFatTreeLinks) + " are supported";
  return std::nullopt;
}

} // namespace

std::optional<FatTreeSpec> parse_fattree(const std::string& text, std::string& error)
{
  const std::string usage = " (expected fattree:LEVELS;DOWN,..;UP,..;PARALLEL,.. e.g. fattree:2;4,4;1,2;1,2)";
  if (text.rfind(kFatTreePrefix, 0) != 0) {
    error = "'" + text + "' is not a fat-tree specification" + usage;
    return std::nullopt;
  }
  auto fields = split(text.substr(std::string(kFatTreePrefix).size()), ';');
  if (fields.size() != 4) {
    error = "fat-tree specification '" + text + "' needs 4 fields separated by ';'" + usage;
    return std::nullopt;
  }
  FatTreeSpec spec;
  if (not parse_unsigned(fields[0], spec.levels)) {
    error = "fat-tree specification '" + text + "': the level count must be a positive integer" + usage;
    return std::nullopt;
  }
  std::vector<unsigned>* lists[] = {&spec.down, &spec.up, &spec.parallel};
  const char* names[] = {"down", "up", "parallel"};
  for (int i = 0; i < 3; ++i) {
    for (const auto& item : split(fields[i + 1], ',')) {
      unsigned value = 0;
      if (not parse_unsigned(item, value)) {
        error = "fat-tree specification '" + text + "': '" + item + "' in the " + names[i] +
                " list is not a positive integer" + usage;
        return std::nullopt;
      }
      lists[i]->push_back(value);
    }
    if (lists[i]->size() != spec.levels) {
      error = "fat-tree specification '" + text + "': the " + names[i] + " list has " +
              std::to_string(lists[i]->size()) + " values for " + std::to_string(spec.levels) + " levels" + usage;
      return std::nullopt;
    }
  }
  if (auto problem = size_problem(spec, text)) {
    error = *problem;
    return std::nullopt;
  }
  return spec;
}

} // namespace s4bxi::platform
