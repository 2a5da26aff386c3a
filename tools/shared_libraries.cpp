#include "shared_libraries.hpp"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <fstream>
#include <gelf.h>
#include <libelf.h>
#include <optional>
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

} // namespace

std::vector<SharedLibrary> needed_libraries(const fs::path& program)
{
  std::vector<SharedLibrary> found;
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
      fs::path real = fs::canonical(*path, ignored);
      if (real.empty())
        real = *path;
      if (seen.insert(real.string()).second) {
        found.push_back(SharedLibrary{name, *path, real});
        pending.push_back(*path);
      }
    }
  }
  return found;
}

} // namespace s4bxi::launcher
