#include "mpi_launch.hpp"
#include "shared_libraries.hpp"

#include <cstdlib>
#include <cstring>
#include <set>
#include <unistd.h>

namespace fs = std::filesystem;

namespace s4bxi::launcher {
namespace {

bool is_mpi_soname(const std::string& name)
{
  return name.rfind("libmpi.so.", 0) == 0 || name.rfind("libmpich.so.", 0) == 0;
}

} // namespace

std::optional<MpiLibrary> find_mpi_library(const fs::path& program)
{
  for (const auto& library : needed_libraries(program))
    if (is_mpi_soname(library.soname))
      return MpiLibrary{library.soname, library.real.string()};
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
  // OpenMPI's MPI_Init discovers the machine with hwloc, its I/O devices
  // included: on a VM, hwloc's reads of every PCI device's configuration
  // space (a hypervisor exit each) were a sixth of a rank's CPU time in
  // MPI_Init. The ranks run on simulated nodes, whose NIC is not among the
  // host's devices: hwloc skips them (its Linux I/O backend and its PCI,
  // OpenCL and display plugins), and does not even load those plugins (the
  // display one loads X11's libraries), unless the user chose otherwise.
  if (not already.count("HWLOC_COMPONENTS"))
    environment.push_back("HWLOC_COMPONENTS=-linuxio,-pci,-opencl,-gl");
  if (not already.count("HWLOC_PLUGINS_BLACKLIST"))
    environment.push_back("HWLOC_PLUGINS_BLACKLIST=hwloc_pci,hwloc_opencl,hwloc_gl");
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
