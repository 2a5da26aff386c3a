#include "fattree_spec.hpp"

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
  return spec;
}

} // namespace s4bxi::platform
