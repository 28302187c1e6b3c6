#include "onnx_extensions/patterns/expand/shape_based_concat_expand_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedConcatExpandPattern, KeepsOnlyTheExpandedDimension) {
  // The new Concat of two constants is folded.
  ExpectRewrite<ShapeBasedConcatExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,2] Y) <int64[1] two = {2}> {
      n = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(n, two)
      Y = Expand(X, sh)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,2] Y) <int64[2] sh2 = {1, 2}> {
      Y = Expand(X, sh2)
    })ONNX");
}

TEST(ShapeBasedConcatExpandPattern, KeepsAComputedExpandedDimension) {
  ExpectRewrite<ShapeBasedConcatExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,C] X, float[M] W) => (float[N,M,C] Y) {
      n = Shape<start=0, end=1>(X)
      m = Shape(W)
      c = Shape<start=2>(X)
      sh = Concat<axis=0>(n, m, c)
      Y = Expand(X, sh)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,C] X, float[M] W) => (float[N,M,C] Y) <int64[1] one = {1}> {
      m = Shape(W)
      sh2 = Concat<axis=0>(one, m, one)
      Y = Expand(X, sh2)
    })ONNX");
}

TEST(ShapeBasedConcatExpandPattern, RejectsConstantShape) {
  ExpectNoMatch<ShapeBasedConcatExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,1] X) => (float[3,2] Y) <int64[1] three = {3}, int64[1] two = {2}> {
      sh = Concat<axis=0>(three, two)
      Y = Expand(X, sh)
    })ONNX", "Y", "the shape input is constant");
}

TEST(ShapeBasedConcatExpandPattern, RejectsTwoDifferingDimensions) {
  ExpectNoMatch<ShapeBasedConcatExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,1] X) => (float[N,2,2] Y) <int64[1] two = {2}> {
      n = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(n, two, two)
      Y = Expand(X, sh)
    })ONNX", "Y", "the input and the output do not differ in exactly one dimension");
}

TEST(ShapeBasedConcatExpandPattern, RejectsSharedShape) {
  ExpectNoMatch<ShapeBasedConcatExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,2] Y, float[N,2] Z) <int64[1] two = {2}> {
      n = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(n, two)
      Y = Expand(X, sh)
      Z = Reshape(Y, sh)
    })ONNX", "Y", "the shape input has other readers");
}

TEST(ShapeBasedConcatExpandPattern, RejectsRankIncrease) {
  ExpectNoMatch<ShapeBasedConcatExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[2,N,1] Y) <int64[1] two = {2}, int64[1] one = {1}> {
      n = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(two, n, one)
      Y = Expand(X, sh)
    })ONNX", "Y", "the Expand changes the rank");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
