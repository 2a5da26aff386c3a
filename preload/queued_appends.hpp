// PtlMEAppend and PtlLEAppend answered by the process itself.
//
// An append returns a handle and whether its arguments were valid, and takes
// effect when it is made. With each reply the server writes, per NI of the
// rank, a permit (ipc::AppendPermit): the handles it has set aside for the
// next entries appended there (up to ipc::kAppendPermitEntries, taken in
// their order), and the portal table entries that are allocated and have room
// for as many. An append that the permit covers (no counter, no I/O vector)
// is answered here with the next of those handles and left in the channel;
// the server appends it with that reserved index at the simulated time it was
// made, with the process's next call: the same entry, events and simulated
// times, one round trip less.
#pragma once

#include "protocol.hpp"

#include <span>

namespace s4bxi::preload::queued_appends {

// Learns the permits written with a reply (none when `enabled` is false).
void on_reply(std::span<const ipc::AppendPermit> permits, bool enabled);

// The events the NIC writes for an append made before the reply's horizon
// (portals/api_lists.cpp, Api::append), when the permit tells them: an
// overflow entry's append, or a priority entry's where no unexpected header
// waited, makes none with its LINK event disabled (`none`), else its LINK
// event alone, at once, into the queue of its portal table entry (`link_eq`,
// when the permit names it: s4bxi/link-forecasts).
struct AppendEvents {
  bool none = false;
  ipc::Handle link_eq = ipc::kHandleInvalid;
};

// The handle `args` gets when the process may answer it itself, else
// kHandleInvalid (the server must). One of the permit's handles is then
// spent. Also the events the append makes, as far as the permit tells them.
ipc::Handle admit(const ipc::AppendArgs& args, AppendEvents* events = nullptr);

} // namespace s4bxi::preload::queued_appends
