// Translations of the atomic operations, atomic datatypes and search modes
// between the program's portals4.h ABI and the protocol, by name (the two ABI
// flavours number them differently: BXI's follow the NIC, with gaps). Kept
// apart from abi_convert.hpp, which holds the rest of the conversions.
#pragma once

#include "abi_convert.hpp"
#include "portals4.h"
#include "protocol.hpp"

#include <cstddef>
#include <optional>

namespace s4bxi::preload::abi {

inline std::optional<ipc::AtomicOp> atomic_op_to_wire(ptl_op_t op)
{
  switch (op) {
  case PTL_MIN: return ipc::AtomicOp::Min;
  case PTL_MAX: return ipc::AtomicOp::Max;
  case PTL_SUM: return ipc::AtomicOp::Sum;
  case PTL_PROD: return ipc::AtomicOp::Prod;
  case PTL_LOR: return ipc::AtomicOp::Lor;
  case PTL_LAND: return ipc::AtomicOp::Land;
  case PTL_BOR: return ipc::AtomicOp::Bor;
  case PTL_BAND: return ipc::AtomicOp::Band;
  case PTL_LXOR: return ipc::AtomicOp::Lxor;
  case PTL_BXOR: return ipc::AtomicOp::Bxor;
  case PTL_SWAP: return ipc::AtomicOp::Swap;
  case PTL_CSWAP: return ipc::AtomicOp::Cswap;
  case PTL_CSWAP_NE: return ipc::AtomicOp::CswapNe;
  case PTL_CSWAP_LE: return ipc::AtomicOp::CswapLe;
  case PTL_CSWAP_LT: return ipc::AtomicOp::CswapLt;
  case PTL_CSWAP_GE: return ipc::AtomicOp::CswapGe;
  case PTL_CSWAP_GT: return ipc::AtomicOp::CswapGt;
  case PTL_MSWAP: return ipc::AtomicOp::Mswap;
  default: return std::nullopt;
  }
}

inline std::optional<ipc::AtomicType> atomic_type_to_wire(ptl_datatype_t type)
{
  switch (type) {
  case PTL_INT8_T: return ipc::AtomicType::Int8;
  case PTL_UINT8_T: return ipc::AtomicType::Uint8;
  case PTL_INT16_T: return ipc::AtomicType::Int16;
  case PTL_UINT16_T: return ipc::AtomicType::Uint16;
  case PTL_INT32_T: return ipc::AtomicType::Int32;
  case PTL_UINT32_T: return ipc::AtomicType::Uint32;
  case PTL_INT64_T: return ipc::AtomicType::Int64;
  case PTL_UINT64_T: return ipc::AtomicType::Uint64;
  case PTL_FLOAT: return ipc::AtomicType::Float;
  case PTL_DOUBLE: return ipc::AtomicType::Double;
  case PTL_FLOAT_COMPLEX: return ipc::AtomicType::FloatComplex;
  case PTL_DOUBLE_COMPLEX: return ipc::AtomicType::DoubleComplex;
  case PTL_LONG_DOUBLE: return ipc::AtomicType::LongDouble;
  case PTL_LONG_DOUBLE_COMPLEX: return ipc::AtomicType::LongDoubleComplex;
  default: return std::nullopt;
  }
}

// Bytes of one item in this process (PtlSwap's operand is one item).
inline std::size_t atomic_item_size(ipc::AtomicType type)
{
  switch (type) {
  case ipc::AtomicType::Int8:
  case ipc::AtomicType::Uint8: return 1;
  case ipc::AtomicType::Int16:
  case ipc::AtomicType::Uint16: return 2;
  case ipc::AtomicType::Int32:
  case ipc::AtomicType::Uint32:
  case ipc::AtomicType::Float: return 4;
  case ipc::AtomicType::Int64:
  case ipc::AtomicType::Uint64:
  case ipc::AtomicType::Double:
  case ipc::AtomicType::FloatComplex: return 8;
  case ipc::AtomicType::DoubleComplex: return 16;
  case ipc::AtomicType::LongDouble: return sizeof(long double);
  case ipc::AtomicType::LongDoubleComplex: return 2 * sizeof(long double);
  }
  return 0;
}
static_assert(2 * sizeof(long double) <= ipc::kMaxAtomicOperand, "a PtlSwap operand must fit in the request");

// The conditional and masked swaps read PtlSwap's operand; SWAP ignores it.
inline bool atomic_op_uses_operand(ipc::AtomicOp op)
{
  return op > ipc::AtomicOp::Swap;
}

inline ptl_op_t atomic_op_from_wire(uint8_t op)
{
  switch (static_cast<ipc::AtomicOp>(op)) {
  case ipc::AtomicOp::Min: return PTL_MIN;
  case ipc::AtomicOp::Max: return PTL_MAX;
  case ipc::AtomicOp::Sum: return PTL_SUM;
  case ipc::AtomicOp::Prod: return PTL_PROD;
  case ipc::AtomicOp::Lor: return PTL_LOR;
  case ipc::AtomicOp::Land: return PTL_LAND;
  case ipc::AtomicOp::Bor: return PTL_BOR;
  case ipc::AtomicOp::Band: return PTL_BAND;
  case ipc::AtomicOp::Lxor: return PTL_LXOR;
  case ipc::AtomicOp::Bxor: return PTL_BXOR;
  case ipc::AtomicOp::Swap: return PTL_SWAP;
  case ipc::AtomicOp::Cswap: return PTL_CSWAP;
  case ipc::AtomicOp::CswapNe: return PTL_CSWAP_NE;
  case ipc::AtomicOp::CswapLe: return PTL_CSWAP_LE;
  case ipc::AtomicOp::CswapLt: return PTL_CSWAP_LT;
  case ipc::AtomicOp::CswapGe: return PTL_CSWAP_GE;
  case ipc::AtomicOp::CswapGt: return PTL_CSWAP_GT;
  case ipc::AtomicOp::Mswap: return PTL_MSWAP;
  }
  return static_cast<ptl_op_t>(op); // unknown to this library: a newer server
}

inline ptl_datatype_t atomic_type_from_wire(uint8_t type)
{
  switch (static_cast<ipc::AtomicType>(type)) {
  case ipc::AtomicType::Int8: return PTL_INT8_T;
  case ipc::AtomicType::Uint8: return PTL_UINT8_T;
  case ipc::AtomicType::Int16: return PTL_INT16_T;
  case ipc::AtomicType::Uint16: return PTL_UINT16_T;
  case ipc::AtomicType::Int32: return PTL_INT32_T;
  case ipc::AtomicType::Uint32: return PTL_UINT32_T;
  case ipc::AtomicType::Int64: return PTL_INT64_T;
  case ipc::AtomicType::Uint64: return PTL_UINT64_T;
  case ipc::AtomicType::Float: return PTL_FLOAT;
  case ipc::AtomicType::Double: return PTL_DOUBLE;
  case ipc::AtomicType::FloatComplex: return PTL_FLOAT_COMPLEX;
  case ipc::AtomicType::DoubleComplex: return PTL_DOUBLE_COMPLEX;
  case ipc::AtomicType::LongDouble: return PTL_LONG_DOUBLE;
  case ipc::AtomicType::LongDoubleComplex: return PTL_LONG_DOUBLE_COMPLEX;
  }
  return static_cast<ptl_datatype_t>(type);
}

// The atomic fields of an event come in the protocol's numbering.
inline ptl_event_t event_with_atomics_from_wire(const ipc::Event& event)
{
  ptl_event_t out = event_from_wire(event);
  out.atomic_operation = atomic_op_from_wire(event.atomic_operation);
  out.atomic_type = atomic_type_from_wire(event.atomic_type);
  return out;
}

inline std::optional<ipc::SearchOp> search_op_to_wire(ptl_search_op_t op)
{
  switch (op) {
  case PTL_SEARCH_ONLY: return ipc::SearchOp::Only;
  case PTL_SEARCH_DELETE: return ipc::SearchOp::Delete;
  default: return std::nullopt; // PTL_ACTIVE_SEARCH_ONLY and the like are not Portals 4.1
  }
}

} // namespace s4bxi::preload::abi
