#include "onnx_extensions/patterns/reshape/shape_based_edit_distance_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedEditDistanceReshapePattern, MergesIntegersAndKeepsTheSymbol) {
  ExpectRewrite<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,2,3] X) => (float[D,6] Y) <int64[1] m1 = {-1}> {
      d = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(d, m1)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,2,3] X) => (float[D,6] Y) <int64[2] s2 = {0, 6}> {
      Y = Reshape(X, s2)
    })ONNX");
}

// The inferred output [6, D] holds while D > 0; with D = 0 the target [-1, D] is [-1, 0],
// whose 0 copies X's dim 1: [0, 3], where [6, -1] gives [6, 0] (found by `--check`'s
// empty-dimension sets). Shape inference now leaves that output unknown itself.
TEST(ShapeBasedEditDistanceReshapePattern, RejectsASymbolThatWouldCopyAnotherDimWhenZero) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D] X) => (float[6,D] Y) <int64[1] m1 = {-1}> {
      d = Shape<start=2, end=3>(X)
      s = Concat<axis=0>(m1, d)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape of the input or of the output is not known");
}

// [2*N, 3] of [N, 2, 3]: 2*N is 0 exactly when N is, and the 0 then copies N = 0.
TEST(ShapeBasedEditDistanceReshapePattern, MergesBesideAMultipleOfTheSymbolInPlace) {
  ExpectRewrite<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[?,3] Y) <int64[1] two = {2}, int64[1] three = {3}> {
      n = Shape<start=0, end=1>(X)
      m = Mul(n, two)
      s = Concat<axis=0>(m, three)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[?,3] Y) <int64[2] s2 = {-1, 3}> {
      Y = Reshape(X, s2)
    })ONNX");
}

TEST(ShapeBasedEditDistanceReshapePattern, CopiesSymbolsInPlaceAndSplitsIntegers) {
  ExpectRewrite<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,4] X) => (float[A,B,2,2] Y) <int64[1] two = {2}> {
      ab = Shape<start=0, end=2>(X)
      s = Concat<axis=0>(ab, two, two)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,4] X) => (float[A,B,2,2] Y) <int64[4] s2 = {0, 0, 2, 2}> {
      Y = Reshape(X, s2)
    })ONNX");
}

TEST(ShapeBasedEditDistanceReshapePattern, SplitsAnIntegerGroup) {
  ExpectRewrite<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,6] X) => (float[A,2,3] Y) <int64[2] tail = {2, 3}> {
      a = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(a, tail)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,6] X) => (float[A,2,3] Y) <int64[3] s2 = {0, 2, 3}> {
      Y = Reshape(X, s2)
    })ONNX");
}

// [0, -1] for an empty X (N = 0) cannot infer the -1, where the computed [N, 4C] works
// (found by review).
TEST(ShapeBasedEditDistanceReshapePattern, RejectsAMinusOneBesideASymbolicDim) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4] X) => (float[N,?] Y) <int64[1] four = {4}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      p = Mul(d1, four)
      s = Concat<axis=0>(d0, p)
      Y = Reshape(X, s)
    })ONNX", "Y", "another dim of the output may be 0 (an empty tensor), where a -1 cannot be inferred");
}

TEST(ShapeBasedEditDistanceReshapePattern, RejectsAConstantShape) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[6,4] Y) <int64[2] s = {6, 4}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape input is not produced by a Concat");
}

TEST(ShapeBasedEditDistanceReshapePattern, RejectsAConcatOfConstants) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[6,4] Y) <int64[1] a = {6}, int64[1] b = {4}> {
      s = Concat<axis=0>(a, b)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape input is constant");
}

TEST(ShapeBasedEditDistanceReshapePattern, RejectsAGraphInputShape) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, int64[2] s) => (float[?,?] Y) {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape input is not produced by a Concat");
}

TEST(ShapeBasedEditDistanceReshapePattern, RejectsTwoUncertainSteps) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[B,A] Y) {
      a = Shape<start=0, end=1>(X)
      b = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(b, a)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shapes do not align with at most one uncertain step");
}

TEST(ShapeBasedEditDistanceReshapePattern, RejectsTwoSymbolsInOneGroup) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X, float[A,E] W) => (float[A,E] Y) {
      a = Shape<start=0, end=1>(X)
      e = Shape<start=1, end=2>(W)
      s = Concat<axis=0>(a, e)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shapes do not align with at most one uncertain step");
}

// (A) -> (1, A) is the uncertain step and gives (1, -1); B moves from index 1 to 2 and
// cannot be copied by a 0: a second -1.
TEST(ShapeBasedEditDistanceReshapePattern, RejectsTwoInferredDimensions) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[1,A,B] Y) <int64[1] one = {1}> {
      ab = Shape(X)
      s = Concat<axis=0>(one, ab)
      Y = Reshape(X, s)
    })ONNX", "Y", "the aligned shapes do not give a shape with at most one -1");
}

TEST(ShapeBasedEditDistanceReshapePattern, RejectsAnUnknownOutputShape) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, int64[1] n) => (float[A,?] Y) {
      a = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(a, n)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape of the input or of the output is not known");
}

// A 0 of y written in s' would copy x's dimension instead.
TEST(ShapeBasedEditDistanceReshapePattern, RejectsAnEmptyTensor) {
  ExpectNoMatch<ShapeBasedEditDistanceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,3,0] X) => (float[A,0,3] Y) <int64[1] three = {3}> {
      a = Shape<start=0, end=1>(X)
      z = Shape<start=2, end=3>(X)
      s = Concat<axis=0>(a, z, three)
      Y = Reshape<allowzero=0>(X, s)
    })ONNX", "Y", "the input or the output has a dimension 0");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
