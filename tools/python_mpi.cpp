#include "python_mpi.hpp"

#include <cstdlib>
#include <fstream>
#include <regex>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace s4bxi::launcher {
namespace {

// Interpreter wrappers are short: a script is read this far, no further (a
// large data file given as the program is not read whole).
constexpr std::streamsize kScriptBytesRead = 64 * 1024;

bool is_python_name(const std::string& name)
{
  static const std::regex python("python[0-9.]*");
  return std::regex_match(name, python);
}

bool is_shell_name(const std::string& name)
{
  for (const char* shell : {"sh", "bash", "dash", "ksh", "mksh", "zsh", "busybox"})
    if (name == shell)
      return true;
  return false;
}

// The file the shell would run for `name` (searched in PATH when it has no
// slash), or an empty path.
fs::path in_path(const std::string& name)
{
  if (name.find('/') != std::string::npos)
    return access(name.c_str(), X_OK) == 0 ? fs::path(name) : fs::path();
  const char* path = std::getenv("PATH");
  const std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    const fs::path candidate = fs::path(end == start ? "." : dirs.substr(start, end - start)) / name;
    std::error_code ignored;
    if (fs::is_regular_file(candidate, ignored) && access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return {};
}

std::string head_of(const fs::path& file)
{
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<size_t>(kScriptBytesRead), '\0');
  in.read(text.data(), kScriptBytesRead);
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

// The interpreter a #! line names, through env ("#!/usr/bin/env python3"):
// its name as written, or empty when the text is not a script.
std::string shebang_interpreter(const std::string& text)
{
  if (text.rfind("#!", 0) != 0)
    return {};
  std::vector<std::string> words;
  const std::string line = text.substr(2, text.find('\n') - 2);
  for (size_t at = 0; (at = line.find_first_not_of(" \t\r", at)) != std::string::npos;) {
    const size_t end = line.find_first_of(" \t\r", at);
    words.push_back(line.substr(at, end - at));
    at = end;
  }
  if (words.empty())
    return {};
  if (fs::path(words[0]).filename() != "env")
    return words[0];
  for (size_t i = 1; i < words.size(); ++i) // env's options (-S) and assignments come first
    if (words[i][0] != '-' && words[i].find('=') == std::string::npos)
      return words[i];
  return {};
}

// A word of a shell script that names a Python interpreter ("python3",
// "/usr/bin/python3.11"), or empty. Words are what is left between the
// shell's quotes, operators and expansions.
std::string python_word(const std::string& script)
{
  static const std::regex word("[A-Za-z0-9_./+-]+");
  for (auto it = std::sregex_iterator(script.begin(), script.end(), word); it != std::sregex_iterator(); ++it) {
    const std::string candidate = it->str();
    if (is_python_name(fs::path(candidate).filename().string()))
      return candidate;
  }
  return {};
}

void add_site_dirs(const fs::path& prefix, std::vector<fs::path>& dirs)
{
  // Debian's python3 reads /usr/local/lib/python3.X/dist-packages and
  // /usr/lib/python3/dist-packages (where python3-mpi4py is); upstream's and
  // a virtual environment's read lib/python3.X/site-packages.
  std::error_code ignored;
  for (const fs::path& lib : {prefix / "local" / "lib", prefix / "lib"}) {
    for (const auto& entry : fs::directory_iterator(lib, ignored)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("python3", 0) == 0) {
        dirs.push_back(entry.path() / "site-packages");
        dirs.push_back(entry.path() / "dist-packages");
      }
    }
  }
}

std::optional<fs::path> mpi_extension_in(const fs::path& dir)
{
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(dir / "mpi4py", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("MPI.", 0) == 0 && entry.path().extension() == ".so")
      return entry.path();
  }
  return std::nullopt;
}

} // namespace

std::optional<PythonProgram> python_program(const fs::path& program)
{
  std::error_code ignored;
  const fs::path real = fs::canonical(program, ignored);
  if (is_python_name(program.filename().string()) || is_python_name(real.filename().string()))
    return PythonProgram{program, "it is " + program.filename().string()};
  const std::string text = head_of(program);
  const std::string interpreter = shebang_interpreter(text);
  if (interpreter.empty())
    return std::nullopt;
  const std::string interpreter_name = fs::path(interpreter).filename().string();
  if (is_python_name(interpreter_name))
    return PythonProgram{in_path(interpreter), "its #! line names " + interpreter_name};
  if (not is_shell_name(interpreter_name))
    return std::nullopt;
  const std::string word = python_word(text.substr(text.find('\n') == std::string::npos ? text.size() : text.find('\n')));
  if (word.empty())
    return std::nullopt;
  return PythonProgram{in_path(word), "it runs " + word};
}

std::optional<fs::path> find_mpi4py(const PythonProgram& python)
{
  std::vector<fs::path> dirs;
  if (const char* path = std::getenv("PYTHONPATH")) {
    const std::string text = path;
    for (size_t start = 0; start <= text.size();) {
      size_t end = text.find(':', start);
      if (end == std::string::npos)
        end = text.size();
      if (end > start)
        dirs.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  if (const char* venv = std::getenv("VIRTUAL_ENV"); venv != nullptr && *venv != '\0')
    add_site_dirs(venv, dirs);
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    add_site_dirs(fs::path(home) / ".local", dirs);
  if (not python.interpreter.empty()) {
    // A virtual environment's interpreter is a symbolic link into its base:
    // the environment first (bin/../pyvenv.cfg), then the base's prefix.
    const fs::path named_prefix = fs::absolute(python.interpreter).parent_path().parent_path();
    std::error_code ignored;
    if (fs::exists(named_prefix / "pyvenv.cfg", ignored))
      add_site_dirs(named_prefix, dirs);
    const fs::path real = fs::canonical(python.interpreter, ignored);
    if (not real.empty())
      add_site_dirs(real.parent_path().parent_path(), dirs);
  }
  // The system's, when the interpreter is not found or is a shim (pyenv's
  // is a shell script): what `python3` is on a Debian machine.
  add_site_dirs("/usr", dirs);
  for (const auto& dir : dirs)
    if (auto module = mpi_extension_in(dir))
      return module;
  return std::nullopt;
}

} // namespace s4bxi::launcher
