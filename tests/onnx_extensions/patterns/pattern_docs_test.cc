// The documentation of the built-in patterns: generated from the `///` comment above each
// class (scripts/generate_pattern_docs.py) and registered by RegisterPatterns.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onnx_core/optimizer/pattern_registry.h"
#include "onnx_extensions/patterns/dispatch_table.h"

namespace onnxopt::onnx_patterns {
namespace {

std::string DocOf(const std::string& name) {
  for (const auto& entry : core::builder::RegisteredPatterns())
    if (entry.name == name) return entry.doc;
  ADD_FAILURE() << name << " is not registered";
  return "";
}

// A new pattern must come with its `///` comment: this names every one that does not.
TEST(RegisterPatternDocs, EveryBuiltInPatternAndPassIsDocumented) {
  RegisterPatterns();
  std::vector<std::string> undocumented;
  std::size_t count = 0;
  for (const auto& entry : core::builder::RegisteredPatterns()) {
    ++count;
    if (entry.doc.empty()) undocumented.push_back(entry.name);
  }
  EXPECT_GT(count, 100u);
  std::string names;
  for (const std::string& name : undocumented) names += " " + name;
  EXPECT_TRUE(undocumented.empty()) << "no `///` comment above the class of:" << names;
}

TEST(RegisterPatternDocs, TheDocIsTheCommentAboveTheClassWithoutItsMarkers) {
  RegisterPatterns();
  EXPECT_EQ(DocOf("CastPattern"),
            "Cast<to=T>(x: T) => Identity(x): a cast to the type the tensor already has.\n"
            "Before:  y = Cast<to=T>(x)          (x of element type T)\n"
            "After:   y = Identity(x)            (doc string kept)\n"
            "Not valid when the element type of x is unknown (it may be a real conversion), nor\n"
            "when it differs from T.");
  // Indentation inside the comment is kept.
  EXPECT_NE(DocOf("CastCastPattern").find("\n  T1 == T3, T2 == T1 (two no-ops)"), std::string::npos)
      << DocOf("CastCastPattern");
}

TEST(RegisterPatternDocs, GraphPassesAreDocumentedToo) {
  RegisterPatterns();
  // transpose_optimizer.h documents its class in the header's leading comment.
  EXPECT_EQ(DocOf("TransposeOptimizer").rfind("TransposeOptimizer: pushes Transposes through layout-agnostic", 0), 0u)
      << DocOf("TransposeOptimizer");
  EXPECT_EQ(DocOf("CopyElimination").rfind("t = ai.onnxopt.TensorMove(a) or Identity(a); y = f(t)", 0), 0u)
      << DocOf("CopyElimination");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
