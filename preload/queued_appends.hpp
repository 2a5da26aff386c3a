// PtlMEAppend and PtlLEAppend answered by the process itself.
//
// An append returns a handle and whether its arguments were valid, and takes
// effect when it is made. With each reply the server writes, per NI of the
// rank, a permit (ipc::AppendPermit): the handle it has set aside for the
// next entry appended there, and the portal table entries that are allocated
// and have room. An append that the permit covers (no counter, no I/O
// vector) is answered here with that handle and left in the channel; the
// server appends it with the reserved index at the simulated time it was
// made, with the process's next call: the same entry, events and simulated
// times, one round trip less. One per NI between two replies.
#pragma once

#include "protocol.hpp"

#include <span>

namespace s4bxi::preload::queued_appends {

// Learns the permits written with a reply (none when `enabled` is false).
void on_reply(std::span<const ipc::AppendPermit> permits, bool enabled);

// The handle `args` gets when the process may answer it itself, else
// kHandleInvalid (the server must). The permit is then spent. Also whether
// the append, made before the reply's horizon, makes the NIC write no event
// (`writes_no_event`: its LINK event disabled, and an overflow entry, or a
// priority one on an entry that had no unexpected header).
ipc::Handle admit(const ipc::AppendArgs& args, bool* writes_no_event = nullptr);

} // namespace s4bxi::preload::queued_appends
