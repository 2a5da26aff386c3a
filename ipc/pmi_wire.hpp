// The PMI-1 wire protocol as process managers (MPICH's Hydra, ...) speak it to
// their simple-PMI clients: newline-terminated lines of space-separated
// key=value pairs, the first being cmd=NAME.
//
// One exception: a value= field is always the last of its line and runs to the
// end of it, spaces included (put, get_result). Key-value-space values may
// hold spaces: OpenMPI pads its base64 modex chunks with spaces instead of
// '=', at the end of a value and so also at the start or end of a chunk.
// Both ends of the wire use these functions: the server, and the ranks'
// PMI-1 library (preload/pmi_client).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace s4bxi::pmi {

struct Command {
  std::string name;                          // the value of cmd=
  std::map<std::string, std::string> fields; // the other pairs
  [[nodiscard]] std::string field(const std::string& key) const
  {
    auto it = fields.find(key);
    return it == fields.end() ? std::string() : it->second;
  }
};

// Parses one line (without its newline). nullopt if it has no cmd= pair.
// A value= pair takes the rest of the line verbatim.
std::optional<Command> parse_line(std::string_view line);

// "cmd=NAME k1=v1 k2=v2\n", with the field named value (if any) moved last.
std::string format_line(const std::string& name, const std::vector<std::pair<std::string, std::string>>& fields);

// Splits complete lines off the front of `buffer` (which keeps the rest).
std::vector<std::string> take_lines(std::string& buffer);

} // namespace s4bxi::pmi
