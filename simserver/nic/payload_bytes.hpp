// The bytes a message carries: a vector whose resize leaves the new bytes
// as they are. A payload is always filled right after it is sized (a read of
// rank memory, the command's inline bytes); zeroing it first was a third
// pass over every large payload beside its two copies (4 MiB: about a sixth
// of the server's time on an MPI bandwidth sweep). Whoever fills less than
// it sized zeroes the rest (fill_rest_with_zeros).
#pragma once

#include <cstring>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace s4bxi::nic {

template <class T> struct LeftAsIsAllocator : std::allocator<T> {
  template <class U> struct rebind {
    using other = LeftAsIsAllocator<U>;
  };
  LeftAsIsAllocator() = default;
  template <class U> explicit LeftAsIsAllocator(const LeftAsIsAllocator<U>& /*other*/) noexcept {}
  // Value-initialisation (resize, the size constructor) constructs by default:
  // for bytes, nothing is written.
  template <class U> void construct(U* where) noexcept { ::new (static_cast<void*>(where)) U; }
  template <class U, class... Args> void construct(U* where, Args&&... args)
  {
    ::new (static_cast<void*>(where)) U(std::forward<Args>(args)...);
  }
};

using PayloadBytes = std::vector<unsigned char, LeftAsIsAllocator<unsigned char>>;

// Zeroes the bytes of `bytes` from `filled` on (what a copy capped by
// s4bxi/max-memcpy, or a read that failed, left unwritten).
inline void fill_rest_with_zeros(PayloadBytes& bytes, size_t filled)
{
  if (filled < bytes.size())
    std::memset(bytes.data() + filled, 0, bytes.size() - filled);
}

} // namespace s4bxi::nic
