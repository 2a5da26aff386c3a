// Python MPI programs under s4bxi-run: python3 links no libmpi, mpi4py's
// extension module does, and the interpreter loads it when the program
// imports mpi4py. So the launcher looks for the interpreter a job runs and
// for the mpi4py it would import (docs/mpi.md, "Python programs").
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace s4bxi::launcher {

// The Python interpreter a job runs, and how the launcher knows.
struct PythonProgram {
  std::filesystem::path interpreter; // as named (a venv's bin/python3 keeps its venv); empty if not found
  std::string how;                   // "it is python3", "its #! line names python3", "it runs python3"
};

// The program is a Python interpreter (python, python3, python3.11: by the
// name it is run under or the file it resolves to), a script whose #! line
// names one (directly or through env), or a shell script that runs one (an
// interpreter wrapper, e.g. `exec python3 "$@"`). Nullopt otherwise.
std::optional<PythonProgram> python_program(const std::filesystem::path& program);

// mpi4py's MPI extension module (mpi4py/MPI.*.so) that this interpreter would
// import, searched in PYTHONPATH, a virtual environment, the user's site
// directory, the interpreter's prefix and then the system's (/usr/local,
// /usr, Debian's dist-packages included): nullopt if none.
std::optional<std::filesystem::path> find_mpi4py(const PythonProgram& python);

} // namespace s4bxi::launcher
