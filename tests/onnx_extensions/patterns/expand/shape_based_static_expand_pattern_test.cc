#include "onnx_extensions/patterns/expand/shape_based_static_expand_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedStaticExpandPattern, MakesTheShapeConstant) {
  ExpectRewrite<ShapeBasedStaticExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D,1] X) => (float[2,3,D,2] Y) <int64[1] two = {2}> {
      d = Shape<start=0, end=-1>(X)
      sh = Concat<axis=0>(d, two)
      Y = Expand(X, sh)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D,1] X) => (float[2,3,D,2] Y) <int64[4] c = {1, 1, 1, 2}> {
      Y = Expand(X, c)
    })ONNX");
}

TEST(ShapeBasedStaticExpandPattern, RejectsConstantShape) {
  ExpectNoMatch<ShapeBasedStaticExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,2] Y) <int64[2] sh = {1, 2}> {
      Y = Expand(X, sh)
    })ONNX", "Y", "the shape input is constant");
}

TEST(ShapeBasedStaticExpandPattern, RejectsRankIncrease) {
  ExpectNoMatch<ShapeBasedStaticExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[2,N,4] Y) <int64[1] two = {2}> {
      d = Shape(X)
      sh = Concat<axis=0>(two, d)
      Y = Expand(X, sh)
    })ONNX", "Y", "the Expand changes the rank");
}

TEST(ShapeBasedStaticExpandPattern, RejectsSymbolicTargetDimension) {
  ExpectNoMatch<ShapeBasedStaticExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X, float[N,M] W) => (float[N,M] Y) {
      sh = Shape(W)
      Y = Expand(X, sh)
    })ONNX", "Y", "an expanded dimension is symbolic");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
