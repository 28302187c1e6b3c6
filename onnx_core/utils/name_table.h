#pragma once
// NameTable<T>: a map from value names to T for tables with one entry per value of a
// large graph (100k+ entries), looked up once per node input.
//
// Why not std::unordered_map: libstdc++ chains every element into one list, so inserting
// into an empty bucket touches the node that heads the neighbouring bucket, a random
// old allocation; once the table outgrows the caches, each insert and lookup costs
// cache misses that grow with the table. Here entries live in insertion order in a
// deque (a value is usually read soon after it is produced, by nearby nodes) and an
// open-addressing index of (hash, entry number) pairs finds them with linear probing.
// Entries are never erased; addresses of stored values are stable.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace onnxopt::utils {

template <class T>
class NameTable {
 public:
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void reserve(std::size_t count) {
    if (count * 2 > slots_.size()) Rehash(Capacity(count));
  }

  T* find(std::string_view name) {
    const std::size_t slot = Probe(name, Hash(name));
    return slots_.empty() || slots_[slot].entry == kEmpty ? nullptr : &entries_[slots_[slot].entry].second;
  }
  const T* find(std::string_view name) const { return const_cast<NameTable*>(this)->find(name); }
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  // Inserts or replaces the value of `name`.
  T& set(std::string_view name, T value) {
    if ((entries_.size() + 1) * 2 > slots_.size()) Rehash(Capacity(entries_.size() + 1));
    const std::size_t hash = Hash(name);
    const std::size_t slot = Probe(name, hash);
    if (slots_[slot].entry != kEmpty) return entries_[slots_[slot].entry].second = std::move(value);
    slots_[slot] = {hash, static_cast<std::uint32_t>(entries_.size())};
    return entries_.emplace_back(std::string(name), std::move(value)).second;
  }

  // Entries in insertion order.
  const std::deque<std::pair<std::string, T>>& entries() const { return entries_; }

 private:
  static constexpr std::uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    std::size_t hash = 0;
    std::uint32_t entry = kEmpty;
  };

  static std::size_t Hash(std::string_view name) { return std::hash<std::string_view>{}(name); }
  // A power of two at least twice `count` (load factor at most one half).
  static std::size_t Capacity(std::size_t count) {
    std::size_t capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    return capacity;
  }

  // The slot holding `name`, or the empty slot where it would go.
  std::size_t Probe(std::string_view name, std::size_t hash) const {
    if (slots_.empty()) return 0;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const Slot& candidate = slots_[slot];
      if (candidate.entry == kEmpty) return slot;
      if (candidate.hash == hash && entries_[candidate.entry].first == name) return slot;
    }
  }

  void Rehash(std::size_t capacity) {
    std::vector<Slot> slots(capacity);
    const std::size_t mask = capacity - 1;
    for (const Slot& old : slots_) {
      if (old.entry == kEmpty) continue;
      std::size_t slot = old.hash & mask;
      while (slots[slot].entry != kEmpty) slot = (slot + 1) & mask;
      slots[slot] = old;
    }
    slots_ = std::move(slots);
  }

  std::deque<std::pair<std::string, T>> entries_;
  std::vector<Slot> slots_;
};

}  // namespace onnxopt::utils
