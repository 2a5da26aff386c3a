// The shared libraries a program loads at start-up: its DT_NEEDED entries and
// those of the libraries they name, found as the dynamic linker finds them.
// The launcher looks there for what the program does through a library: the
// MPI it uses (mpi_launch.hpp), the Portals ABI of a library that calls
// Portals for it (abi_detect.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace s4bxi::launcher {

struct SharedLibrary {
  std::string soname;          // as the program (or a library of it) names it: "libmpi.so.40"
  std::filesystem::path path;  // where the dynamic linker would find it
  std::filesystem::path real;  // the same, all symbolic links resolved
};

// Breadth first (the libraries the program names come before theirs), each
// once, searched like the dynamic linker does (RPATH, LD_LIBRARY_PATH,
// RUNPATH, the system's library directories); a library that cannot be found
// or read is left out, with what it would have needed.
std::vector<SharedLibrary> needed_libraries(const std::filesystem::path& program);

} // namespace s4bxi::launcher
