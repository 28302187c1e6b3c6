#pragma once
// DenseIndex<Key>: numbers distinct keys 0, 1, 2, ... in insertion order, for per-pass
// tables over a large graph (one entry per node or per value, 100k+) that are rebuilt
// often: the optimizer's index after each batch, the cleanup passes' walks.
//
// Why not std::unordered_map / unordered_set: they allocate a node per element (a
// rebuild frees and allocates them all again) and chain all elements into one list, so
// that once the table outgrows the caches every insert and lookup costs cache misses
// (see utils::NameTable for the same reasoning on long-lived tables). Here the keys sit
// in a vector and a ProbeIndex finds them; clear() keeps both allocations for the next
// rebuild. The caller keeps the data a key refers to (e.g. the string a string_view
// views) alive while it is in the table. Keys are never erased one by one.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

#include "onnx_core/utils/probe_index.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::utils {

// std::hash of a pointer is the address itself, whose low bits (the ones a power-of-two
// table uses) are the same for every aligned allocation: mix the high bits down.
struct PointerHash {
  std::size_t operator()(const void* pointer) const {
    const std::uint64_t mixed = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer)) *
                                0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(mixed ^ (mixed >> 32));
  }
};

// The hash a DenseIndex uses unless given one: HashString for names (libstdc++'s
// std::hash of a string is out of line and slow), PointerHash for pointers (std::hash
// leaves their low bits alike), std::hash otherwise.
template <class Key>
struct DenseIndexHash {
  using type = std::hash<Key>;
};
template <>
struct DenseIndexHash<std::string_view> {
  using type = StringHash;
};
template <class T>
struct DenseIndexHash<T*> {
  using type = PointerHash;
};

template <class Key, class Hash = typename DenseIndexHash<Key>::type>
class DenseIndex {
 public:
  static constexpr std::uint32_t kNone = ProbeIndex::kNone;

  std::size_t size() const { return keys_.size(); }
  bool empty() const { return keys_.empty(); }
  // Keys in insertion order: keys()[find(key)] == key.
  const std::vector<Key>& keys() const { return keys_; }

  void reserve(std::size_t count) {
    keys_.reserve(count);
    index_.Reserve(count);
  }
  // Forgets every key, keeping the memory.
  void clear() {
    keys_.clear();
    index_.Clear();
  }

  // The number of `key`, or kNone.
  std::uint32_t find(const Key& key) const { return index_.Find(Hash{}(key), Is(key)); }
  // The same, given Hash{}(key): a caller that needs the hash of a name for several tables
  // computes it once.
  std::uint32_t find(const Key& key, std::size_t hash) const { return index_.Find(hash, Is(key)); }
  bool contains(const Key& key) const { return find(key) != kNone; }

  // The number of `key`, and whether it was added now (with number size() - 1).
  std::pair<std::uint32_t, bool> insert(const Key& key) {
    const auto inserted = index_.Insert(Hash{}(key), static_cast<std::uint32_t>(keys_.size()), Is(key));
    if (inserted.second) keys_.push_back(key);
    return inserted;
  }

 private:
  auto Is(const Key& key) const {
    return [this, &key](std::uint32_t entry) { return keys_[entry] == key; };
  }

  std::vector<Key> keys_;
  ProbeIndex index_;
};

}  // namespace onnxopt::utils
