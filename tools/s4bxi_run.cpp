// s4bxi-run: checks the command line and the program, then becomes the server
// (exec, same pid), which starts the ranks as its children.
#include "abi_detect.hpp"
#include "command_line.hpp"
#include "launch_options.hpp"
#include "mpi_launch.hpp"
#include "python_mpi.hpp"

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <optional>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef S4BXI_VERSION
#define S4BXI_VERSION "unknown"
#endif
// What the build made for OpenMPI (preload/openmpi/CMakeLists.txt).
#ifndef S4BXI_OPENMPI_BUILT
#define S4BXI_OPENMPI_BUILT 0
#define S4BXI_OPENMPI_LIBMPI ""
#define S4BXI_OPENMPI_VERSION ""
#define S4BXI_OPENMPI_COMPONENT_DIR ""
#endif

extern char** environ;

namespace fs = std::filesystem;

namespace {

constexpr int kUsageError = 2;

[[noreturn]] void fail(const std::string& sentence)
{
  std::fprintf(stderr, "s4bxi-run: %s\n", sentence.c_str());
  std::exit(kUsageError);
}

bool is_executable_file(const fs::path& path)
{
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

// Like the shell: a name with a slash is a path, otherwise it is searched in
// PATH. Nullopt if there is no such executable file.
std::optional<fs::path> find_executable(const std::string& name)
{
  if (name.find('/') != std::string::npos)
    return is_executable_file(name) ? std::optional(fs::absolute(name)) : std::nullopt;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos)
      end = dirs.size();
    fs::path candidate = fs::path(dirs.substr(start, end - start).empty() ? "." : dirs.substr(start, end - start)) / name;
    if (is_executable_file(candidate))
      return fs::absolute(candidate);
    start = end + 1;
  }
  return std::nullopt;
}

bool program_in_path(const std::string& name)
{
  return find_executable(name).has_value();
}

fs::path resolve_program(const std::string& name)
{
  if (auto found = find_executable(name))
    return *found;
  if (name.find('/') == std::string::npos)
    fail("program '" + name + "' not found (not a path, and not in PATH)");
  if (not fs::exists(name))
    fail("program '" + name + "' not found");
  fail("program '" + name + "' is not an executable file");
}

// The emulator works through the dynamic linker (LD_PRELOAD): a static
// executable would run outside the simulation, and so would a 32-bit one (the
// 32-bit loader skips our 64-bit library, with a warning nobody reads).
// Scripts are let through (their interpreter is dynamic and the preload
// follows exec).
void refuse_executable_out_of_reach(const fs::path& program)
{
  int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    fail("cannot open '" + program.string() + "': " + strerror(errno));
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  bool is_elf = elf != nullptr && elf_kind(elf) == ELF_K_ELF;
  const bool is_32_bit = is_elf && gelf_getclass(elf) == ELFCLASS32;
  bool dynamic = false;
  size_t headers = 0;
  if (is_elf && elf_getphdrnum(elf, &headers) == 0) {
    for (size_t i = 0; i < headers; ++i) {
      GElf_Phdr header;
      if (gelf_getphdr(elf, static_cast<int>(i), &header) != nullptr && header.p_type == PT_INTERP)
        dynamic = true;
    }
  }
  if (elf != nullptr)
    elf_end(elf);
  close(fd);
  if (is_32_bit)
    fail("'" + program.string() +
         "' is a 32-bit program; the emulator's libraries are 64-bit, so the dynamic linker would run it outside "
         "the simulation: rebuild it as a 64-bit executable (without -m32)");
  if (is_elf && not dynamic)
    fail("'" + program.string() +
         "' is statically linked; the emulator intercepts Portals and time calls through the dynamic linker, so "
         "rebuild it as a dynamically linked executable (without -static)");
}

// The flavour of lib/libportals.so.4 and include/portals4.h (preload/).
constexpr s4bxi::Abi kDefaultAbi = s4bxi::Abi::Sandia;

// The flavour of libportals the ranks get, and the one line that says so when
// the launcher had to guess (or was asked to tell).
s4bxi::Abi choose_abi(const s4bxi::LaunchOptions& options, const fs::path& program)
{
  if (options.abi != s4bxi::Abi::Auto) {
    if (options.verbose)
      std::fprintf(stderr, "s4bxi-run: ABI %s (--abi %s)\n", s4bxi::abi_name(options.abi),
                   s4bxi::abi_name(options.abi));
    return options.abi;
  }
  s4bxi::launcher::AbiEvidence evidence = s4bxi::launcher::detect_abi(program, kDefaultAbi);
  // A guess about a Portals program is worth a line: if it is wrong, the run
  // fails in ways that do not point at the ABI.
  if (options.verbose or (evidence.calls_portals and not evidence.from_types))
    std::fprintf(stderr, "s4bxi-run: ABI %s\n", evidence.reason.c_str());
  return evidence.abi;
}

fs::path own_directory()
{
  char buffer[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (length <= 0)
    fail("cannot find where s4bxi-run is installed (/proc/self/exe unreadable)");
  buffer[length] = '\0';
  return fs::path(buffer).parent_path();
}

// The MPI library the ranks will load, and how the launcher knows (for -v):
// the program needs it (its own libraries), or it is Python and mpi4py's
// module needs it, or --mpi on says so (Debian's OpenMPI, the one the
// components fit). Nullopt: no MPI set-up.
std::optional<s4bxi::launcher::MpiLibrary> find_mpi(const s4bxi::LaunchOptions& options, const fs::path& program,
                                                    std::string& how)
{
  if (options.mpi == s4bxi::MpiMode::Off) {
    if (not options.mca.empty())
      fail("--mca sets OpenMPI parameters, but --mpi off runs the program without OpenMPI's set-up");
    return std::nullopt;
  }
  if (auto mpi = s4bxi::launcher::find_mpi_library(program)) {
    how = "needs";
    return mpi;
  }
  // A Python program: the interpreter links no libmpi, mpi4py's module does.
  // Setting OpenMPI up when mpi4py is installed, whether or not this program
  // imports it, is harmless (only OpenMPI reads its variables; a program
  // that calls no Portals function does not mind the flavour), whereas
  // missing it would start N one-rank MPI jobs.
  if (auto python = s4bxi::launcher::python_program(program)) {
    if (auto module = s4bxi::launcher::find_mpi4py(*python)) {
      if (auto mpi = s4bxi::launcher::find_mpi_library(*module)) {
        how = "runs Python (" + python->how + ") and mpi4py (" + module->string() + ") needs";
        return mpi;
      }
    } else if (options.verbose) {
      std::fprintf(stderr, "s4bxi-run: %s runs Python (%s), without mpi4py: no MPI set-up\n", program.c_str(),
                   python->how.c_str());
    }
  }
  if (options.mpi == s4bxi::MpiMode::On) {
    how = "loads (--mpi on)";
    return s4bxi::launcher::MpiLibrary{"libmpi.so.40", S4BXI_OPENMPI_LIBMPI};
  }
  if (not options.mca.empty())
    fail("--mca sets OpenMPI parameters, but '" + program.string() +
         "' does not use OpenMPI as far as the launcher can see (it needs no libmpi and is no Python program with "
         "mpi4py); give --mpi on if it loads OpenMPI another way");
  return std::nullopt;
}

// An MPI program: the ranks get OpenMPI's parameters in their environment
// (inherited through the server), the legacy Sandia flavour of libportals
// (the one OpenMPI's Portals components are built against), and the report
// names the layer.
// An MPI program: OpenMPI's parameters in the environment, and the library
// to preload after libportals (libs4bxi-mpi-time.so, which tells it when a
// rank is inside MPI). Not MPI: nothing, and no library.
std::optional<fs::path> prepare_mpi(s4bxi::LaunchOptions& options, const fs::path& program, const fs::path& bin)
{
  std::string how;
  auto mpi = find_mpi(options, program, how);
  if (not mpi)
    return std::nullopt;
  s4bxi::launcher::OpenMpiSupport support;
  support.built = S4BXI_OPENMPI_BUILT != 0;
  support.libmpi = S4BXI_OPENMPI_LIBMPI;
  support.version = S4BXI_OPENMPI_VERSION;
  support.components = bin.parent_path() / "lib" / "openmpi";
  support.system_components = S4BXI_OPENMPI_COMPONENT_DIR;
  support.pmi_library = bin.parent_path() / "lib" / "libs4bxi-pmi.so";
  std::string error;
  auto environment = s4bxi::launcher::openmpi_environment(*mpi, support, options, error, environ);
  if (not environment)
    fail(error);
  for (const auto& variable : *environment) {
    const size_t equals = variable.find('=');
    setenv(variable.substr(0, equals).c_str(), variable.substr(equals + 1).c_str(), 1);
    if (options.verbose)
      std::fprintf(stderr, "s4bxi-run: %s\n", variable.c_str());
  }
  // OpenMPI 4.1's components are written for (and built against) Sandia's
  // numbering before 2023 (preload/openmpi/CMakeLists.txt).
  options.abi = s4bxi::Abi::SandiaLegacy;
  options.layer = s4bxi::launcher::openmpi_layer(support);
  if (options.verbose)
    std::fprintf(stderr, "s4bxi-run: %s %s %s: %s, ABI sandia-legacy\n", program.c_str(), how.c_str(),
                 mpi->path.c_str(), options.layer.c_str());
  const fs::path hooks = bin.parent_path() / "lib" / "libs4bxi-mpi-time.so";
  if (not fs::exists(hooks))
    fail("the MPI hooks library '" + hooks.string() + "' is missing; reinstall the emulator");
  return hooks;
}

// --gdb: which debugger, and whether it can run here.
void prepare_debugger(s4bxi::LaunchOptions& options)
{
  if (options.debugged_ranks.empty())
    return;
  if (options.debugger.empty()) {
    const char* chosen = std::getenv("S4BXI_GDB");
    options.debugger = chosen != nullptr && *chosen != '\0' ? chosen : "gdb";
  }
  auto words = s4bxi::split_command_line(options.debugger);
  if (not words || words->empty())
    fail("the debugger command '" + options.debugger + "' is empty or has an unclosed quote");
  if (fs::path((*words)[0]).filename().string().find("gdb") == std::string::npos)
    fail("--gdb drives gdb (its -ex commands start the rank at main); '" + (*words)[0] +
         "' is not gdb: name a gdb command with --debugger, e.g. \"gdb -tui\"");
  if (not program_in_path((*words)[0]))
    fail("--gdb needs the debugger '" + (*words)[0] + "', which is not installed (not in PATH); install gdb or "
         "name another one with --debugger");
  // One rank: in this terminal. Several: one tmux window each.
  const char* tmux_session = std::getenv("TMUX");
  if (options.debugged_ranks.size() > 1 && (tmux_session == nullptr || *tmux_session == '\0' || not program_in_path("tmux")))
    fail("--gdb with several ranks opens a tmux window for each: run s4bxi-run inside tmux, or debug one rank here "
         "and attach to another with gdb -p PID from another terminal");
}

} // namespace

int main(int argc, char** argv)
{
  std::string error;
  auto options = s4bxi::parse_launch_options(std::vector<std::string>(argv + 1, argv + argc), error);
  if (not options)
    fail(error + "; see s4bxi-run --help");
  if (options->help) {
    std::fputs(s4bxi::usage_text().c_str(), stdout);
    return 0;
  }
  if (options->version) {
    std::printf("s4bxi-run %s\n", S4BXI_VERSION);
    return 0;
  }
  const fs::path bin = own_directory();
  const fs::path server = bin / "s4bxi-simserver";
  if (not is_executable_file(server))
    fail("the server '" + server.string() + "' is missing; reinstall the emulator");
  if (not options->help_cfg) {
    fs::path program = resolve_program(options->program[0]);
    refuse_executable_out_of_reach(program);
    const std::optional<fs::path> mpi_hooks = prepare_mpi(*options, program, bin);
    const s4bxi::Abi abi = choose_abi(*options, program);
    const fs::path preload = bin.parent_path() / "lib" / s4bxi::abi_name(abi) / "libportals.so.4";
    if (not fs::exists(preload))
      fail("the preload library '" + preload.string() + "' is missing; reinstall the emulator");
    options->program[0] = program.string();
    // (A list, as LD_PRELOAD takes it: the hooks call into libportals.)
    options->preload_library = preload.string() + (mpi_hooks ? ":" + mpi_hooks->string() : "");
    prepare_debugger(*options);
  }
  std::vector<std::string> args = s4bxi::to_arguments(*options);
  std::vector<char*> server_argv;
  std::string server_name = server.string();
  server_argv.push_back(server_name.data());
  for (auto& arg : args)
    server_argv.push_back(arg.data());
  server_argv.push_back(nullptr);
  execv(server.c_str(), server_argv.data());
  fail("cannot start the server '" + server.string() + "': " + strerror(errno));
}
