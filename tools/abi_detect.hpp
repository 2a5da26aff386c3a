// Which binary flavour of portals4.h a program was compiled against, read
// from the program itself (s4bxi-run --abi auto), or, when the program makes
// no Portals call of its own, from the first library it loads that does (an
// OpenSHMEM program calls Portals through SOS's libsma.so), the same way.
//
// First the flavour: the handle types are 4 bytes in Sandia's ABI, 8 in
// BXI's. A program built with debug information says how wide its
// ptl_handle_*_t are; without it, a call that only one flavour's library has
// (BXI's PtlToStr or PtlPutNB, Sandia's PtlTriggeredMEAppend) is the next best
// evidence.
//
// Then, for Sandia's ABI, its generation (docs/sandia-abi-generations.md):
// the renumbering of 2023-24 kept the handles and the structures but changed
// return codes and option bits. The program's debug information has the
// return codes it compares with (enum ptl_retvals: PTL_INTERRUPTED only before
// the renumbering, PTL_ABORTED only after, PTL_NO_SPACE and PTL_PT_IN_USE
// moved); without it, a call to PtlAbort (current generation only) tells.
//
// Otherwise the answer is the default flavour, the current generation of
// Sandia's, and the reason names the --abi that would override it.
#pragma once

#include "launch_options.hpp"

#include <filesystem>
#include <string>

namespace s4bxi::launcher {

struct AbiEvidence {
  Abi abi = Abi::Sandia;
  std::string reason; // why, for the user: "DWARF: ptl_handle_ni_t is 8 bytes"
  // Decided by the debug information with nothing left to guess: the handle
  // width, and for Sandia's ABI the generation too. When false for a program
  // that calls Portals, the launcher prints the reason (it was a guess).
  bool from_types = false;
  bool calls_portals = false; // the program, or a library it loads, calls Portals functions
};

// Never fails: an unreadable or non-ELF program (a script) gets the default.
AbiEvidence detect_abi(const std::filesystem::path& program, Abi default_abi);

} // namespace s4bxi::launcher
