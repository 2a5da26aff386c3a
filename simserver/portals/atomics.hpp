// The arithmetic of Portals atomic operations (PtlAtomic, PtlFetchAtomic,
// PtlSwap), on raw bytes as they sit in the target's memory. Pure functions:
// the NIC reads the target bytes, applies the operation, writes them back.
#pragma once

#include "protocol.hpp"

#include <cstddef>
#include <span>

namespace s4bxi::portals::atomics {

// Size of one item of `type` on this machine (long double is the platform's).
std::size_t item_size(ipc::AtomicType type);

// Whether the values are in range of the enumerations.
bool known(ipc::AtomicOp op);
bool known(ipc::AtomicType type);

// SWAP, CSWAP and its variants, MSWAP: the operations of PtlSwap. The others
// are those of PtlAtomic and PtlFetchAtomic.
bool is_swap(ipc::AtomicOp op);

// The conditional and masked swaps take an operand and act on one item only.
bool uses_operand(ipc::AtomicOp op);

// Whether the specification defines `op` on `type`: MIN, MAX and the ordered
// conditional swaps not on complex numbers; logical and bitwise operations and
// MSWAP on integers only; everything else on every datatype.
bool allowed(ipc::AtomicOp op, ipc::AtomicType type);

// Applies `op` in place: each item of `target` becomes op(target item, source
// item) ("source" is the initiator's data). Only whole items are touched;
// SWAP swaps every byte. `source` must be at least as long as `target`;
// `operand` holds one item for the operations that use it.
void apply(ipc::AtomicOp op, ipc::AtomicType type, std::span<unsigned char> target,
           std::span<const unsigned char> source, std::span<const unsigned char> operand);

} // namespace s4bxi::portals::atomics
