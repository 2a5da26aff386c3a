// Encoding of the opaque handles given to programs: kind, NI slot and object
// index packed in 32 bits, so that they fit the narrowest ABI (32-bit handles).
// The encoding never produces the ABIs' reserved values (all-ones object index).
#pragma once

#include "protocol.hpp"

#include <cstdint>
#include <optional>

namespace s4bxi::portals {

enum class HandleKind : uint32_t { NI = 1, EQ = 2, CT = 3, MD = 4, ME = 5, LE = 6 };

inline constexpr uint32_t kNISlots = 4; // matching x logical
inline constexpr uint32_t kIndexBits = 26;
inline constexpr uint32_t kMaxIndex = (1U << kIndexBits) - 2;

struct DecodedHandle {
  HandleKind kind;
  uint32_t ni;
  uint32_t index;
};

inline ipc::Handle encode_handle(HandleKind kind, uint32_t ni, uint32_t index)
{
  return (static_cast<uint32_t>(kind) << 29) | (ni << kIndexBits) | index;
}

inline std::optional<DecodedHandle> decode_handle(ipc::Handle handle)
{
  if (handle == ipc::kHandleNone || handle == ipc::kHandleInvalid)
    return std::nullopt;
  uint32_t kind = handle >> 29;
  uint32_t ni = (handle >> kIndexBits) & 0x7;
  uint32_t index = handle & ((1U << kIndexBits) - 1);
  if (kind < 1 || kind > 6 || ni >= kNISlots || index > kMaxIndex)
    return std::nullopt;
  return DecodedHandle{static_cast<HandleKind>(kind), ni, index};
}

} // namespace s4bxi::portals
