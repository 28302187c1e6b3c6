#include "onnx_core/eval/undefined_results.h"

#include <gtest/gtest.h>

namespace onnxopt::core::eval {
namespace {

TEST(UndefinedResults, ReachTheInnermostScopeOnlyAndKeepTheFirst) {
  NoteUndefinedResult("outside every scope");  // noted nowhere, harmless
  ScopedUndefinedResults outer;
  {
    ScopedUndefinedResults inner;
    NoteUndefinedResult("first");
    NoteUndefinedResult("second");
    EXPECT_EQ(inner.first(), "first");
  }
  EXPECT_FALSE(outer.first());
  NoteUndefinedResult("after the inner scope");
  EXPECT_EQ(outer.first(), "after the inner scope");
}

}  // namespace
}  // namespace onnxopt::core::eval
