#include "pmi_wire.hpp"

namespace s4bxi::pmi {

namespace {
constexpr std::string_view kValuePrefix = "value=";
}

std::optional<Command> parse_line(std::string_view line)
{
  Command command;
  bool has_cmd = false;
  size_t position = 0;
  while (position < line.size()) {
    while (position < line.size() && line[position] == ' ')
      ++position;
    if (line.substr(position, kValuePrefix.size()) == kValuePrefix) {
      command.fields["value"] = std::string(line.substr(position + kValuePrefix.size()));
      break;
    }
    size_t end = line.find(' ', position);
    if (end == std::string_view::npos)
      end = line.size();
    std::string_view pair = line.substr(position, end - position);
    position = end;
    if (pair.empty())
      continue;
    size_t equals = pair.find('=');
    std::string key(pair.substr(0, equals));
    std::string value = equals == std::string_view::npos ? std::string() : std::string(pair.substr(equals + 1));
    if (key == "cmd") {
      command.name = value;
      has_cmd = true;
    } else {
      command.fields[key] = value;
    }
  }
  if (not has_cmd)
    return std::nullopt;
  return command;
}

std::string format_line(const std::string& name, const std::vector<std::pair<std::string, std::string>>& fields)
{
  std::string line = "cmd=" + name;
  for (const auto& [key, value] : fields)
    if (key != "value")
      line += " " + key + "=" + value;
  for (const auto& [key, value] : fields)
    if (key == "value")
      line += " " + key + "=" + value;
  return line + "\n";
}

std::vector<std::string> take_lines(std::string& buffer)
{
  std::vector<std::string> lines;
  size_t start = 0;
  size_t newline;
  while ((newline = buffer.find('\n', start)) != std::string::npos) {
    lines.push_back(buffer.substr(start, newline - start));
    start = newline + 1;
  }
  buffer.erase(0, start);
  return lines;
}

} // namespace s4bxi::pmi
