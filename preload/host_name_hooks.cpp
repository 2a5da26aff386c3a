// gethostname and uname, on the simulated machine: a rank's host name is the
// name of its node's CPU host in the platform (S4BXI_HOSTNAME, set by the
// server), so that MPI_Get_processor_name and the node identification of MPI
// runtimes (which ranks share a node) see the simulated cluster rather than
// the one machine every rank really runs on. A process that is not a rank of
// the run (started by hand, forked by a rank) sees the real name, as with
// the time hooks.
#include "export.hpp"
#include "rank_client.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

namespace s4bxi::preload {
namespace {

constexpr const char* kEnvHostName = "S4BXI_HOSTNAME";

using UnameFn = int(struct utsname*);
using GethostnameFn = int(char*, size_t);
std::atomic<UnameFn*> uname_fn{nullptr};
std::atomic<GethostnameFn*> gethostname_fn{nullptr};

// The next definition (libc's, or another preloaded library's), looked up on
// first use as in real_functions.cpp.
template <typename Fn> Fn* next(std::atomic<Fn*>& slot, const char* name)
{
  Fn* fn = slot.load(std::memory_order_acquire);
  if (fn == nullptr) {
    fn = reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name));
    slot.store(fn, std::memory_order_release);
  }
  return fn;
}

int real_uname(struct utsname* buffer)
{
  if (auto* fn = next(uname_fn, "uname"))
    return fn(buffer);
  return static_cast<int>(syscall(SYS_uname, buffer));
}

// The simulated name, or nullptr when the process sees the real one. Read
// once: the program may change its environment, not its node.
const char* simulated_name()
{
  auto state = client::state();
  if (state != client::State::Attached and state != client::State::Exited)
    return nullptr;
  static const char* name = [] {
    const char* value = std::getenv(kEnvHostName);
    return value != nullptr and *value != '\0' ? strdup(value) : nullptr;
  }();
  return name;
}

// As glibc's gethostname: copies at most `length` bytes; a name that does
// not fit with its NUL is an error (ENAMETOOLONG), what fitted copied.
int copy_name(const char* source, char* name, size_t length)
{
  size_t size = std::strlen(source) + 1;
  std::memcpy(name, source, size <= length ? size : length);
  if (size > length) {
    errno = ENAMETOOLONG;
    return -1;
  }
  return 0;
}

} // namespace
} // namespace s4bxi::preload

using namespace s4bxi::preload;

extern "C" {

S4BXI_EXPORT int uname(struct utsname* buffer) noexcept
{
  int rc = real_uname(buffer);
  const char* name = simulated_name();
  if (rc != 0 or name == nullptr)
    return rc;
  std::memset(buffer->nodename, 0, sizeof buffer->nodename);
  std::strncpy(buffer->nodename, name, sizeof buffer->nodename - 1);
  return 0;
}

S4BXI_EXPORT int gethostname(char* name, size_t length) noexcept
{
  const char* simulated = simulated_name();
  if (simulated == nullptr) {
    if (auto* fn = next(gethostname_fn, "gethostname"))
      return fn(name, length);
    struct utsname buffer{};
    if (real_uname(&buffer) != 0)
      return -1;
    return copy_name(buffer.nodename, name, length);
  }
  return copy_name(simulated, name, length);
}

} // extern "C"
