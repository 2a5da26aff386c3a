// MPI programs under s4bxi-run: recognising a program that uses OpenMPI (its
// own libraries or those it loads at start-up) and setting OpenMPI up as a
// resource manager would, so that every MPI byte crosses the simulated NIC
// through OpenMPI's own Portals 4 components (docs/mpi.md).
#pragma once

#include "launch_options.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace s4bxi::launcher {

// The MPI library a program needs, directly or through its libraries.
struct MpiLibrary {
  std::string soname; // as the program (or a library of it) names it: "libmpi.so.40"
  std::string path;   // where the dynamic linker would find it, all symbolic links resolved
};

// Follows the DT_NEEDED entries of `program` and of the libraries they name,
// searched like the dynamic linker does (RPATH, LD_LIBRARY_PATH, RUNPATH, the
// system's library directories), and returns the first MPI library met
// (libmpi.so.N of OpenMPI, libmpich.so.N of MPICH-ABI libraries).
std::optional<MpiLibrary> find_mpi_library(const std::filesystem::path& program);

// What the build made for OpenMPI (preload/openmpi/) and where it is.
struct OpenMpiSupport {
  bool built = false;                     // the Portals 4 components exist
  std::string libmpi;                     // real path of the libmpi they were built for
  std::string version;                    // its version, "4.1.4"
  std::filesystem::path components;       // our mca_*_portals4.so
  std::filesystem::path system_components; // OpenMPI's own components (all the other frameworks)
  std::filesystem::path pmi_library;      // libs4bxi-pmi.so, loaded by OpenMPI's pmix/flux
};

// The environment an OpenMPI rank gets: each entry "NAME=VALUE". OpenMPI's
// parameters already in `environment_now` (OMPI_MCA_*) are left as they are,
// then `--mca NAME VALUE` options override. Returns nullopt with `error` set
// to one sentence when the program cannot run (components missing, another
// OpenMPI).
std::optional<std::vector<std::string>> openmpi_environment(const MpiLibrary& mpi, const OpenMpiSupport& support,
                                                            const LaunchOptions& options, std::string& error,
                                                            char** environment_now);

// The line the report and `-v` show for the MPI layer.
std::string openmpi_layer(const OpenMpiSupport& support);

} // namespace s4bxi::launcher
