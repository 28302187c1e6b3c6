#include "onnx_extensions/patterns/reshape/concat_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConcatReshapePattern, InfersTheLastShapeDimension) {
  ExpectRewrite<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4,4] X) => (float[2,C,16] Y) <int64[1] hw = {16}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4,4] X) => (float[2,C,16] Y) <int64[1] hw = {16}, int64[1] m1 = {-1}> {
      d0 = Shape<start=0, end=1>(X)
      s2 = Concat<axis=0>(d0, m1, hw)
      Y = Reshape(X, s2)
    })ONNX");
}

// With a symbolic N, the -1 would not be inferred when N is 0: Reshape of a [0,C,4,4]
// tensor to [0,-1,16] fails where the computed [0,C,16] works.
TEST(ConcatReshapePattern, RejectsAMinusOneBesideASymbolicDim) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4,4] X) => (float[N,C,16] Y) <int64[1] hw = {16}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      Y = Reshape(X, s)
    })ONNX", "Y", "another dim of the output may be 0 (an empty tensor), where a -1 cannot be inferred");
}

// The Reshape reads the Concat as its data too: the Concat stays for it (it was removed,
// leaving the data input to a removed node; found by mutating the test above).
TEST(ConcatReshapePattern, KeepsAConcatTheReshapeAlsoReadsAsData) {
  ExpectRewrite<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,C,4,4] X) => (int64[1,C,1] Y) <int64[1] hw = {1}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      Y = Reshape(s, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,C,4,4] X) => (int64[1,C,1] Y) <int64[1] hw = {1}, int64[1] m1 = {-1}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      s2 = Concat<axis=0>(d0, m1, hw)
      Y = Reshape(s, s2)
    })ONNX");
}

TEST(ConcatReshapePattern, InfersTheDimensionNotComingFromShape) {
  ExpectRewrite<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4] X) => (float[2,?] Y) {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      d2 = Shape<start=2, end=3>(X)
      p = Mul(d1, d2)
      s = Concat<axis=0>(d0, p)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4] X) => (float[2,?] Y) <int64[1] m1 = {-1}> {
      d0 = Shape<start=0, end=1>(X)
      s2 = Concat<axis=0>(d0, m1)
      Y = Reshape(X, s2)
    })ONNX");
}

// Another node reads the Concat: it is written again at its own place, and the new nodes
// go there too.
TEST(ConcatReshapePattern, KeepsASharedConcat) {
  ExpectRewrite<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4,4] X) => (float[2,C,16] Y, int64[3] s) <int64[1] hw = {16}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4,4] X) => (float[2,C,16] Y, int64[3] s) <int64[1] hw = {16}, int64[1] m1 = {-1}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      s2 = Concat<axis=0>(d0, m1, hw)
      Y = Reshape(X, s2)
    })ONNX");
}

TEST(ConcatReshapePattern, RejectsAMinusOneAlready) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4,4] X) => (float[N,C,16] Y) <int64[1] hw = {16}, int64[1] m1 = {-1}> {
      d0 = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(d0, m1, hw)
      Y = Reshape(X, s)
    })ONNX", "Y", "a constant input of the Concat is -1");
}

TEST(ConcatReshapePattern, RejectsAGraphInputPiece) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4,4] X, int64[1] c) => (float[N,?,16] Y) <int64[1] hw = {16}> {
      d0 = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(d0, c, hw)
      Y = Reshape(X, s)
    })ONNX", "Y", "a non-constant input of the Concat is not produced by a node");
}

TEST(ConcatReshapePattern, RejectsAConstantOfTwoElements) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2,3] Y) <int64[2] c = {2, 3}> {
      d0 = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(d0, c)
      Y = Reshape(X, s)
    })ONNX", "Y", "a constant input of the Concat does not have one element");
}

TEST(ConcatReshapePattern, RejectsTwoInputsNotFromShape) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C] X, int64[1] a, int64[1,1] b) => (float[?,?] Y) <int64[1] zero = {0}> {
      pa = Abs(a)
      pb = Squeeze(b, zero)
      s = Concat<axis=0>(pa, pb)
      Y = Reshape(X, s)
    })ONNX", "Y", "two non-constant inputs of the Concat are not produced by Shape");
}

TEST(ConcatReshapePattern, RejectsAPieceOfTwoElements) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4,4] X) => (float[N,C,16] Y) <int64[1] hw = {16}> {
      d = Shape<start=0, end=2>(X)
      s = Concat<axis=0>(d, hw)
      Y = Reshape(X, s)
    })ONNX", "Y", "a non-constant input of the Concat does not have shape (1,)");
}

TEST(ConcatReshapePattern, RejectsAConstantShape) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[2,2,3] Y) <int64[1] a = {2}, int64[2] b = {2, 3}> {
      s = Concat<axis=0>(a, b)
      Y = Reshape(X, s)
    })ONNX", "Y", "a constant input of the Concat does not have one element");
}

TEST(ConcatReshapePattern, RejectsAShapeInputNotFromConcat) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,2,3] W) => (float[N,2,3] Y) {
      s = Shape(W)
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape input is not produced by a Concat");
}

// The shared Concat stays where it is; the new nodes would go there too, before x.
TEST(ConcatReshapePattern, RejectsASharedConcatComputedBeforeTheData) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,C,4,4] W) => (float[2,C,16] Y, int64[3] s) <int64[1] hw = {16}> {
      d0 = Shape<start=0, end=1>(W)
      d1 = Shape<start=1, end=2>(W)
      s = Concat<axis=0>(d0, d1, hw)
      X = Neg(W)
      Y = Reshape(X, s)
    })ONNX", "Y", "the Concat has other readers and the data input of the Reshape is computed after it");
}

TEST(ConcatReshapePattern, RejectsAllowZero) {
  ExpectNoMatch<ConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4,4] X) => (float[N,C,16] Y) <int64[1] hw = {16}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, hw)
      Y = Reshape<allowzero=1>(X, s)
    })ONNX", "Y", "the Reshape has allowzero=1");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
