#pragma once
// NameTable<T>: a map from value names to T for tables with one entry per value of a
// large graph (100k+ entries), looked up once per node input.
//
// Why not std::unordered_map: libstdc++ chains every element into one list, so inserting
// into an empty bucket touches the node that heads the neighbouring bucket, a random
// old allocation; once the table outgrows the caches, each insert and lookup costs
// cache misses that grow with the table. Here entries live in insertion order in a
// deque (a value is usually read soon after it is produced, by nearby nodes) and a
// ProbeIndex finds them.
// Entries are never erased; addresses of stored values are stable.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <utility>

#include "onnx_core/utils/probe_index.h"
#include "onnx_core/utils/string_hash.h"

namespace onnxopt::utils {

template <class T>
class NameTable {
 public:
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void reserve(std::size_t count) { index_.Reserve(count); }

  T* find(std::string_view name) { return find(name, HashString(name)); }
  const T* find(std::string_view name) const { return const_cast<NameTable*>(this)->find(name); }
  // find, given HashString(name) (a caller hashing a name for several tables does it once).
  T* find(std::string_view name, std::uint64_t hash) {
    const std::uint32_t entry = index_.Find(static_cast<std::size_t>(hash), Is(name));
    return entry == ProbeIndex::kNone ? nullptr : &entries_[entry].second;
  }
  const T* find(std::string_view name, std::uint64_t hash) const {
    return const_cast<NameTable*>(this)->find(name, hash);
  }
  bool contains(std::string_view name) const { return find(name) != nullptr; }

  // Inserts or replaces the value of `name`.
  T& set(std::string_view name, T value) {
    const auto [entry, added] = index_.Insert(Hash(name), static_cast<std::uint32_t>(entries_.size()), Is(name));
    if (!added) return entries_[entry].second = std::move(value);
    return entries_.emplace_back(std::string(name), std::move(value)).second;
  }

  // Inserts `name` with `value` unless it is present (its value is kept); true when
  // inserted. One probe, where find then set would make two.
  bool insert(std::string_view name, T value) { return emplace(name, HashString(name), std::move(value)).second; }

  // The value of `name`, inserting `value` when it is absent (true then), given
  // HashString(name): one probe.
  std::pair<T*, bool> emplace(std::string_view name, std::uint64_t hash, T value) {
    const auto [entry, added] =
        index_.Insert(static_cast<std::size_t>(hash), static_cast<std::uint32_t>(entries_.size()), Is(name));
    if (added) return {&entries_.emplace_back(std::string(name), std::move(value)).second, true};
    return {&entries_[entry].second, false};
  }

  // Entries in insertion order.
  const std::deque<std::pair<std::string, T>>& entries() const { return entries_; }

 private:
  static std::size_t Hash(std::string_view name) { return static_cast<std::size_t>(HashString(name)); }
  auto Is(std::string_view name) const {
    return [this, name](std::uint32_t entry) { return entries_[entry].first == name; };
  }

  std::deque<std::pair<std::string, T>> entries_;
  ProbeIndex index_;
};

}  // namespace onnxopt::utils
