#pragma once
// DenseIndex<Key>: numbers distinct keys 0, 1, 2, ... in insertion order, for per-pass
// tables over a large graph (one entry per node or per value, 100k+) that are rebuilt
// often: the optimizer's index after each batch, the cleanup passes' walks.
//
// Why not std::unordered_map / unordered_set: they allocate a node per element (a
// rebuild frees and allocates them all again) and chain all elements into one list, so
// that once the table outgrows the caches every insert and lookup costs cache misses
// (see utils::NameTable for the same reasoning on long-lived tables). Here the keys sit
// in a vector and an open-addressing array of (hash, number) pairs finds them with
// linear probing; clear() keeps both allocations for the next rebuild. The caller keeps
// the data a key refers to (e.g. the string a string_view views) alive while it is in
// the table. Keys are never erased one by one.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace onnxopt::core::builder {

// std::hash of a pointer is the address itself, whose low bits (the ones a power-of-two
// table uses) are the same for every aligned allocation: mix the high bits down.
struct PointerHash {
  std::size_t operator()(const void* pointer) const {
    const std::uint64_t mixed = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer)) *
                                0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed ^ (mixed >> 32));
  }
};

template <class Key, class Hash = std::hash<Key>>
class DenseIndex {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  std::size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }
  // Keys in insertion order: keys()[find(key)] == key.
  const std::vector<Key>& keys() const { return keys_; }

  void reserve(std::size_t count) {
    keys_.reserve(count);
    if (count * 2 > slots_.size()) Rehash(Capacity(count));
  }
  // Forgets every key, keeping the memory.
  void clear() {
    keys_.clear();
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }

  // The number of `key`, or kNone.
  std::uint32_t find(const Key& key) const {
    if (slots_.empty()) return kNone;
    return slots_[Probe(key, Hash{}(key))].entry;
  }
  bool contains(const Key& key) const { return find(key) != kNone; }

  // The number of `key`, and whether it was added now (with number size() - 1).
  std::pair<std::uint32_t, bool> insert(const Key& key) {
    if ((keys_.size() + 1) * 2 > slots_.size()) Rehash(Capacity(keys_.size() + 1));
    const std::size_t hash = Hash{}(key);
    Slot& slot = slots_[Probe(key, hash)];
    if (slot.entry != kNone) return {slot.entry, false};
    slot = Slot{hash, static_cast<std::uint32_t>(keys_.size())};
    keys_.push_back(key);
    return {slot.entry, true};
  }

 private:
  struct Slot {
    std::size_t hash = 0;
    std::uint32_t entry = kNone;
  };

  // A power of two at least twice `count` (load factor at most one half).
  static std::size_t Capacity(std::size_t count) {
    std::size_t capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    return capacity;
  }

  // The slot holding `key`, or the empty slot where it would go.
  std::size_t Probe(const Key& key, std::size_t hash) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const Slot& candidate = slots_[slot];
      if (candidate.entry == kNone || (candidate.hash == hash && keys_[candidate.entry] == key)) return slot;
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

  std::vector<Key> keys_;
  std::vector<Slot> slots_;
};

}  // namespace onnxopt::core::builder
