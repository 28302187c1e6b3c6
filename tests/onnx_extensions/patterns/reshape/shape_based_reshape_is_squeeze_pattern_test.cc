#include "onnx_extensions/patterns/reshape/shape_based_reshape_is_squeeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedReshapeIsSqueezePattern, TurnsAReshapeIntoUnsqueeze) {
  ExpectRewrite<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D] X) => (float[1,2,3,D,1] Y) <int64[1] one = {1}> {
      d = Shape(X)
      s = Concat<axis=0>(one, d, one)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D] X) => (float[1,2,3,D,1] Y) <int64[2] axes = {0, 4}> {
      Y = Unsqueeze(X, axes)
    })ONNX");
}

TEST(ShapeBasedReshapeIsSqueezePattern, TurnsAReshapeIntoSqueeze) {
  ExpectRewrite<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,4,1] X) => (float[N,4] Y) <int64[2] s = {0, 4}> {
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,4,1] X) => (float[N,4] Y) <int64[2] axes = {1, 3}> {
      Y = Squeeze(X, axes)
    })ONNX");
}

TEST(ShapeBasedReshapeIsSqueezePattern, TurnsAnExpandOfOnesIntoUnsqueeze) {
  ExpectRewrite<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[1,3,4] Y) <int64[3] s = {1, 1, 1}> {
      Y = Expand(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[1,3,4] Y) <int64[1] axes = {0}> {
      Y = Unsqueeze(X, axes)
    })ONNX");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsOpset17) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[N,1,4] X) => (float[N,4] Y) <int64[2] s = {0, 4}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the opset is older than 18");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsMovingOnes) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,1] X) => (float[1,A] Y) <int64[1] one = {1}> {
      a = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(one, a)
      Y = Reshape(X, s)
    })ONNX", "Y", "the output loses 1s but keeps a 1");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsAnOutputKeepingAOne) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,A,1] X) => (float[A,1] Y) <int64[1] one = {1}> {
      a = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(a, one)
      Y = Reshape(X, s)
    })ONNX", "Y", "the output loses 1s but keeps a 1");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsAnInputKeepingAOne) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,1] X) => (float[1,A,1] Y) <int64[1] one = {1}> {
      d = Shape(X)
      s = Concat<axis=0>(one, d)
      Y = Reshape(X, s)
    })ONNX", "Y", "the output gains 1s but the input has a 1 too");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsABroadcastingExpand) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,1] X) => (float[3,2] Y) <int64[2] s = {1, 2}> {
      Y = Expand(X, s)
    })ONNX", "Y", "the Expand does not have a constant shape of ones");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsAnotherReshape) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[1,3,4] Y) <int64[3] s = {1, 3, 4}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shapes differ by more than dimensions equal to 1");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsTheSameShape) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <int64[2] s = {0, 4}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the input and the output have the same shape");
}

TEST(ShapeBasedReshapeIsSqueezePattern, RejectsAnUnknownOutputShape) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, int64[3] s) => (float[?,?,?] Y) {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape of the input or of the output is not known");
}

// The target [D, D] read from X's shape: D = 0 copies X's dims there, 1 and 0, so Y is
// [1, 0] where a Squeeze of axis 0 would give [0, 0]: Y's first dim is not known.
TEST(ShapeBasedReshapeIsSqueezePattern, RejectsAShapeThatAnEmptyDimChanges) {
  ExpectNoMatch<ShapeBasedReshapeIsSqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,D,D] X) => (float[?,D] Y) {
      s = Shape<start = 1>(X)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape of the input or of the output is not known");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
