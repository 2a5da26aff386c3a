// Terminals for ranks under the debugger when several are (s4bxi-run --gdb
// 0,5 inside tmux): one tmux window each. The window only lends its terminal:
// it runs a placeholder that ignores Ctrl-C, and the debugger, started by the
// server like any rank (so that it inherits the run's descriptors), reads and
// writes that window's terminal.
#pragma once

#include <optional>
#include <string>

namespace s4bxi::job {

struct TmuxWindow {
  std::string id;       // "@12"
  std::string terminal; // "/dev/pts/7"
};

// Opens a detached window named `name` in the tmux session s4bxi-run runs in;
// nullopt with `error` set to one sentence if tmux cannot.
std::optional<TmuxWindow> open_tmux_window(const std::string& name, std::string& error);
void close_tmux_window(const TmuxWindow& window);

} // namespace s4bxi::job
