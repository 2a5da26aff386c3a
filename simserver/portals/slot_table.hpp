// Objects addressed by small indices that stay valid until freed; freed
// indices are reused (so a stale handle may name a newer object, as with any
// handle-based API, but never a destroyed one).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace s4bxi::portals {

template <class T> class SlotTable {
public:
  explicit SlotTable(uint32_t capacity = UINT32_MAX) : capacity_(capacity) {}

  // Returns the index of the new object, or nullopt when the table is full.
  std::optional<uint32_t> insert(T value)
  {
    auto index = reserve();
    if (index)
      insert_at(*index, std::move(value));
    return index;
  }

  // An index set aside for a later insert_at (an entry the process appends
  // itself with a handle it already returned, preload/queued_appends.hpp): it
  // counts against the capacity, and insert() never gives it.
  std::optional<uint32_t> reserve()
  {
    uint32_t index;
    if (not free_.empty()) {
      index = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() >= capacity_)
        return std::nullopt;
      index = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    ++live_;
    return index;
  }
  // Puts the object at a reserved index.
  void insert_at(uint32_t index, T value) { slots_[index].emplace(std::move(value)); }
  // Gives a reserved index back, unused.
  void unreserve(uint32_t index)
  {
    free_.push_back(index);
    --live_;
  }

  T* find(uint32_t index) { return index < slots_.size() && slots_[index] ? &*slots_[index] : nullptr; }
  const T* find(uint32_t index) const
  {
    return index < slots_.size() && slots_[index] ? &*slots_[index] : nullptr;
  }

  void erase(uint32_t index)
  {
    if (find(index) == nullptr)
      return;
    slots_[index].reset();
    free_.push_back(index);
    --live_;
  }

  [[nodiscard]] size_t live() const { return live_; }
  void set_capacity(uint32_t capacity) { capacity_ = capacity; }

  template <class F> void for_each(F f)
  {
    for (uint32_t i = 0; i < slots_.size(); ++i)
      if (slots_[i])
        f(i, *slots_[i]);
  }

private:
  std::vector<std::optional<T>> slots_;
  std::vector<uint32_t> free_;
  uint32_t capacity_;
  size_t live_ = 0;
};

} // namespace s4bxi::portals
