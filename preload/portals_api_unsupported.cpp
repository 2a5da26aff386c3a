// The calls of portals4.h that the protocol does not carry yet.
//
// They are still defined here: a program linked against another Portals
// library would otherwise reach that library's implementation through the
// preload, or die with an unresolved symbol. Each one says once that it is not
// supported and fails with PTL_FAIL, so the program can report it. The pure
// hints (bundles) and PtlAtomicSync (atomics are applied in a serialized
// server, so there is never anything to wait for) simply succeed.
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

int hint()
{
  return client::attached() ? PTL_OK : api::not_attached();
}

} // namespace

extern "C" {

S4BXI_EXPORT int PtlLESearch(ptl_handle_ni_t, ptl_pt_index_t, const ptl_le_t*, ptl_search_op_t, void*)
{
  static std::atomic<bool> said{false};
  return unsupported(said, "PtlLESearch");
}

S4BXI_EXPORT int PtlMESearch(ptl_handle_ni_t, ptl_pt_index_t, const ptl_me_t*, ptl_search_op_t, void*)
{
  static std::atomic<bool> said{false};
  return unsupported(said, "PtlMESearch");
}

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

S4BXI_EXPORT int PtlStartBundle(ptl_handle_ni_t)
{
  return hint();
}

S4BXI_EXPORT int PtlEndBundle(ptl_handle_ni_t)
{
  return hint();
}

} // extern "C"
