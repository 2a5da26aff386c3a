// A string as a JSON string literal (quotes, backslashes and control
// characters escaped), for the trace and the run's report.
#pragma once

#include <cstdio>
#include <string>

namespace s4bxi::trace {

inline void append_json_string(std::string& out, const std::string& text)
{
  out.push_back('"');
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out.append(escaped);
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
}

} // namespace s4bxi::trace
