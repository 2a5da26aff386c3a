#include "abi_detect.hpp"
#include "shared_libraries.hpp"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

namespace s4bxi::launcher {
namespace {

// Every handle typedef of both flavours, the NI's first: it is the one a
// Portals program cannot avoid.
constexpr std::array<std::string_view, 7> kHandleTypes = {
    "ptl_handle_ni_t", "ptl_handle_any_t", "ptl_handle_eq_t", "ptl_handle_md_t",
    "ptl_handle_ct_t", "ptl_handle_me_t",  "ptl_handle_le_t",
};

// Functions and data that only one flavour's library has.
constexpr std::array<std::string_view, 13> kBxiOnlySymbols = {
    "PtlToStr",        "PtlFailTypeSize", "ptl_evtostr",        "ptl_ev_desc",           "PtlNIAtomicSync",
    "PtlGetHwid",      "PtlEQAllocAsync", "PtlActivateHookAdd", "PtlActivateHookRemove", "PtlNFDs",
    "PtlPollFDs",      "PtlPollEvents",   "PtlSetMemOps",
};
constexpr std::array<std::string_view, 3> kSandiaOnlySymbols = {"PtlTriggeredMEAppend", "PtlTriggeredMEUnlink",
                                                                 "PtlAbort"};
// The one function that only the current generation of Sandia's header
// declares (the renumbering added it with PTL_ABORTED).
constexpr std::string_view kSandiaCurrentOnlySymbol = "PtlAbort";

bool is_bxi_only(std::string_view name)
{
  for (auto only : kBxiOnlySymbols)
    if (name == only)
      return true;
  // The non-blocking variants: PtlPutNB, PtlMEAppendNB, ...
  return name.starts_with("Ptl") and name.ends_with("NB");
}

bool is_sandia_only(std::string_view name)
{
  for (auto only : kSandiaOnlySymbols)
    if (name == only)
      return true;
  return false;
}

// How a user overrides a guess: "if the program was built against BXI's
// portals4.h, use --abi bxi; if against ..., use --abi ...".
std::string override_hint(const std::vector<Abi>& alternatives)
{
  std::string hint;
  for (Abi abi : alternatives) {
    const char* header = abi == Abi::Bxi            ? "BXI's portals4.h"
                         : abi == Abi::SandiaLegacy ? "Sandia's portals4.h from before October 2023"
                                                    : "Sandia's portals4.h from October 2023 on";
    hint += std::string(hint.empty() ? "if the program was built against " : "; if against ") + header +
            ", use --abi " + abi_name(abi);
  }
  return hint;
}

// The Sandia generation to take when nothing tells them apart: the default
// if it is one, else the current one; and the other generation, for the hint.
Abi sandia_guess(Abi default_abi)
{
  return default_abi == Abi::SandiaLegacy ? Abi::SandiaLegacy : Abi::Sandia;
}
Abi other_generation(Abi sandia)
{
  return sandia == Abi::Sandia ? Abi::SandiaLegacy : Abi::Sandia;
}
const char* generation_name(Abi sandia)
{
  return sandia == Abi::Sandia ? "the current generation of Sandia's numbering"
                               : "Sandia's numbering before its 2023 renumbering";
}

struct TypeEvidence {
  std::string type;
  Dwarf_Word bytes = 0;
};

// The width of a handle typedef in the program's own DWARF: the first
// compilation unit that has one decides, by its NI handle if it has that one.
std::optional<TypeEvidence> handle_width(Dwarf* dwarf)
{
  std::optional<TypeEvidence> found;
  size_t found_rank = kHandleTypes.size();
  Dwarf_CU* unit = nullptr;
  Dwarf_Die unit_die;
  while (not found and dwarf_get_units(dwarf, unit, &unit, nullptr, nullptr, &unit_die, nullptr) == 0) {
    Dwarf_Die die;
    if (dwarf_child(&unit_die, &die) != 0)
      continue;
    do {
      if (dwarf_tag(&die) != DW_TAG_typedef)
        continue;
      const char* name = dwarf_diename(&die);
      if (name == nullptr)
        continue;
      for (size_t rank = 0; rank < found_rank; ++rank) {
        Dwarf_Word bytes = 0;
        if (kHandleTypes[rank] == name and dwarf_aggregate_size(&die, &bytes) == 0 and (bytes == 4 or bytes == 8)) {
          found = TypeEvidence{name, bytes};
          found_rank = rank;
        }
      }
    } while (found_rank != 0 and dwarf_siblingof(&die, &die) == 0);
  }
  return found;
}

struct GenerationEvidence {
  Abi abi = Abi::Sandia; // Sandia or SandiaLegacy
  std::string fact;      // "PTL_NO_SPACE is 11"
};

// What one enumerator of Sandia's return codes says about the generation.
// A name that only one generation has is conclusive; otherwise the two codes
// that moved (PTL_INTERRUPTED, 8, was removed and PTL_NO_SPACE..PTL_PT_IN_USE
// moved down by one; docs/sandia-abi-generations.md) tell by their value.
// BXI's codes are macros, never enumerators, and its values (40, 44) match
// neither generation.
std::optional<GenerationEvidence> generation_of(Dwarf_Die* enumerator, bool& by_name)
{
  const char* raw = dwarf_diename(enumerator);
  if (raw == nullptr)
    return std::nullopt;
  const std::string_view name(raw);
  by_name = true;
  if (name == "PTL_INTERRUPTED")
    return GenerationEvidence{Abi::SandiaLegacy, "the return codes include PTL_INTERRUPTED"};
  if (name == "PTL_ABORTED")
    return GenerationEvidence{Abi::Sandia, "the return codes include PTL_ABORTED"};
  by_name = false;
  struct Moved {
    std::string_view name;
    Dwarf_Sword legacy, current;
  };
  for (Moved moved : {Moved{"PTL_NO_SPACE", 11, 10}, Moved{"PTL_PT_IN_USE", 15, 14}}) {
    Dwarf_Attribute attribute;
    Dwarf_Sword value = 0;
    if (name != moved.name or dwarf_attr(enumerator, DW_AT_const_value, &attribute) == nullptr or
        dwarf_formsdata(&attribute, &value) != 0)
      continue;
    const std::string fact = std::string(name) + " is " + std::to_string(value);
    if (value == moved.legacy)
      return GenerationEvidence{Abi::SandiaLegacy, fact};
    if (value == moved.current)
      return GenerationEvidence{Abi::Sandia, fact};
  }
  return std::nullopt;
}

// The generation of Sandia's numbering in the program's own DWARF, read from
// the enumerators of its enumeration types: compilers emit an enumeration
// (with all its enumerators) when the program uses it, and a Portals program
// compares return codes with PTL_OK and the like, so enum ptl_retvals is
// there. The first unit with a conclusive name decides, else the first value.
std::optional<GenerationEvidence> sandia_generation(Dwarf* dwarf)
{
  std::optional<GenerationEvidence> by_value;
  Dwarf_CU* unit = nullptr;
  Dwarf_Die unit_die;
  while (dwarf_get_units(dwarf, unit, &unit, nullptr, nullptr, &unit_die, nullptr) == 0) {
    Dwarf_Die type;
    if (dwarf_child(&unit_die, &type) != 0)
      continue;
    do {
      Dwarf_Die enumerator;
      if (dwarf_tag(&type) != DW_TAG_enumeration_type or dwarf_child(&type, &enumerator) != 0)
        continue;
      do {
        if (dwarf_tag(&enumerator) != DW_TAG_enumerator)
          continue;
        bool by_name = false;
        auto evidence = generation_of(&enumerator, by_name);
        if (evidence and by_name)
          return evidence;
        if (evidence and not by_value)
          by_value = evidence;
      } while (dwarf_siblingof(&enumerator, &enumerator) == 0);
    } while (dwarf_siblingof(&type, &type) == 0);
  }
  return by_value;
}

struct SymbolEvidence {
  bool calls_portals = false;
  bool imports_abort = false; // PtlAbort: the current generation of Sandia's
  std::string bxi_only;       // a BXI-only symbol the program refers to, if any
  std::string sandia_only;    // a Sandia-only one
};

// The names in the dynamic symbol table: what the program takes from its
// shared libraries (and the data it copied from them).
SymbolEvidence dynamic_symbols(Elf* elf)
{
  SymbolEvidence evidence;
  Elf_Scn* section = nullptr;
  while ((section = elf_nextscn(elf, section)) != nullptr) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr or header.sh_type != SHT_DYNSYM or header.sh_entsize == 0)
      continue;
    Elf_Data* data = elf_getdata(section, nullptr);
    if (data == nullptr)
      continue;
    const size_t count = header.sh_size / header.sh_entsize;
    for (size_t i = 0; i < count; ++i) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr)
        continue;
      const char* raw = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (raw == nullptr)
        continue;
      std::string_view name(raw);
      const bool imported = symbol.st_shndx == SHN_UNDEF;
      if (imported and (name.starts_with("Ptl") or name.starts_with("ptl_")))
        evidence.calls_portals = true;
      // Imported only: a program that defines its own PtlAbort (a shim)
      // says nothing about the header it was built against.
      if (imported and name == kSandiaCurrentOnlySymbol)
        evidence.imports_abort = true;
      if (evidence.bxi_only.empty() and is_bxi_only(name))
        evidence.bxi_only = name;
      if (evidence.sandia_only.empty() and is_sandia_only(name))
        evidence.sandia_only = name;
    }
  }
  return evidence;
}

// The decision, from the most reliable evidence to the least: the handle
// width (flavour) and the return codes (Sandia's generation) in the debug
// information, then the calls in the dynamic symbol table, then the default.
void decide(Elf* elf, Abi default_abi, AbiEvidence& result)
{
  const std::string the_default = std::string(abi_name(default_abi)) + ", the default";
  const std::string abort_only = std::string(kSandiaCurrentOnlySymbol) +
                                 ", which only the current generation of Sandia's libportals has";
  std::optional<TypeEvidence> type;
  std::optional<GenerationEvidence> generation;
  if (Dwarf* dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr)) {
    type = handle_width(dwarf);
    if (not type or type->bytes == 4)
      generation = sandia_generation(dwarf);
    dwarf_end(dwarf);
  }
  if (type and type->bytes == 8) {
    result.abi = Abi::Bxi;
    result.reason = "bxi (DWARF: " + type->type + " is 8 bytes)";
    result.from_types = result.calls_portals = true;
    return;
  }
  if (generation) {
    result.abi = generation->abi;
    result.reason = std::string(abi_name(generation->abi)) + " (DWARF: " + generation->fact + ", " +
                    (generation->abi == Abi::Sandia ? "the numbering since Sandia's 2023 renumbering)"
                                                    : "the numbering before Sandia's 2023 renumbering)");
    result.from_types = result.calls_portals = true;
    return;
  }
  const SymbolEvidence symbols = dynamic_symbols(elf);
  result.calls_portals = symbols.calls_portals or type.has_value();
  if (type) {
    // Sandia's ABI for sure, but the program compares with no return code
    // that tells the generations apart.
    if (symbols.imports_abort) {
      result.abi = Abi::Sandia;
      result.reason = "sandia (DWARF: " + type->type + " is 4 bytes; the program uses " + abort_only + ")";
      result.from_types = true;
      return;
    }
    result.abi = sandia_guess(default_abi);
    result.reason = std::string(abi_name(result.abi)) + " (DWARF: " + type->type +
                    " is 4 bytes, but nothing in the program tells Sandia's two numberings apart, so " +
                    generation_name(result.abi) + "; " + override_hint({other_generation(result.abi)}) + ")";
    return;
  }
  if (not symbols.bxi_only.empty() and symbols.sandia_only.empty()) {
    result.abi = Abi::Bxi;
    result.reason = "bxi (no debug information on the Portals handles; the program uses " + symbols.bxi_only +
                    ", which only BXI's libportals has)";
  } else if (not symbols.sandia_only.empty() and symbols.bxi_only.empty()) {
    if (symbols.imports_abort) {
      result.abi = Abi::Sandia;
      result.reason = "sandia (no debug information on the Portals handles; the program uses " + abort_only + ")";
    } else {
      result.abi = sandia_guess(default_abi);
      result.reason = std::string(abi_name(result.abi)) +
                      " (no debug information on the Portals handles; the program uses " + symbols.sandia_only +
                      ", which only Sandia's libportals has, in both generations, so " +
                      generation_name(result.abi) + "; " + override_hint({other_generation(result.abi)}) + ")";
    }
  } else if (not symbols.bxi_only.empty()) {
    result.reason = the_default + " (no debug information on the Portals handles, and the program uses " +
                    symbols.bxi_only + " of BXI's ABI as well as " + symbols.sandia_only + " of Sandia's)";
  } else if (not symbols.calls_portals) {
    result.reason = the_default + " (the program does not call Portals itself)";
  } else {
    std::vector<Abi> others;
    for (Abi abi : {Abi::Bxi, Abi::SandiaLegacy, Abi::Sandia})
      if (abi != default_abi)
        others.push_back(abi);
    result.reason = the_default + " (no debug information on the Portals handles and no call that only one "
                                  "ABI or generation has; " + override_hint(others) + ")";
  }
}

// The evidence one ELF object (the program, or a library of it) gives.
AbiEvidence examine(const std::filesystem::path& object, Abi default_abi)
{
  AbiEvidence result;
  result.abi = default_abi;
  int fd = open(object.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.reason = std::string(abi_name(default_abi)) + ", the default (the program cannot be read: " +
                    std::strerror(errno) + ")";
    return result;
  }
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf == nullptr or elf_kind(elf) != ELF_K_ELF)
    result.reason = std::string(abi_name(default_abi)) + ", the default (not an ELF program)";
  else
    decide(elf, default_abi, result);
  if (elf != nullptr)
    elf_end(elf);
  close(fd);
  return result;
}

} // namespace

AbiEvidence detect_abi(const std::filesystem::path& program, Abi default_abi)
{
  AbiEvidence result = examine(program, default_abi);
  if (result.calls_portals)
    return result;
  // A program that calls Portals through a library (SOS's libsma.so, a
  // runtime's): the first library it loads that calls Portals functions was
  // built against the header that matters, and tells the same way. Our
  // libportals defines them and is left out, as is any libportals.
  for (const auto& library : needed_libraries(program)) {
    if (library.soname.starts_with("libportals.so"))
      continue;
    AbiEvidence from_library = examine(library.path, default_abi);
    if (not from_library.calls_portals)
      continue;
    from_library.reason += ", read from " + library.soname + " (" + library.real.string() +
                           "), the library through which the program calls Portals";
    return from_library;
  }
  return result;
}

} // namespace s4bxi::launcher
