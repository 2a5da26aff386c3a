// The command line of s4bxi-run, parsed the same way by the launcher (which
// checks it and the program) and by the server it hands over to.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace s4bxi {

// Which binary flavour of libportals the ranks get (docs/abi.md): the ABI the
// program was compiled against, or `Auto` to let the launcher read it from the
// program.
// Sandia: the current generation of Sandia's numbering (2023-24);
// SandiaLegacy: the one before it (OpenMPI 4.1's Portals components use it).
enum class Abi { Auto, Bxi, Sandia, SandiaLegacy };

// "auto", "bxi", "sandia", "sandia-legacy".
const char* abi_name(Abi abi);

// Whether the ranks get OpenMPI's set-up (docs/mpi.md): `Auto`
// lets the launcher find MPI in what the program loads (its libraries, or
// mpi4py for a Python program); `On` and `Off` decide for it.
enum class MpiMode { Auto, On, Off };

struct LaunchOptions {
  unsigned ranks = 1;
  std::string platform;                  // fattree: spec or XML path; empty: the default platform
  std::string report_path;               // --report FILE
  std::string trace_dir;                 // --trace DIR
  std::vector<std::string> simgrid_args; // --cfg=... and --log=..., in command-line order
  std::vector<std::string> program;      // program and its arguments
  std::string preload_library;           // given by the launcher to the server
  std::string layer;                     // given by the launcher: the programming layer ("MPI (...)"), for the report
  std::vector<std::pair<std::string, std::string>> mca; // --mca NAME VALUE: OpenMPI parameters, in order
  Abi abi = Abi::Auto;                   // --abi
  MpiMode mpi = MpiMode::Auto;           // --mpi (the launcher's decision; the server is not told)
  std::vector<unsigned> debugged_ranks;  // --gdb RANKS: these ranks start under the debugger
  std::string debugger;                  // --debugger CMD (launcher: S4BXI_GDB, else "gdb")
  unsigned ranks_per_node = 0;           // --ppn: at most this many ranks per node (0: the node's cores)
  bool block_placement = false;          // --placement block (fill a node first) or round-robin (default)
  bool verbose = false;                  // --verbose: the launcher says what it decided
  bool help = false;
  bool help_cfg = false;
  bool version = false;
};

// Returns nullopt with `error` set to one sentence on bad input.
std::optional<LaunchOptions> parse_launch_options(const std::vector<std::string>& args, std::string& error);

// The arguments that make the server parse the same options (program included).
std::vector<std::string> to_arguments(const LaunchOptions& options);

std::string usage_text();

} // namespace s4bxi
