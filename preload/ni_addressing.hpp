// Which of the process's NIs are logical. An entry's match_id means a rank on
// a logical NI and a (nid, pid) pair on a physical one, and the ABIs give the
// wildcards of the two readings different values (BXI's PTL_NID_ANY is 0, a
// real rank): the preload must know the NI to translate them. It learns each
// NI's addressing from the PtlNIInit that returned its handle.
#pragma once

#include "abi_convert.hpp"

namespace s4bxi::preload::ni_addressing {

void remember(ipc::Handle ni, bool logical);

// Unknown for a handle that no PtlNIInit of this process returned.
abi::Addressing of(ipc::Handle ni);

} // namespace s4bxi::preload::ni_addressing
