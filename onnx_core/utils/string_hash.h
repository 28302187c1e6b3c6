#pragma once
// HashString: the hash of value names, op types and other short strings for the tables
// that are queried for every input of every node (the optimizer's index, the shape
// tables, the cleanup passes, the match cache).
//
// Why not std::hash<std::string_view>: libstdc++'s (_Hash_bytes, out of line) was 13 % of
// the instructions of optimizing the 8-layer decoder. This one is inlined, reads 8 bytes a
// step with one multiply, and is the one hash of names for all these tables; it saved
// 1.2 % (bench/RESULTS-incremental.md: names are hashed again at every query).
// The value is not seeded, but nothing may depend on it beyond one run: the tables that
// use it keep insertion order (NameTable, DenseIndex) or are never iterated.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace onnxopt::utils {

inline std::uint64_t HashString(std::string_view text) {
  std::uint64_t hash = 0x9e3779b97f4a7c15ULL ^ text.size();
  const char* data = text.data();
  std::size_t left = text.size();
  auto mix = [&hash](std::uint64_t word) {
    hash = (hash ^ word) * 0xbf58476d1ce4e5b9ULL;
    hash ^= hash >> 31;
  };
  for (; left >= 8; data += 8, left -= 8) {
    std::uint64_t word;
    std::memcpy(&word, data, 8);
    mix(word);
  }
  std::uint64_t tail = 0;
  if (left > 0) std::memcpy(&tail, data, left);
  mix(tail);
  // The tables use the low bits: fold the high ones, where the multiplies put their mixing.
  return (hash * 0x94d049bb133111ebULL) ^ (hash >> 29);
}

// For std::unordered_map/set keyed by std::string and looked up by std::string_view
// without building a key (`is_transparent`), and for DenseIndex<std::string_view>.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return static_cast<std::size_t>(HashString(text)); }
};

}  // namespace onnxopt::utils
