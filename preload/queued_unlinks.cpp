#include "queued_unlinks.hpp"

#include <algorithm>
#include <iterator>
#include <mutex>

namespace s4bxi::preload::queued_unlinks {
namespace {

// (Fixed-size state only, with nothing to destroy: the process's last call
// may come from a destructor that runs after this file's statics are gone.)
struct KnownEntry {
  ipc::Handle entry = ipc::kHandleInvalid;
  ipc::Handle ni = ipc::kHandleInvalid;
};

// Open MPI keeps one such entry per long message on its way out; beyond
// these, unlinks go to the server.
constexpr unsigned kKnownEntries = 64;
std::mutex table_mutex; // (trivially destructible in libstdc++)
KnownEntry entries[kKnownEntries];
bool enabled = false;

} // namespace

void on_hello(bool may)
{
  enabled = may;
}

void note_entry(ipc::Handle ni, ipc::Handle entry, uint32_t options, uint64_t min_free)
{
  // One the NIC may unlink itself is not known to exist later.
  if (not enabled || (options & ipc::option::kEntryUseOnce) != 0 ||
      ((options & ipc::option::kEntryManageLocal) != 0 && min_free > 0))
    return;
  std::lock_guard lock(table_mutex);
  for (KnownEntry& known : entries)
    if (known.entry == entry) // a handle the server gives again names the new entry
      known = KnownEntry{};
  for (KnownEntry& known : entries)
    if (known.entry == ipc::kHandleInvalid) {
      known = {entry, ni};
      return;
    }
}

void forget_entry(ipc::Handle entry)
{
  std::lock_guard lock(table_mutex);
  for (KnownEntry& known : entries)
    if (known.entry == entry)
      known = KnownEntry{};
}

void forget_ni(ipc::Handle ni)
{
  std::lock_guard lock(table_mutex);
  for (KnownEntry& known : entries)
    if (known.ni == ni)
      known = KnownEntry{};
}

void forget_all()
{
  std::lock_guard lock(table_mutex);
  std::fill(std::begin(entries), std::end(entries), KnownEntry{});
}

bool admit(ipc::Handle entry)
{
  if (not enabled || entry == ipc::kHandleInvalid || entry == ipc::kHandleNone)
    return false;
  std::lock_guard lock(table_mutex);
  for (KnownEntry& known : entries)
    if (known.entry == entry) {
      known = KnownEntry{};
      return true;
    }
  return false;
}

} // namespace s4bxi::preload::queued_unlinks
