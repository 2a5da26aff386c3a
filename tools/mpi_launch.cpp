#include "mpi_launch.hpp"

#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <gelf.h>
#include <libelf.h>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace s4bxi::launcher {
namespace {

// What the dynamic linker reads of one object: the libraries it needs and
// where to look for them.
struct DynamicInfo {
  std::vector<std::string> needed;
  std::vector<std::string> rpath;
  std::vector<std::string> runpath;
};

std::vector<std::string> split_paths(const std::string& text, const fs::path& origin)
{
  std::vector<std::string> dirs;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(':', start);
    if (end == std::string::npos)
      end = text.size();
    std::string dir = text.substr(start, end - start);
    for (const char* token : {"$ORIGIN", "${ORIGIN}"})
      for (size_t at; (at = dir.find(token)) != std::string::npos;)
        dir.replace(at, std::strlen(token), origin.string());
    if (not dir.empty())
      dirs.push_back(dir);
    start = end + 1;
  }
  return dirs;
}

std::optional<DynamicInfo> read_dynamic(const fs::path& object)
{
  int fd = open(object.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return std::nullopt;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  std::optional<DynamicInfo> info;
  if (elf != nullptr && elf_kind(elf) == ELF_K_ELF) {
    info.emplace();
    const fs::path origin = object.parent_path();
    for (Elf_Scn* section = elf_nextscn(elf, nullptr); section != nullptr; section = elf_nextscn(elf, section)) {
      GElf_Shdr header;
      if (gelf_getshdr(section, &header) == nullptr || header.sh_type != SHT_DYNAMIC)
        continue;
      Elf_Data* data = elf_getdata(section, nullptr);
      for (size_t i = 0; data != nullptr && i < header.sh_size / header.sh_entsize; ++i) {
        GElf_Dyn entry;
        if (gelf_getdyn(data, static_cast<int>(i), &entry) == nullptr)
          continue;
        const char* text = nullptr;
        if (entry.d_tag == DT_NEEDED || entry.d_tag == DT_RPATH || entry.d_tag == DT_RUNPATH)
          text = elf_strptr(elf, header.sh_link, entry.d_un.d_val);
        if (text == nullptr)
          continue;
        if (entry.d_tag == DT_NEEDED)
          info->needed.emplace_back(text);
        else
          (entry.d_tag == DT_RPATH ? info->rpath : info->runpath) = split_paths(text, origin);
      }
    }
  }
  if (elf != nullptr)
    elf_end(elf);
  close(fd);
  return info;
}

// The directories of /etc/ld.so.conf (one level of `include`), then the
// defaults: where the dynamic linker finds what no path names.
const std::vector<std::string>& system_library_dirs()
{
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> found;
    std::deque<fs::path> files{"/etc/ld.so.conf"};
    while (not files.empty()) {
      std::ifstream in(files.front());
      files.pop_front();
      for (std::string line; std::getline(in, line);) {
        line = line.substr(0, line.find('#'));
        while (not line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
          line.pop_back();
        if (line.rfind("include ", 0) == 0) {
          const fs::path pattern = line.substr(8);
          std::error_code ignored;
          for (const auto& entry : fs::directory_iterator(pattern.parent_path(), ignored))
            if (entry.path().extension() == ".conf")
              files.push_back(entry.path());
        } else if (not line.empty() && line[0] == '/') {
          found.push_back(line);
        }
      }
    }
    for (const char* dir : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
                            "/usr/lib"})
      found.emplace_back(dir);
    return found;
  }();
  return dirs;
}

std::optional<fs::path> locate(const std::string& name, const DynamicInfo& from)
{
  if (name.find('/') != std::string::npos)
    return fs::exists(name) ? std::optional<fs::path>(name) : std::nullopt;
  std::vector<std::string> dirs;
  if (from.runpath.empty())
    dirs = from.rpath;
  if (const char* env = std::getenv("LD_LIBRARY_PATH"))
    for (auto& dir : split_paths(env, "."))
      dirs.push_back(dir);
  dirs.insert(dirs.end(), from.runpath.begin(), from.runpath.end());
  dirs.insert(dirs.end(), system_library_dirs().begin(), system_library_dirs().end());
  for (const auto& dir : dirs) {
    fs::path candidate = fs::path(dir) / name;
    if (access(candidate.c_str(), R_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

bool is_mpi_soname(const std::string& name)
{
  return name.rfind("libmpi.so.", 0) == 0 || name.rfind("libmpich.so.", 0) == 0;
}

} // namespace

std::optional<MpiLibrary> find_mpi_library(const fs::path& program)
{
  // Breadth first: the libraries the program names come before theirs.
  std::deque<fs::path> pending{program};
  std::set<std::string> seen;
  while (not pending.empty()) {
    const fs::path object = pending.front();
    pending.pop_front();
    auto info = read_dynamic(object);
    if (not info)
      continue;
    for (const auto& name : info->needed) {
      auto path = locate(name, *info);
      if (not path)
        continue;
      std::error_code ignored;
      const std::string real = fs::canonical(*path, ignored).string();
      if (is_mpi_soname(name))
        return MpiLibrary{name, real.empty() ? path->string() : real};
      if (seen.insert(real).second)
        pending.push_back(*path);
    }
  }
  return std::nullopt;
}

std::string openmpi_layer(const OpenMpiSupport& support)
{
  return "MPI (Open MPI " + support.version + ": pml cm, mtl portals4)";
}

std::optional<std::vector<std::string>> openmpi_environment(const MpiLibrary& mpi, const OpenMpiSupport& support,
                                                            const LaunchOptions& options, std::string& error,
                                                            char** environment_now)
{
  const std::string program = options.program.empty() ? "the program" : "'" + options.program[0] + "'";
  if (mpi.soname != "libmpi.so.40") {
    error = program + " uses " + mpi.soname + " (" + mpi.path +
            "), an MPI library the emulator cannot drive; it runs programs built with Debian's OpenMPI " +
            (support.version.empty() ? std::string("4.1") : support.version) + " (libmpi.so.40, mpicc from libopenmpi-dev)";
    return std::nullopt;
  }
  if (not support.built) {
    error = program +
            " is an OpenMPI program, but this emulator was built without OpenMPI's Portals 4 components; run "
            "tools/install-deps.sh (it installs libopenmpi-dev and fetches its source package) and build again";
    return std::nullopt;
  }
  if (mpi.path != support.libmpi) {
    error = program + " uses the OpenMPI library " + mpi.path + ", but the emulator's Portals 4 components were built for " +
            support.libmpi + " (Open MPI " + support.version + "); run it with that OpenMPI (e.g. without LD_LIBRARY_PATH or RPATH to another one)";
    return std::nullopt;
  }
  if (not fs::exists(support.components / "mca_mtl_portals4.so") || not fs::exists(support.pmi_library)) {
    error = "OpenMPI's Portals 4 components or libs4bxi-pmi.so are missing from " + support.components.string() +
            "; reinstall the emulator";
    return std::nullopt;
  }
  if (options.abi == Abi::Bxi || options.abi == Abi::Sandia) {
    error = std::string("--abi ") + abi_name(options.abi) +
            " cannot serve an OpenMPI program: OpenMPI 4.1's Portals 4 components are built against Sandia's "
            "portals4.h before its 2023 renumbering (use --abi sandia-legacy or auto, or --mpi off for a program "
            "that does not use MPI)";
    return std::nullopt;
  }

  // OpenMPI's parameters: what a user set stays, --mca wins over everything.
  std::set<std::string> already;
  for (char** entry = environment_now; entry != nullptr && *entry != nullptr; ++entry) {
    std::string variable = *entry;
    already.insert(variable.substr(0, variable.find('=')));
  }
  std::vector<std::string> environment;
  auto parameter = [&](const std::string& name, const std::string& value) {
    if (not already.count("OMPI_MCA_" + name))
      environment.push_back("OMPI_MCA_" + name + "=" + value);
  };
  parameter("mca_base_component_path", support.components.string() + ":" + support.system_components.string());
  // Every byte through the simulated NIC: the cm PML over the Portals 4 MTL,
  // one-sided over Portals 4, and no shared-memory or TCP transport (not even
  // between ranks of one node, as the NIC would carry them on BXI).
  parameter("pml", "cm");
  parameter("mtl", "portals4");
  parameter("btl", "self");
  parameter("osc", "portals4");
  // OpenMPI's own collective algorithms (tuned, over the MTL). coll/portals4
  // (collectives offloaded as triggered operations) is built and can be asked
  // for with --mca coll ^sm; it is left out by default because its broadcast
  // of a non-contiguous datatype is broken in Open MPI 4.1.4: a non-root
  // sizes its buffer from a field it never sets (prepare_bcast_data), so root
  // and leaves pick different algorithms and every rank waits in PtlCTWait
  // for messages never sent (tuned's MPI_Allgatherv on 3-7 ranks does that).
  parameter("coll", "^sm,portals4");
  // Bootstrap through OpenMPI's pmix/flux component, which loads the PMI-1
  // library named by FLUX_PMI_LIBRARY_PATH: ours talks to the server's PMI
  // service, every collective of it completing in simulated time.
  parameter("pmix", "flux");
  // OpenMPI's session directories (one per job and rank, named after the
  // node) go under a directory that the server makes for the run and removes
  // when it ends (simserver/job/session_directory.hpp), unless the user set
  // OMPI_MCA_orte_tmpdir_base.
  environment.push_back("FLUX_JOB_ID=" + std::to_string(getpid()));
  environment.push_back("FLUX_PMI_LIBRARY_PATH=" + support.pmi_library.string());
  for (const auto& [name, value] : options.mca)
    environment.push_back("OMPI_MCA_" + name + "=" + value);
  return environment;
}

} // namespace s4bxi::launcher
