#include "platform_values.hpp"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <vector>

namespace s4bxi::platform {
namespace {

using Attributes = std::map<std::string, std::string>;

// The elements of the file with their attributes, comments and processing
// instructions skipped: enough of XML for SimGrid's flat attribute values.
template <class Visit> void for_each_element(const std::string& xml, Visit visit)
{
  size_t at = 0;
  while ((at = xml.find('<', at)) != std::string::npos) {
    if (xml.compare(at, 4, "<!--") == 0) {
      at = xml.find("-->", at);
      continue;
    }
    if (at + 1 >= xml.size() || xml[at + 1] == '?' || xml[at + 1] == '!' || xml[at + 1] == '/') {
      ++at;
      continue;
    }
    size_t cursor = at + 1;
    size_t name_end = xml.find_first_of(" \t\r\n/>", cursor);
    if (name_end == std::string::npos)
      return;
    const std::string element = xml.substr(cursor, name_end - cursor);
    Attributes attributes;
    cursor = name_end;
    for (;;) {
      cursor = xml.find_first_not_of(" \t\r\n", cursor);
      if (cursor == std::string::npos)
        return;
      if (xml[cursor] == '>' || xml[cursor] == '/')
        break;
      const size_t equals = xml.find('=', cursor);
      if (equals == std::string::npos)
        return;
      const size_t quote = xml.find_first_of("\"'", equals);
      if (quote == std::string::npos)
        return;
      const size_t close = xml.find(xml[quote], quote + 1);
      if (close == std::string::npos)
        return;
      std::string name = xml.substr(cursor, equals - cursor);
      name.erase(name.find_last_not_of(" \t\r\n") + 1);
      attributes[name] = xml.substr(quote + 1, close - quote - 1);
      cursor = close + 1;
    }
    visit(element, attributes);
    at = cursor;
  }
}

// The leading number of a SimGrid value with its unit ("12.5GBps", "-5ns");
// nullopt when there is none (SimGrid then reports the value itself).
std::optional<double> leading_number(const std::string& text)
{
  const char* start = text.c_str();
  char* end = nullptr;
  const double value = std::strtod(start, &end);
  if (end == start)
    return std::nullopt;
  return value;
}

enum class Rule { Positive, NotNegative };

struct Check {
  const char* attribute;
  Rule rule;
  const char* what;
};

// Per element: the attributes checked. Comma-separated lists (a host's
// speeds per pstate, a wifi link's bandwidths) are checked item by item.
// A cluster's backbone, loopback and limiter may be 0: that means none.
const std::map<std::string, std::vector<Check>>& checks()
{
  static const std::map<std::string, std::vector<Check>> table = {
      {"host", {{"speed", Rule::Positive, "a speed"}, {"core", Rule::Positive, "a core count"}}},
      {"link", {{"bandwidth", Rule::Positive, "a bandwidth"}, {"latency", Rule::NotNegative, "a latency"}}},
      {"backbone", {{"bandwidth", Rule::Positive, "a bandwidth"}, {"latency", Rule::NotNegative, "a latency"}}},
      {"cluster",
       {{"speed", Rule::Positive, "a speed"},
        {"core", Rule::Positive, "a core count"},
        {"bw", Rule::Positive, "a bandwidth"},
        {"lat", Rule::NotNegative, "a latency"},
        {"bb_bw", Rule::NotNegative, "a backbone bandwidth"},
        {"bb_lat", Rule::NotNegative, "a backbone latency"},
        {"loopback_bw", Rule::NotNegative, "a loopback bandwidth"},
        {"loopback_lat", Rule::NotNegative, "a loopback latency"},
        {"limiter_link", Rule::NotNegative, "a limiter bandwidth"}}},
      {"cabinet",
       {{"speed", Rule::Positive, "a speed"}, {"bw", Rule::Positive, "a bandwidth"}, {"lat", Rule::NotNegative, "a latency"}}},
      {"peer",
       {{"speed", Rule::Positive, "a speed"},
        {"bw_in", Rule::Positive, "a bandwidth"},
        {"bw_out", Rule::Positive, "a bandwidth"},
        {"lat", Rule::NotNegative, "a latency"}}},
  };
  return table;
}

} // namespace

void check_platform_values(const std::string& path, const std::string& xml)
{
  // SimGrid 3.32 gives a split-duplex link's state profile to the link
  // itself, which hands each of its events to its two directions, and they
  // abort on an event that is not theirs ("Unknown event!", exit 134) when
  // the state changes. (Bandwidth and latency profiles go to the directions,
  // and work.)
  std::set<std::string> split_duplex;
  for_each_element(xml, [&path, &split_duplex](const std::string& element, const Attributes& attributes) {
    auto value = [&attributes](const char* name) {
      auto found = attributes.find(name);
      return found != attributes.end() ? found->second : std::string();
    };
    const bool link_state_profile =
        (element == "link" && value("sharing_policy") == "SPLITDUPLEX" && not value("state_file").empty()) ||
        (element == "trace_connect" && value("kind") == "STATE" && split_duplex.count(value("element")) != 0);
    if (element == "link" && value("sharing_policy") == "SPLITDUPLEX")
      split_duplex.insert(value("id"));
    if (link_state_profile)
      throw std::runtime_error("platform file '" + path + "': link '" +
                               value(element == "link" ? "id" : "element") +
                               "' is split-duplex and has a state profile, on which SimGrid 3.32 aborts when the "
                               "state changes; give the profile to a link that is not split-duplex, or turn this "
                               "one off with --cfg=s4bxi/link-down:LINK@START+DURATION");
  });
  for_each_element(xml, [&path](const std::string& element, const Attributes& attributes) {
    auto rules = checks().find(element);
    if (rules == checks().end())
      return;
    auto id = attributes.find("id");
    const std::string name = element + (id != attributes.end() ? " '" + id->second + "'" : "");
    for (const auto& check : rules->second) {
      auto attribute = attributes.find(check.attribute);
      if (attribute == attributes.end())
        continue;
      size_t start = 0;
      const std::string& text = attribute->second;
      while (start <= text.size()) {
        size_t comma = text.find(',', start);
        if (comma == std::string::npos)
          comma = text.size();
        const std::string item = text.substr(start, comma - start);
        start = comma + 1;
        auto value = leading_number(item);
        if (not value)
          continue;
        const bool positive = check.rule == Rule::Positive;
        if (std::isfinite(*value) && (positive ? *value > 0 : *value >= 0))
          continue;
        throw std::runtime_error("platform file '" + path + "': " + name + " has " + check.attribute + "=\"" +
                                 text + "\", and " + check.what + " must be " +
                                 (positive ? "greater than 0" : "at least 0") + "; fix the platform file");
      }
    }
  });
}

} // namespace s4bxi::platform
