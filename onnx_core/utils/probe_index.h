#pragma once
// ProbeIndex: the open-addressing index behind this folder's flat tables (NameTable,
// DenseIndex). The tables keep their entries in insertion order in a container of their
// own and number them 0, 1, 2, ...; the index maps a key's hash to its entry number with
// linear probing over (hash, number) slots, at a load factor of at most one half. It
// never sees a key: the caller says which entry number holds the one it looks for.
// Entries are never erased one by one; Clear() forgets them all and keeps the memory.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace onnxopt::utils {

class ProbeIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  // Room for `count` entries without growing.
  void Reserve(std::size_t count) {
    if (count * 2 > slots_.size()) Rehash(Capacity(count));
  }
  void Clear() { std::fill(slots_.begin(), slots_.end(), Slot{}); }

  // The number of the entry with this hash for which `is_key(number)` holds, or kNone.
  template <class IsKey>
  std::uint32_t Find(std::size_t hash, IsKey&& is_key) const {
    if (slots_.empty()) return kNone;
    return slots_[Probe(hash, is_key)].entry;
  }

  // Find; when there is no such entry, records `next` (the number of the entry the
  // caller appends now) under this hash. Returns the number and whether it was added.
  template <class IsKey>
  std::pair<std::uint32_t, bool> Insert(std::size_t hash, std::uint32_t next, IsKey&& is_key) {
    Reserve(static_cast<std::size_t>(next) + 1);
    Slot& slot = slots_[Probe(hash, is_key)];
    if (slot.entry != kNone) return {slot.entry, false};
    slot = Slot{hash, next};
    return {next, true};
  }

 private:
  struct Slot {
    std::size_t hash = 0;
    std::uint32_t entry = kNone;
  };

  // A power of two at least twice `count`.
  static std::size_t Capacity(std::size_t count) {
    std::size_t capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    return capacity;
  }

  // The slot holding the key, or the empty slot where it would go (slots_ not empty).
  template <class IsKey>
  std::size_t Probe(std::size_t hash, IsKey& is_key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const Slot& candidate = slots_[slot];
      if (candidate.entry == kNone || (candidate.hash == hash && is_key(candidate.entry))) return slot;
    }
  }

  void Rehash(std::size_t capacity) {
    std::vector<Slot> slots(capacity);
    const std::size_t mask = capacity - 1;
    for (const Slot& old : slots_) {
      if (old.entry == kNone) continue;
      std::size_t slot = old.hash & mask;
      while (slots[slot].entry != kNone) slot = (slot + 1) & mask;
      slots[slot] = old;
    }
    slots_ = std::move(slots);
  }

  std::vector<Slot> slots_;
};

}  // namespace onnxopt::utils
