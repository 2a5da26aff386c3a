#include "ni_addressing.hpp"

#include <array>
#include <atomic>

namespace s4bxi::preload::ni_addressing {
namespace {

// A process has a handful of NIs (one per matching x addressing kind), and a
// handle keeps its kind for the life of the process: a small lock-free table
// that is only ever added to is enough, and safe from any thread.
// Slot value: 0 when empty, else kUsed | kLogical? | handle.
constexpr uint64_t kUsed = uint64_t{1} << 33;
constexpr uint64_t kLogical = uint64_t{1} << 32;
std::array<std::atomic<uint64_t>, 16> slots{};

uint64_t handle_of(uint64_t slot)
{
  return slot & 0xFFFFFFFFU;
}

} // namespace

void remember(ipc::Handle ni, bool logical)
{
  const uint64_t value = kUsed | (logical ? kLogical : 0) | ni;
  for (auto& slot : slots) {
    uint64_t current = slot.load(std::memory_order_acquire);
    while (current == 0 or handle_of(current) == ni) {
      if (slot.compare_exchange_weak(current, value, std::memory_order_acq_rel))
        return;
    }
  }
  // Full: the NI stays unknown, and its match_ids get the reading that does
  // not depend on the NI (abi::match_id_to_wire).
}

abi::Addressing of(ipc::Handle ni)
{
  for (const auto& slot : slots) {
    const uint64_t current = slot.load(std::memory_order_acquire);
    if (current == 0)
      break;
    if (handle_of(current) == ni)
      return (current & kLogical) != 0 ? abi::Addressing::Logical : abi::Addressing::Physical;
  }
  return abi::Addressing::Unknown;
}

} // namespace s4bxi::preload::ni_addressing
