#include "onnx_core/utils/string_hash.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <gtest/gtest.h>

namespace onnxopt::utils {
namespace {

TEST(HashString, DependsOnEveryByteAndOnTheLength) {
  // Lengths 0 to 24 cover the empty string, a tail alone, whole 8-byte words and both.
  const std::string text = "/model/layers.0/self_attn";
  std::unordered_set<std::uint64_t> prefixes;
  for (std::size_t length = 0; length <= 24; ++length)
    prefixes.insert(HashString(std::string_view(text).substr(0, length)));
  EXPECT_EQ(prefixes.size(), 25u) << "each prefix hashes apart";
  // A zero byte at the end is not padding: "a" and "a\0" differ.
  EXPECT_NE(HashString(std::string_view("a", 1)), HashString(std::string_view("a\0", 2)));
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string changed = text;
    changed[i] ^= 1;
    EXPECT_NE(HashString(changed), HashString(text)) << "a change at byte " << i;
  }
}

TEST(HashString, EqualTextEqualHashWhateverItsStorage) {
  const std::string owned = "onnx::Gather_output_0";
  const char buffer[] = "xonnx::Gather_output_0";  // unaligned view into another buffer
  EXPECT_EQ(HashString(owned), HashString(std::string_view(buffer + 1)));
  EXPECT_EQ(StringHash{}(owned), static_cast<std::size_t>(HashString(owned)));
}

// The tables index slots by the low bits: names that differ only in a counter, as
// exporters write them, must spread over them.
TEST(HashString, ExporterNamesSpreadOverTheLowBits) {
  constexpr std::size_t kBuckets = 1024;
  std::vector<int> load(kBuckets, 0);
  constexpr int kNames = 16 * kBuckets;
  for (int i = 0; i < kNames; ++i)
    ++load[HashString("/model/layers." + std::to_string(i) + "/mlp/Mul_output_0") % kBuckets];
  const int fullest = *std::max_element(load.begin(), load.end());
  const int emptiest = *std::min_element(load.begin(), load.end());
  // 16 names per bucket on average; a uniform hash keeps every bucket within about 4
  // standard deviations (16 +- 16).
  EXPECT_LE(fullest, 40);
  EXPECT_GE(emptiest, 1);
}

}  // namespace
}  // namespace onnxopt::utils
