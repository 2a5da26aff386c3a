// Splitting a command line, for the launcher's --debugger (tools/s4bxi_run.cpp,
// main.cpp) and the --log settings (log_settings.cpp), which SimGrid splits
// the same way. On its own: the launch options check the --log settings, so
// those must not need the launch options back.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace s4bxi {

// A command line as a shell splits it: words separated by blanks, with
// '...' and "..." quoting (no expansions). Nullopt if a quote is not closed.
std::optional<std::vector<std::string>> split_command_line(const std::string& text);

} // namespace s4bxi
