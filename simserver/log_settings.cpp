#include "log_settings.hpp"

#include "command_line.hpp"

#include <array>
#include <cstring>
#include <strings.h>

namespace s4bxi {
namespace {

// SimGrid takes any prefix of a keyword for it ("thres", "app", and even "").
bool abbreviates(const std::string& given, const char* keyword)
{
  return std::strncmp(given.c_str(), keyword, given.size()) == 0;
}

constexpr std::array<const char*, 7> kLevels = {"trace", "debug", "verbose", "info", "warning", "error", "critical"};

std::optional<std::string> check_setting(const std::string& setting)
{
  const std::string shape = "; write CATEGORY.thres:LEVEL (or CATEGORY.fmt:FORMAT, .app:file:NAME, .add:yes), "
                            "e.g. --log=s4bxi_nic.thres:debug";
  // As SimGrid cuts it: CATEGORY '.' OPTION (':' or '=') VALUE.
  const size_t dot = setting.find_first_of(".:= ");
  if (dot == std::string::npos || setting[dot] != '.')
    return "--log: '" + setting + "' names no category setting" + shape;
  const size_t separator = setting.find_first_of(":= ", dot + 1);
  if (separator == std::string::npos || setting[separator] == ' ')
    return "--log: '" + setting + "' gives no value" + shape;
  const std::string option = setting.substr(dot + 1, separator - dot - 1);
  const std::string value = setting.substr(separator + 1);
  if (abbreviates(option, "threshold")) {
    for (const char* level : kLevels)
      if (strcasecmp(value.c_str(), level) == 0)
        return std::nullopt;
    return "--log: '" + value + "' in '" + setting +
           "' is no log level; use trace, debug, verbose, info, warning, error or critical";
  }
  if (abbreviates(option, "additivity") || abbreviates(option, "fmt"))
    return std::nullopt;
  if (abbreviates(option, "appender")) {
    for (const char* kind : {"file:", "rollfile:", "splitfile:"})
      if (value.rfind(kind, 0) == 0)
        return std::nullopt;
    return "--log: the appender '" + value + "' in '" + setting + "' is unknown; use file:NAME";
  }
  return "--log: '" + option + "' in '" + setting + "' is no log setting; use thres, add, app or fmt";
}

} // namespace

std::optional<std::string> check_log_settings(const std::string& settings)
{
  if (settings == "no_loc")
    return std::nullopt;
  // Settings are separated by blanks and quotes group, as SimGrid splits them
  // (xbt_str_split_quoted), and as a command line is split.
  auto words = split_command_line(settings);
  if (not words)
    return "--log: '" + settings + "' has an unclosed quote";
  for (const auto& setting : *words)
    if (auto problem = check_setting(setting))
      return problem;
  return std::nullopt;
}

} // namespace s4bxi
