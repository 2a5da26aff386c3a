#include "call_sites.hpp"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>

namespace s4bxi::job {

namespace {

std::string base_name(const char* path)
{
  if (path == nullptr)
    return {};
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}

// GCC names the copies it makes of a function "f.constprop.0", "f.part.0",
// "f.isra.0", "f.cold": the program's function is f.
std::string without_clone_suffix(std::string name)
{
  for (const char* suffix : {".constprop", ".part", ".isra", ".cold", ".lto_priv"})
    if (auto at = name.find(suffix); at != std::string::npos)
      name.erase(at);
  return name;
}

std::string demangled(const char* name)
{
  if (name == nullptr)
    return {};
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> plain(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return without_clone_suffix(status == 0 && plain ? plain.get() : name);
}

// Symbols of the ELF objects the ranks run, read once per object and cached
// by (object, offset): every rank runs the same program and libraries, at
// addresses that differ only by where they are loaded.
class Symbolizer {
public:
  Frame lookup(const std::string& path, Dwarf_Addr offset)
  {
    auto key = std::make_pair(path, offset);
    if (auto found = cache_.find(key); found != cache_.end())
      return found->second;
    Frame frame;
    frame.module = base_name(path.c_str());
    if (Dwfl_Module* module = module_of(path)) {
      Dwarf_Addr start = 0;
      dwfl_module_info(module, nullptr, &start, nullptr, nullptr, nullptr, nullptr, nullptr);
      const Dwarf_Addr address = start + offset;
      frame.function = demangled(dwfl_module_addrname(module, address));
      if (Dwfl_Line* line = dwfl_module_getsrc(module, address)) {
        int number = 0;
        frame.file = base_name(dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr));
        frame.line = number;
      }
    }
    cache_.emplace(key, frame);
    return frame;
  }

  ~Symbolizer()
  {
    if (dwfl_ != nullptr)
      dwfl_end(dwfl_);
  }

private:
  Dwfl_Module* module_of(const std::string& path)
  {
    if (auto found = modules_.find(path); found != modules_.end())
      return found->second;
    if (dwfl_ == nullptr)
      dwfl_ = dwfl_begin(&offline_callbacks_);
    Dwfl_Module* module = dwfl_ != nullptr ? dwfl_report_offline(dwfl_, path.c_str(), path.c_str(), -1) : nullptr;
    if (dwfl_ != nullptr)
      dwfl_report_end(dwfl_, nullptr, nullptr);
    modules_[path] = module;
    return module;
  }

  char* debuginfo_path_ = nullptr;
  const Dwfl_Callbacks offline_callbacks_ = {
      .find_elf = dwfl_build_id_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = dwfl_offline_section_address,
      .debuginfo_path = &debuginfo_path_,
  };
  Dwfl* dwfl_ = nullptr;
  std::map<std::string, Dwfl_Module*> modules_;
  std::map<std::pair<std::string, Dwarf_Addr>, Frame> cache_;
};

Symbolizer& symbolizer()
{
  static Symbolizer instance;
  return instance;
}

// Where `pc` is in the live process: the object's path and the offset from
// where that object is loaded; the symbols come from the cache.
Frame symbolize(Dwfl* dwfl, Dwarf_Addr pc)
{
  Dwfl_Module* module = dwfl_addrmodule(dwfl, pc);
  if (module == nullptr)
    return {};
  Dwarf_Addr start = 0;
  const char* main_file = nullptr;
  const char* name = dwfl_module_info(module, nullptr, &start, nullptr, nullptr, nullptr, &main_file, nullptr);
  const char* path = main_file != nullptr ? main_file : name;
  if (path == nullptr)
    return {};
  return symbolizer().lookup(path, pc - start);
}

struct Unwinding {
  Dwfl* dwfl;
  unsigned max_frames;
  std::vector<Frame> frames; // of the current thread, innermost first
};

int on_frame(Dwfl_Frame* state, void* argument)
{
  auto* unwinding = static_cast<Unwinding*>(argument);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (not dwfl_frame_pc(state, &pc, &activation))
    return DWARF_CB_ABORT;
  // A return address points after the call: look up the call itself.
  unwinding->frames.push_back(symbolize(unwinding->dwfl, activation ? pc : pc - 1));
  return unwinding->frames.size() < 64 ? DWARF_CB_OK : DWARF_CB_ABORT;
}

bool in_portals_library(const Frame& frame)
{
  return frame.module.rfind("libportals", 0) == 0;
}

int on_thread(Dwfl_Thread* thread, void* argument)
{
  auto* unwinding = static_cast<Unwinding*>(argument);
  unwinding->frames.clear();
  dwfl_thread_getframes(thread, on_frame, unwinding);
  // The outermost frame of the Portals library on this thread is the call's
  // entry point (its exported name may have been folded into an internal
  // function by the compiler); from there on, the program's frames.
  for (size_t i = unwinding->frames.size(); i-- > 0;)
    if (in_portals_library(unwinding->frames[i])) {
      std::vector<Frame> from_call(unwinding->frames.begin() + static_cast<long>(i), unwinding->frames.end());
      if (from_call.size() > unwinding->max_frames)
        from_call.resize(unwinding->max_frames);
      unwinding->frames = std::move(from_call);
      return DWARF_CB_ABORT; // found
    }
  unwinding->frames.clear();
  return DWARF_CB_OK;
}

} // namespace

namespace {

// Attaches to `pid` (ptrace, through libdwfl), runs `read` on it, detaches.
template <class Read>
void with_process(pid_t pid, Read read)
{
  static char* debuginfo_path = nullptr;
  static const Dwfl_Callbacks callbacks = {
      .find_elf = dwfl_linux_proc_find_elf,
      .find_debuginfo = dwfl_standard_find_debuginfo,
      .section_address = nullptr,
      .debuginfo_path = &debuginfo_path,
  };
  Dwfl* dwfl = dwfl_begin(&callbacks);
  if (dwfl == nullptr)
    return;
  if (dwfl_linux_proc_report(dwfl, pid) == 0 && dwfl_report_end(dwfl, nullptr, nullptr) == 0 &&
      dwfl_linux_proc_attach(dwfl, pid, false) == 0)
    read(dwfl);
  dwfl_end(dwfl); // detaches: the process goes on as before
}

} // namespace

std::vector<Frame> portals_call_stack(pid_t pid, unsigned max_frames)
{
  std::vector<Frame> result;
  with_process(pid, [&](Dwfl* dwfl) {
    Unwinding unwinding{dwfl, max_frames, {}};
    dwfl_getthreads(dwfl, on_thread, &unwinding);
    result = std::move(unwinding.frames);
  });
  return result;
}

std::vector<Frame> crashed_thread_stack(pid_t pid, pid_t tid, unsigned max_frames)
{
  std::vector<Frame> frames;
  with_process(pid, [&](Dwfl* dwfl) {
    Unwinding unwinding{dwfl, max_frames, {}};
    dwfl_getthread_frames(dwfl, tid, on_frame, &unwinding);
    frames = std::move(unwinding.frames);
  });
  // Below the signal trampoline: the handler, in the Portals library.
  size_t first = 0;
  for (size_t i = 0; i < frames.size(); ++i)
    if (frames[i].function == "__restore_rt") {
      first = i + 1;
      break;
    }
  std::vector<Frame> result(frames.begin() + static_cast<long>(std::min(first, frames.size())), frames.end());
  if (result.size() > max_frames)
    result.resize(max_frames);
  return result;
}

std::string describe_frame(const Frame& frame)
{
  std::string text = frame.function.empty() ? "??" : frame.function + "()";
  if (not frame.file.empty())
    return text + " at " + frame.file + ":" + std::to_string(frame.line);
  return text + " in " + frame.module;
}

namespace {

// Open MPI's own objects: libmpi, its runtime libraries and its components;
// and the emulator's wrappers of its entry points (libs4bxi-mpi-time.so,
// preload/mpi_hooks), which sit between the program and libmpi.
bool in_mpi_library(const Frame& frame)
{
  for (const char* prefix :
       {"libmpi.so", "libopen-pal.so", "libopen-rte.so", "mca_", "libmca_common_", "libs4bxi-mpi-time.so"})
    if (frame.module.rfind(prefix, 0) == 0)
      return true;
  return false;
}

// "at solver.c:212 in exchange()"
std::string place_of(const Frame& frame)
{
  std::string text = "at ";
  if (not frame.file.empty())
    text += frame.file + ":" + std::to_string(frame.line) + " in ";
  return text + (frame.function.empty() ? "?? in " + frame.module : frame.function + "()");
}

} // namespace

std::optional<MpiCall> mpi_call_of(const std::vector<Frame>& stack)
{
  size_t i = 0;
  while (i < stack.size() && in_portals_library(stack[i]))
    ++i;
  // The outermost frame of Open MPI's is the entry the program called.
  std::optional<MpiCall> call;
  for (; i < stack.size() && in_mpi_library(stack[i]); ++i) {
    const std::string& name = stack[i].function;
    if (name.rfind("MPI_", 0) == 0 || name.rfind("PMPI_", 0) == 0)
      call = MpiCall{name[0] == 'P' ? name.substr(1) : name, {}};
    else if (call) // past the entry: the stack read is not what it seems
      return std::nullopt;
  }
  if (call && i < stack.size())
    call->caller = stack[i];
  return call;
}

bool mpi_call_blocks(const std::string& function)
{
  // Nonblocking starts (MPI_Isend, MPI_Ibarrier...) and the calls that test
  // or probe once: each returns after one turn of Open MPI's progress.
  if (function.rfind("MPI_I", 0) == 0)
    return false;
  for (const char* once : {"MPI_Test", "MPI_Testany", "MPI_Testall", "MPI_Testsome", "MPI_Test_cancelled",
                           "MPI_Request_get_status", "MPI_Win_test", "MPI_Wtime", "MPI_Wtick"})
    if (function == once)
      return false;
  return function.rfind("MPI_", 0) == 0;
}

std::string describe_call_site(const std::vector<Frame>& stack)
{
  if (auto call = mpi_call_of(stack)) {
    std::string text = "in " + call->function + "()";
    if (not call->caller.module.empty())
      text += " " + place_of(call->caller);
    return text;
  }
  for (const Frame& frame : stack)
    if (not in_portals_library(frame)) // past the library's own layers
      return place_of(frame);
  return {};
}

} // namespace s4bxi::job
