// Built-in patterns are registered only when an entry point asks for them.

#include "onnx_extensions/patterns/dispatch_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "onnx_core/optimizer/pattern_registry.h"

namespace onnxopt::onnx_patterns {
namespace {

bool IsRegistered(const std::string& name) {
  const std::vector<std::string> names = core::builder::RegisteredPatternNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(RegisterPatterns, RegistersBuiltInsOnlyWhenCalledAndIsIdempotent) {
  // This test binary registers nothing at start-up: linking the library is not enough.
  EXPECT_FALSE(IsRegistered("CastCastPattern"));
  RegisterPatterns();
  EXPECT_TRUE(IsRegistered("CastCastPattern"));
  const std::size_t count = core::builder::RegisteredPatternNames().size();
  EXPECT_NO_THROW(RegisterPatterns());
  EXPECT_EQ(core::builder::RegisteredPatternNames().size(), count);
  for (const auto& pattern : core::builder::CreateRegisteredPatterns())
    EXPECT_TRUE(IsRegistered(pattern->Name()));
}

TEST(RegisterPatterns, RecordsEachPatternsFamily) {
  RegisterPatterns();
  const std::set<std::string> families = {"canonicalization", "collections", "expand",      "reshape",
                                          "layout",           "algebra",     "matmul",      "normalization",
                                          "attention",        "transpose",   "fusion",      "elimination",
                                          "memory"};
  for (const auto& entry : core::builder::RegisteredPatterns()) {
    EXPECT_TRUE(families.contains(entry.family)) << entry.name << " has family '" << entry.family << "'";
    if (entry.name == "CastCastPattern") {
      EXPECT_EQ(entry.family, "canonicalization");
    }
  }
}

// The built-in rewrites that are not exact and not only a reordering of float rounding
// (canonicalization.md, expand.md, algebra.md, normalization.md); the default selection must leave exactly
// these out.
TEST(RegisterPatterns, LeavesTheApproximatePatternsOutOfTheDefaultSelection) {
  RegisterPatterns();
  std::set<std::string> approximate;
  for (const auto& entry : core::builder::RegisteredPatterns())
    if (entry.numerics == core::builder::NumericalClass::kApproximate) approximate.insert(entry.name);
  EXPECT_EQ(approximate, (std::set<std::string>{"CastCastBinaryPattern", "CastOpCastPattern", "WhereAddPattern",
                                                "ReduceArgTopKPattern", "ReduceSumNormalizePattern",
                                                "Sub1MulPattern", "CastLayerNormalizationCastPattern",
                                                "SoftmaxCrossEntropyLossCastPattern", "ArgMonotoneOpPattern",
                                                "SwapRangeAddScalarPattern", "AttentionGQAFromFunctionPattern"}));
  const std::vector<std::string> selected =
      core::builder::PatternSelection::Default().Resolve(core::builder::RegisteredPatterns());
  for (const std::string& name : approximate)
    EXPECT_EQ(std::count(selected.begin(), selected.end(), name), 0) << name << " is in the default selection";
  std::set<std::string> opt_in;
  for (const auto& entry : core::builder::RegisteredPatterns())
    if (entry.opt_in) opt_in.insert(entry.name);
  EXPECT_EQ(opt_in, (std::set<std::string>{"CopyElimination"})) << "copy-elimination.md 2.2: opt-in";
  EXPECT_EQ(selected.size() + approximate.size() + opt_in.size(), core::builder::RegisteredPatterns().size());
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
