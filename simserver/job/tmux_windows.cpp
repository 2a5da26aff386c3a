#include "tmux_windows.hpp"

#include <cstdio>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>

namespace s4bxi::job {

namespace {

// Runs `tmux args...` and returns its standard output, or nullopt if it failed.
std::optional<std::string> tmux(const std::vector<std::string>& args)
{
  int out[2];
  if (pipe(out) != 0)
    return std::nullopt;
  const pid_t pid = fork();
  if (pid < 0) {
    close(out[0]);
    close(out[1]);
    return std::nullopt;
  }
  if (pid == 0) {
    dup2(out[1], 1);
    close(out[0]);
    close(out[1]);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>("tmux"));
    for (const auto& arg : args)
      argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    execvp("tmux", argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string text;
  char buffer[256];
  ssize_t got;
  while ((got = read(out[0], buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<size_t>(got));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (not WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  while (not text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  return text;
}

} // namespace

std::optional<TmuxWindow> open_tmux_window(const std::string& name, std::string& error)
{
  auto printed = tmux({"new-window", "-d", "-n", name, "-P", "-F", "#{window_id} #{pane_tty}",
                       "trap '' INT; exec sleep 2147483647"});
  const auto space = printed ? printed->find(' ') : std::string::npos;
  if (space == std::string::npos) {
    error = "cannot open a tmux window for " + name + " (is s4bxi-run running inside tmux?)";
    return std::nullopt;
  }
  return TmuxWindow{printed->substr(0, space), printed->substr(space + 1)};
}

void close_tmux_window(const TmuxWindow& window)
{
  tmux({"kill-window", "-t", window.id});
}

} // namespace s4bxi::job
