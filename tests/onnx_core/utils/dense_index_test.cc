#include "onnx_core/utils/dense_index.h"

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

namespace onnxopt::utils {
namespace {

TEST(DenseIndex, NumbersKeysInInsertionOrder) {
  DenseIndex<std::string_view> index;
  EXPECT_EQ(index.find("x"), index.kNone);
  EXPECT_EQ(index.insert("x"), std::make_pair(0u, true));
  EXPECT_EQ(index.insert("y"), std::make_pair(1u, true));
  EXPECT_EQ(index.insert("x"), std::make_pair(0u, false)) << "a known key keeps its number";
  EXPECT_EQ(index.find("y"), 1u);
  EXPECT_FALSE(index.contains("z"));
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.keys(), (std::vector<std::string_view>{"x", "y"}));
}

TEST(DenseIndex, FindGivenTheHashAgreesWithFind) {
  DenseIndex<std::string_view> index;
  const std::vector<std::string> names = {"a", "values.0", "a_much_longer_name_of_forty_bytes_or_so_x"};
  for (const std::string& name : names) index.insert(name);
  for (const std::string& name : names) EXPECT_EQ(index.find(name, StringHash{}(name)), index.find(name)) << name;
  EXPECT_EQ(index.find("b", StringHash{}("b")), index.kNone);
}

TEST(DenseIndex, ClearForgetsEveryKeyAndNumbersFromZeroAgain) {
  DenseIndex<std::string_view> index;
  index.insert("a");
  index.insert("b");
  index.clear();
  EXPECT_TRUE(index.empty());
  EXPECT_FALSE(index.contains("a"));
  EXPECT_EQ(index.insert("b"), std::make_pair(0u, true));
}

TEST(DenseIndex, AgreesWithUnorderedMapThroughGrowthAndRebuilds) {
  DenseIndex<std::string_view> index;
  std::vector<std::string> names;
  for (int i = 0; i < 20000; ++i) names.push_back("v" + std::to_string(i));
  for (int round = 0; round < 2; ++round) {
    index.clear();
    std::unordered_map<std::string_view, std::uint32_t> reference;
    for (int i = 0; i < 20000; ++i) {
      // Repeats some earlier names so that lookups and insertions interleave.
      const std::string_view name = names[static_cast<std::size_t>(i % 3 == 0 ? i / 3 : i)];
      const auto [number, added] = index.insert(name);
      const auto [it, expected_added] = reference.try_emplace(name, static_cast<std::uint32_t>(reference.size()));
      ASSERT_EQ(added, expected_added) << name;
      ASSERT_EQ(number, it->second) << name;
    }
    for (const auto& [name, number] : reference) ASSERT_EQ(index.find(name), number) << name;
    EXPECT_EQ(index.size(), reference.size());
  }
}

TEST(DenseIndex, NumbersAlignedPointers) {
  std::vector<std::unique_ptr<double[]>> blocks;
  DenseIndex<const double*, PointerHash> index;
  for (std::uint32_t i = 0; i < 5000; ++i) {
    blocks.push_back(std::make_unique<double[]>(8));
    EXPECT_EQ(index.insert(blocks.back().get()).first, i);
  }
  for (std::uint32_t i = 0; i < 5000; ++i) EXPECT_EQ(index.find(blocks[i].get()), i);
  EXPECT_FALSE(index.contains(nullptr));
}

TEST(DenseIndex, HashesNamesAndPointersWithTheProjectsHashesByDefault) {
  // Names are queried for every input of every node: libstdc++'s std::hash of a string
  // view was 13 % of the optimizer's instructions; std::hash of a pointer keeps the
  // alignment's zero low bits, which the table uses.
  static_assert(std::is_same_v<DenseIndexHash<std::string_view>::type, StringHash>);
  static_assert(std::is_same_v<DenseIndexHash<const int*>::type, PointerHash>);
  static_assert(std::is_same_v<DenseIndexHash<std::size_t>::type, std::hash<std::size_t>>);
  DenseIndex<std::string_view> names;
  const std::vector<std::string> owned = {"a", "b/c", "a_long_value_name_of_an_exporter:0"};
  for (const std::string& name : owned) names.insert(name);
  EXPECT_EQ(names.find("b/c"), 1u);
  EXPECT_EQ(names.find(owned[2]), 2u);
  EXPECT_FALSE(names.contains("c"));
}

}  // namespace
}  // namespace onnxopt::utils
