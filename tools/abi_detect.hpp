// Which binary flavour of portals4.h a program was compiled against, read
// from the program itself (s4bxi-run --abi auto).
//
// The handle types tell the flavours apart: 4 bytes in Sandia's ABI, 8 in
// BXI's. A program built with debug information says how wide its
// ptl_handle_*_t are; without it, a call that only one flavour's library has
// (BXI's PtlToStr or PtlPutNB, Sandia's PtlTriggeredMEAppend) is the next best
// evidence. Otherwise the answer is the default flavour.
#pragma once

#include "launch_options.hpp"

#include <filesystem>
#include <string>

namespace s4bxi::launcher {

struct AbiEvidence {
  Abi abi = Abi::Sandia;
  std::string reason;          // why, for the user: "DWARF: ptl_handle_ni_t is 8 bytes"
  bool from_types = false;     // decided by the debug information's handle type
  bool calls_portals = false;  // the program itself calls Portals functions
};

// Never fails: an unreadable or non-ELF program (a script) gets the default.
AbiEvidence detect_abi(const std::filesystem::path& program, Abi default_abi);

} // namespace s4bxi::launcher
