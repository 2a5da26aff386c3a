#include "abi_detect.hpp"

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
constexpr std::array<std::string_view, 2> kSandiaOnlySymbols = {"PtlTriggeredMEAppend", "PtlTriggeredMEUnlink"};

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

struct TypeEvidence {
  std::string type;
  Dwarf_Word bytes = 0;
};

// The width of a handle typedef in the program's own DWARF: the first
// compilation unit that has one decides, by its NI handle if it has that one.
std::optional<TypeEvidence> handle_width(Elf* elf)
{
  Dwarf* dwarf = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
  if (dwarf == nullptr)
    return std::nullopt; // no debug information
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
  dwarf_end(dwarf);
  return found;
}

struct SymbolEvidence {
  bool calls_portals = false;
  std::string bxi_only;    // a BXI-only symbol the program refers to, if any
  std::string sandia_only; // a Sandia-only one
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
      if (symbol.st_shndx == SHN_UNDEF and (name.starts_with("Ptl") or name.starts_with("ptl_")))
        evidence.calls_portals = true;
      if (evidence.bxi_only.empty() and is_bxi_only(name))
        evidence.bxi_only = name;
      if (evidence.sandia_only.empty() and is_sandia_only(name))
        evidence.sandia_only = name;
    }
  }
  return evidence;
}

} // namespace

AbiEvidence detect_abi(const std::filesystem::path& program, Abi default_abi)
{
  AbiEvidence result;
  result.abi = default_abi;
  const std::string the_default = std::string(abi_name(default_abi)) + ", the default";
  int fd = open(program.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    result.reason = the_default + " (the program cannot be read: " + std::strerror(errno) + ")";
    return result;
  }
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  if (elf == nullptr or elf_kind(elf) != ELF_K_ELF) {
    result.reason = the_default + " (not an ELF program)";
  } else if (auto type = handle_width(elf)) {
    result.abi = type->bytes == 8 ? Abi::Bxi : Abi::Sandia;
    result.reason = std::string(abi_name(result.abi)) + " (DWARF: " + type->type + " is " +
                    std::to_string(type->bytes) + " bytes)";
    result.from_types = true;
    result.calls_portals = true;
  } else {
    SymbolEvidence symbols = dynamic_symbols(elf);
    result.calls_portals = symbols.calls_portals;
    if (not symbols.bxi_only.empty() and symbols.sandia_only.empty()) {
      result.abi = Abi::Bxi;
      result.reason = "bxi (no debug information on the Portals handles; the program uses " + symbols.bxi_only +
                      ", which only BXI's libportals has)";
    } else if (not symbols.sandia_only.empty() and symbols.bxi_only.empty()) {
      result.abi = Abi::Sandia;
      result.reason = "sandia (no debug information on the Portals handles; the program uses " +
                      symbols.sandia_only + ", which only Sandia's libportals has)";
    } else if (not symbols.bxi_only.empty()) {
      result.reason = the_default + " (no debug information on the Portals handles, and the program uses " +
                      symbols.bxi_only + " of BXI's ABI as well as " + symbols.sandia_only + " of Sandia's)";
    } else if (not symbols.calls_portals) {
      result.reason = the_default + " (the program does not call Portals itself)";
    } else {
      result.reason = the_default + " (no debug information on the Portals handles and no call that only one "
                                    "ABI has; if the program was built against BXI's portals4.h, use --abi bxi)";
    }
  }
  if (elf != nullptr)
    elf_end(elf);
  close(fd);
  return result;
}

} // namespace s4bxi::launcher
