// PtlMEUnlink and PtlLEUnlink answered by the process itself.
//
// An unlink returns PTL_OK while its entry exists, and takes effect when it
// is made, in no simulated time. An entry leaves the server only by an
// unlink, by PtlNIFini, or when the NIC unlinks it itself: a use-once entry
// once used, or one that manages its local offset and has less than its
// min_free left (portals/matching.cpp, unlinks_after). So an entry that this
// process appended with neither option exists until the process unlinks it:
// its unlink is answered here (PTL_OK) and left in the channel
// (ipc::QueuedCall); the server unlinks it at the simulated time it was
// made, with the process's next call. The same simulated results, one round
// trip less (Open MPI unlinks the entry of each long message it sent, once
// the receiver has read it).
//
// Its table has a lock of its own: threads append and unlink outside the
// channel mutex, under which admit() runs (rank_client.cpp).
#pragma once

#include "protocol.hpp"

namespace s4bxi::preload::queued_unlinks {

// Whether the process may answer unlinks itself (s4bxi/queued-unlinks).
void on_hello(bool enabled);

// An append of the process that succeeded: `entry` on `ni`, with `options`
// (ipc::option::kEntry* bits) and `min_free`.
void note_entry(ipc::Handle ni, ipc::Handle entry, uint32_t options, uint64_t min_free);
// An unlink the server answered: the handle names no entry of ours any more.
void forget_entry(ipc::Handle entry);
// Before a PtlNIFini: its entries are gone with it.
void forget_ni(ipc::Handle ni);
// Before a PtlFini.
void forget_all();

// Whether the entry surely exists (the unlink would answer PTL_OK); if so it
// is forgotten, as the unlink the caller then queues removes it.
bool admit(ipc::Handle entry);

} // namespace s4bxi::preload::queued_unlinks
