// The calls of portals4.h that the protocol does not carry: the reference
// implementation's triggered list operations, which are not part of the
// Portals 4.1 specification.
//
// They are still defined here: a program linked against another Portals
// library would otherwise reach that library's implementation through the
// preload, or die with an unresolved symbol. Each one says once that it is not
// supported and fails with PTL_FAIL, so the program can report it.
#include "export.hpp"
#include "portals_api_forward.hpp"

#include <atomic>
#include <string>
#include <unistd.h>

using namespace s4bxi::preload;

namespace {

int unsupported(std::atomic<bool>& said, const char* name)
{
  if (not client::attached())
    return api::not_attached();
  if (not said.exchange(true)) {
    std::string text = std::string("libportals (s4bxi): ") + name +
                       " is not supported by the emulator yet; the call returns PTL_FAIL\n";
    [[maybe_unused]] ssize_t ignored = write(STDERR_FILENO, text.data(), text.size());
  }
  return PTL_FAIL;
}

} // namespace

extern "C" {

S4BXI_EXPORT int PtlTriggeredMEAppend(ptl_handle_ni_t, ptl_pt_index_t, ptl_me_t*, ptl_list_t, void*, ptl_handle_me_t*,
                                      ptl_handle_ct_t, ptl_size_t)
{
  static std::atomic<bool> said{false};
  return unsupported(said, "PtlTriggeredMEAppend");
}

S4BXI_EXPORT int PtlTriggeredMEUnlink(ptl_handle_me_t, ptl_handle_ct_t, ptl_size_t)
{
  static std::atomic<bool> said{false};
  return unsupported(said, "PtlTriggeredMEUnlink");
}

} // extern "C"
