#include "onnx_core/utils/name_table.h"

#include <string>
#include <unordered_map>

#include <gtest/gtest.h>

namespace onnxopt::utils {
namespace {

TEST(NameTable, FindsWhatWasSetAndNothingElse) {
  NameTable<int> table;
  EXPECT_EQ(table.find("x"), nullptr);
  table.set("x", 1);
  table.set("y", 2);
  ASSERT_NE(table.find("x"), nullptr);
  EXPECT_EQ(*table.find("x"), 1);
  EXPECT_EQ(*table.find("y"), 2);
  EXPECT_FALSE(table.contains("z"));
  EXPECT_FALSE(table.contains(""));
  EXPECT_EQ(table.size(), 2u);
}

TEST(NameTable, SetReplacesWithoutAddingAnEntry) {
  NameTable<std::string> table;
  table.set("x", "first");
  table.set("x", "second");
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(*table.find("x"), "second");
}

TEST(NameTable, InsertAddsOnlyWhatIsAbsentAndKeepsTheValue) {
  NameTable<std::string> table;
  EXPECT_TRUE(table.insert("x", "first"));
  EXPECT_FALSE(table.insert("x", "second"));
  EXPECT_TRUE(table.insert("y", "other"));
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(*table.find("x"), "first");
  EXPECT_EQ(table.entries().back().first, "y");
}

// The hashed forms take HashString(name) from a caller that hashed the name already.
TEST(NameTable, HashedFindAndEmplaceAgreeWithThePlainForms) {
  NameTable<std::string> table;
  const auto [first, added] = table.emplace("x", HashString("x"), "first");
  EXPECT_TRUE(added);
  const auto [again, added_again] = table.emplace("x", HashString("x"), "second");
  EXPECT_FALSE(added_again);
  EXPECT_EQ(again, first);  // the entry present, its value kept
  EXPECT_EQ(*again, "first");
  for (int i = 0; i < 100; ++i) table.set("name" + std::to_string(i), std::to_string(i));
  for (int i = 0; i < 100; ++i) {
    const std::string name = "name" + std::to_string(i);
    ASSERT_NE(table.find(name, HashString(name)), nullptr) << name;
    EXPECT_EQ(table.find(name, HashString(name)), table.find(name));
  }
  EXPECT_EQ(table.find("absent", HashString("absent")), nullptr);
  EXPECT_EQ(table.find("x", HashString("x")), first);
}

TEST(NameTable, AgreesWithUnorderedMapThroughGrowthAndKeepsAddresses) {
  NameTable<int> table;
  std::unordered_map<std::string, int> reference;
  table.set("anchor", -1);
  const int* anchor = table.find("anchor");
  for (int i = 0; i < 20000; ++i) {
    // Overwrites some earlier names so that replacement and insertion interleave.
    const std::string name = "v" + std::to_string(i % 3 == 0 ? i / 3 : i);
    table.set(name, i);
    reference[name] = i;
  }
  EXPECT_EQ(table.size(), reference.size() + 1);
  for (const auto& [name, value] : reference) {
    ASSERT_NE(table.find(name), nullptr) << name;
    EXPECT_EQ(*table.find(name), value) << name;
  }
  EXPECT_EQ(table.find("anchor"), anchor);
  EXPECT_EQ(*anchor, -1);
  EXPECT_EQ(table.entries().front().first, "anchor");
}

TEST(NameTable, ReserveKeepsEntries) {
  NameTable<int> table;
  table.set("a", 1);
  table.reserve(100000);
  EXPECT_EQ(*table.find("a"), 1);
  table.set("b", 2);
  EXPECT_EQ(table.size(), 2u);
}

}  // namespace
}  // namespace onnxopt::utils
