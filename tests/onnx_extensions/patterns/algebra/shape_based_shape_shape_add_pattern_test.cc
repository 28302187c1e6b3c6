#include "onnx_extensions/patterns/algebra/shape_based_shape_shape_add_pattern.h"

#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;

// The placeholder never fires: a sum of two symbolic dims stays as it is.
TEST(ShapeBasedShapeShapeAddPattern, NeverRewritesASumOfDimensions) {
  ExpectNoMatch<ShapeBasedShapeShapeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,4] P, float[B,4] Q) => (int64[1] Z) {
      s1 = Shape<start=0, end=1>(P)
      s2 = Shape<start=0, end=1>(Q)
      Z = Add(s1, s2)
    })ONNX", "Z", "no tensor is known to have the sum of the two dimensions (a placeholder, as upstream)");
}

// Not even when a Concat computes a tensor of dim A + B.
TEST(ShapeBasedShapeShapeAddPattern, NeverRewritesASumOfWholeShapes) {
  ExpectNoMatch<ShapeBasedShapeShapeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,4] P, float[B,4] Q) => (int64[2] Z, float[?,4] T) {
      T = Concat<axis=0>(P, Q)
      s1 = Shape(P)
      s2 = Shape(Q)
      Z = Add(s1, s2)
    })ONNX", "Z", "no tensor is known to have the sum of the two dimensions (a placeholder, as upstream)");
}

TEST(ShapeBasedShapeShapeAddPattern, RejectsAddOfOtherValues) {
  ExpectNoMatch<ShapeBasedShapeShapeAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,4] P, int64[1] n) => (int64[1] Z) {
      s1 = Shape<start=0, end=1>(P)
      Z = Add(s1, n)
    })ONNX", "Z", "the inputs are not both produced by a Shape");
}

TEST(ShapeBasedShapeShapeAddPattern, ApplyIsAContractViolation) {
  core::builder::GraphBuilder builder(testing::ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] X) => (int64[1] Z) {
      Z = Add(X, X)
    })ONNX"));
  core::builder::GraphGraph graph(builder);
  const ShapeBasedShapeShapeAddPattern pattern;
  EXPECT_THROW(pattern.Apply(graph, {graph.NodeBefore("Z")}), BuilderError);
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
