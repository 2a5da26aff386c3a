#include "launch_options.hpp"

#include "log_settings.hpp"

#include <algorithm>
#include <charconv>

namespace s4bxi {
namespace {

bool parse_count(const std::string& text, unsigned& value)
{
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size() && value > 0;
}

std::optional<Abi> parse_abi(const std::string& text)
{
  for (Abi abi : {Abi::Auto, Abi::Bxi, Abi::Sandia, Abi::SandiaLegacy})
    if (text == abi_name(abi))
      return abi;
  return std::nullopt;
}

} // namespace

const char* abi_name(Abi abi)
{
  switch (abi) {
  case Abi::Auto: return "auto";
  case Abi::Bxi: return "bxi";
  case Abi::Sandia: return "sandia";
  case Abi::SandiaLegacy: return "sandia-legacy";
  }
  return "auto";
}

namespace {

// "2", "0,5", "0-3,8": ranges of rank numbers, not expanded: the job's
// rank count (which bounds them) may come later on the command line, and a
// range as large as "0-999999999" must be refused, not listed.
using RankRange = std::pair<unsigned, unsigned>;
bool parse_rank_list(const std::string& text, std::vector<RankRange>& ranges)
{
  std::vector<RankRange> result;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos)
      comma = text.size();
    const std::string item = text.substr(start, comma - start);
    const size_t dash = item.find('-');
    unsigned first = 0, last = 0;
    auto number = [](const std::string& digits, unsigned& out) {
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        return false;
      out = static_cast<unsigned>(std::stoul(digits));
      return true;
    };
    if (dash == std::string::npos ? not number(item, first)
                                  : not number(item.substr(0, dash), first) || not number(item.substr(dash + 1), last))
      return false;
    if (dash == std::string::npos)
      last = first;
    if (last < first)
      return false;
    result.emplace_back(first, last);
    start = comma + 1;
  }
  ranges = std::move(result);
  return not ranges.empty();
}

// Rank numbers, sorted and without repeats, of ranges known to lie below the rank count.
std::vector<unsigned> expand(const std::vector<RankRange>& ranges)
{
  std::vector<unsigned> ranks;
  for (auto [first, last] : ranges)
    for (unsigned rank = first; rank <= last; ++rank)
      ranks.push_back(rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

} // namespace

std::optional<LaunchOptions> parse_launch_options(const std::vector<std::string>& args, std::string& error)
{
  LaunchOptions options;
  std::vector<RankRange> debugged_ranges;
  error.clear(); // also the signal of value_of()'s failures below
  size_t i = 0;
  // Options taking a value accept "--opt value" and "--opt=value".
  auto value_of = [&](const std::string& arg, const std::string& name, std::string& value) {
    if (arg == name) {
      if (i + 1 >= args.size()) {
        error = "option " + name + " needs a value";
        return false;
      }
      value = args[++i];
      return true;
    }
    if (arg.rfind(name + "=", 0) == 0) {
      value = arg.substr(name.size() + 1);
      return true;
    }
    return false;
  };
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string value;
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.empty() || arg[0] != '-')
      break; // the program
    if (arg == "-h" || arg == "--help") {
      options.help = true;
    } else if (arg == "--help-cfg") {
      options.help_cfg = true;
    } else if (arg == "--version") {
      options.version = true;
    } else if (arg == "-v" || arg == "--verbose") {
      options.verbose = true;
    } else if (value_of(arg, "-n", value) || value_of(arg, "-np", value) || value_of(arg, "--ranks", value)) {
      if (not error.empty())
        return std::nullopt;
      if (not parse_count(value, options.ranks)) {
        error = "the rank count '" + value + "' is not a positive integer";
        return std::nullopt;
      }
    } else if (value_of(arg, "--platform", value)) {
      if (value.empty()) {
        error = "option --platform needs a file or a fattree: specification";
        return std::nullopt;
      }
      options.platform = value;
    } else if (value_of(arg, "--report", value)) {
      options.report_path = value;
    } else if (value_of(arg, "--trace", value)) {
      if (error.empty() && value.empty()) {
        error = "option --trace needs a directory";
        return std::nullopt;
      }
      options.trace_dir = value;
    } else if (value_of(arg, "--preload-library", value)) {
      options.preload_library = value;
    } else if (value_of(arg, "--layer", value)) {
      options.layer = value;
    } else if (arg == "--mca" || arg == "-mca" || arg == "--gmca") {
      // As mpirun has it: two values.
      if (i + 2 >= args.size()) {
        error = "option " + arg + " needs a parameter name and a value (e.g. --mca mtl_portals4_eager_limit 4096)";
        return std::nullopt;
      }
      options.mca.emplace_back(args[i + 1], args[i + 2]);
      i += 2;
    } else if (value_of(arg, "--ppn", value)) {
      if (not error.empty())
        return std::nullopt;
      if (not parse_count(value, options.ranks_per_node)) {
        error = "the ranks per node '" + value + "' is not a positive integer";
        return std::nullopt;
      }
    } else if (value_of(arg, "--placement", value)) {
      if (not error.empty())
        return std::nullopt;
      if (value != "block" && value != "round-robin") {
        error = "the placement '" + value + "' is unknown (use --placement block or round-robin)";
        return std::nullopt;
      }
      options.block_placement = value == "block";
    } else if (value_of(arg, "--abi", value)) {
      if (not error.empty())
        return std::nullopt;
      auto abi = parse_abi(value);
      if (not abi) {
        error = "the ABI '" + value + "' is unknown (use --abi auto, bxi, sandia or sandia-legacy)";
        return std::nullopt;
      }
      options.abi = *abi;
    } else if (value_of(arg, "--mpi", value)) {
      if (not error.empty())
        return std::nullopt;
      if (value != "auto" && value != "on" && value != "off") {
        error = "the MPI mode '" + value + "' is unknown (use --mpi auto, on or off)";
        return std::nullopt;
      }
      options.mpi = value == "on" ? MpiMode::On : value == "off" ? MpiMode::Off : MpiMode::Auto;
    } else if (value_of(arg, "--gdb", value)) {
      if (not error.empty())
        return std::nullopt;
      if (not parse_rank_list(value, debugged_ranges)) {
        error = "the ranks to debug '" + value + "' are not a list of ranks (e.g. --gdb 2 or --gdb 0,5 or --gdb 0-3)";
        return std::nullopt;
      }
    } else if (value_of(arg, "--debugger", value)) {
      if (not error.empty())
        return std::nullopt;
      options.debugger = value;
    } else if (value_of(arg, "--cfg", value)) {
      if (not error.empty())
        return std::nullopt;
      // SimGrid aborts on a setting without a value.
      const size_t colon = value.find(':');
      if (colon == std::string::npos || colon == 0) {
        error = "--cfg=" + value + " gives " + (colon == 0 ? "no option name" : "no value") +
                "; write --cfg=NAME:VALUE (s4bxi-run --help-cfg lists the model options)";
        return std::nullopt;
      }
      options.simgrid_args.push_back("--cfg=" + value);
    } else if (value_of(arg, "--log", value)) {
      if (not error.empty())
        return std::nullopt;
      if (auto problem = check_log_settings(value)) {
        error = *problem;
        return std::nullopt;
      }
      options.simgrid_args.push_back("--log=" + value);
    } else {
      if (error.empty()) // value_of() may have found a missing value
        error = "unknown option '" + arg + "'";
      return std::nullopt;
    }
    if (not error.empty())
      return std::nullopt;
  }
  for (; i < args.size(); ++i)
    options.program.push_back(args[i]);
  if (options.program.empty() && not options.help && not options.help_cfg && not options.version) {
    error = "no program to run";
    return std::nullopt;
  }
  for (auto [first, last] : debugged_ranges)
    if (last >= options.ranks) {
      error = "--gdb names rank " + std::to_string(last) + ", but the job has " + std::to_string(options.ranks) +
              " ranks (0 to " + std::to_string(options.ranks - 1) + ")";
      return std::nullopt;
    }
  options.debugged_ranks = expand(debugged_ranges);
  return options;
}

std::vector<std::string> to_arguments(const LaunchOptions& options)
{
  std::vector<std::string> args = {"-n", std::to_string(options.ranks)};
  if (not options.platform.empty())
    args.push_back("--platform=" + options.platform);
  if (not options.report_path.empty())
    args.push_back("--report=" + options.report_path);
  if (not options.trace_dir.empty())
    args.push_back("--trace=" + options.trace_dir);
  if (not options.preload_library.empty())
    args.push_back("--preload-library=" + options.preload_library);
  if (not options.layer.empty())
    args.push_back("--layer=" + options.layer);
  for (const auto& [name, value] : options.mca) {
    args.emplace_back("--mca");
    args.push_back(name);
    args.push_back(value);
  }
  if (options.abi != Abi::Auto)
    args.push_back(std::string("--abi=") + abi_name(options.abi));
  if (options.ranks_per_node != 0)
    args.push_back("--ppn=" + std::to_string(options.ranks_per_node));
  if (not options.debugged_ranks.empty()) {
    std::string list;
    for (unsigned rank : options.debugged_ranks)
      list += (list.empty() ? "" : ",") + std::to_string(rank);
    args.push_back("--gdb=" + list);
  }
  if (not options.debugger.empty())
    args.push_back("--debugger=" + options.debugger);
  if (options.block_placement)
    args.emplace_back("--placement=block");
  if (options.verbose)
    args.emplace_back("--verbose");
  for (const auto& arg : options.simgrid_args)
    args.push_back(arg);
  if (options.help_cfg)
    args.emplace_back("--help-cfg");
  args.emplace_back("--");
  for (const auto& arg : options.program)
    args.push_back(arg);
  return args;
}

std::string usage_text()
{
  return "Usage: s4bxi-run [options] [--] program [args...]\n"
         "Runs an unmodified, dynamically linked Portals 4 or MPI program (built with\n"
         "Debian's OpenMPI) as N processes on a simulated BXI cluster (SimGrid).\n\n"
         "Options:\n"
         "  -n, -np, --ranks N     number of ranks (default 1)\n"
         "  --platform SPEC        SimGrid XML platform file, or fattree:L;DOWN;UP;PARALLEL\n"
         "                         (default: fattree:1;2;1;1, two nodes behind one switch)\n"
         "  --ppn N                at most N ranks per node (default: one per core)\n"
         "  --placement round-robin|block\n"
         "                         rank r on node r mod nodes (default), or fill each node\n"
         "                         (up to --ppn ranks) before the next\n"
         "  --report FILE          write a JSON report of the run\n"
         "  --trace DIR            write a trace of the run: DIR/events.csv (every NIC\n"
         "                         message, PCIe transfer, compute, Portals call and\n"
         "                         wait) and DIR/trace.json (for Perfetto or\n"
         "                         chrome://tracing)\n"
         "  --cfg=NAME:VALUE       set a model or SimGrid option (s4bxi/... options: --help-cfg)\n"
         "  --log=CATEGORY.thres:LEVEL  SimGrid logging, e.g. --log=s4bxi_nic.thres:debug\n"
         "  --abi auto|bxi|sandia|sandia-legacy\n"
         "                         the portals4.h the program was compiled against: BXI's\n"
         "                         (pointer handles), Sandia's reference one (32-bit\n"
         "                         handles; the emulator's default portals4.h), or\n"
         "                         Sandia's before its 2023 renumbering (sandia-legacy,\n"
         "                         what MPI programs get). auto (default) reads it from\n"
         "                         the program's debug information (handle width, return\n"
         "                         codes), else from the calls it makes (PtlAbort: sandia),\n"
         "                         else takes sandia, and then says so\n"
         "  --gdb RANKS            start these ranks (2, or 0,5, or 0-3) stopped at main\n"
         "                         under gdb in this terminal; the simulated clock of the\n"
         "                         whole job waits while a rank is stopped\n"
         "  --debugger CMD         the debugger for --gdb, e.g. \"gdb -tui\" (default:\n"
         "                         $S4BXI_GDB, else gdb from PATH)\n"
         "  --mpi auto|on|off      set OpenMPI up for the ranks: auto (default) when the\n"
         "                         program needs libmpi, or is Python with mpi4py\n"
         "                         installed; on for a program that loads OpenMPI in a\n"
         "                         way the launcher cannot see; off never\n"
         "  --mca NAME VALUE       an OpenMPI parameter for an MPI program, as with mpirun\n"
         "                         (overrides the emulator's choices and OMPI_MCA_NAME)\n"
         "  -v, --verbose          say which ABI was chosen and why, and for an MPI\n"
         "                         program which OpenMPI parameters are set\n"
         "  --help-cfg             list the model options with their defaults\n"
         "  -h, --help             this help\n"
         "  --version              print the version\n\n"
         "Exit status: 0 when every rank exits 0, otherwise the first failing rank's\n"
         "status (128+N for signal N); 2 for a usage error; 86 when the ranks deadlock.\n";
}

} // namespace s4bxi
