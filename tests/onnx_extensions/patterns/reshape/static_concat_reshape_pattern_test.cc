#include "onnx_extensions/patterns/reshape/static_concat_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The new Concat has constant inputs only: constant folding makes it an initializer.
TEST(StaticConcatReshapePattern, MakesTheShapeConstant) {
  ExpectRewrite<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D] X) => (float[6,D] Y) <int64[1] six = {6}> {
      d = Shape<start=2, end=3>(X)
      s = Concat<axis=0>(six, d)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,D] X) => (float[6,D] Y) <int64[2] s2 = {6, -1}> {
      Y = Reshape(X, s2)
    })ONNX");
}

TEST(StaticConcatReshapePattern, AcceptsLongerConstants) {
  ExpectRewrite<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,12] X) => (float[N,3,4] Y) <int64[2] tail = {3, 4}> {
      n = Shape<start=0, end=1>(X)
      s = Concat<axis=0>(n, tail)
      Y = Reshape(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,12] X) => (float[N,3,4] Y) <int64[3] s2 = {-1, 3, 4}> {
      Y = Reshape(X, s2)
    })ONNX");
}

// The 0 copies N, which may be 0 at run time: Reshape cannot infer the -1 of [0, -1] for
// an empty X, where the computed [0, p] works (found by review).
TEST(StaticConcatReshapePattern, RejectsAMinusOneBesideASymbolicDim) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X, int64[1] p) => (float[N,?] Y) <int64[1] zero = {0}> {
      s = Concat<axis=0>(zero, p)
      Y = Reshape(X, s)
    })ONNX", "Y", "another dim of the output may be 0 (an empty tensor), where a -1 cannot be inferred");
}

TEST(StaticConcatReshapePattern, RejectsTwoComputedInputs) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4] X) => (float[N,C,4] Y) <int64[1] four = {4}> {
      d0 = Shape<start=0, end=1>(X)
      d1 = Shape<start=1, end=2>(X)
      s = Concat<axis=0>(d0, d1, four)
      Y = Reshape(X, s)
    })ONNX", "Y", "the Concat has more than one non-constant input");
}

TEST(StaticConcatReshapePattern, RejectsAComputedInputOfTwoElements) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,4] X) => (float[N,C,4] Y) <int64[1] four = {4}> {
      d = Shape<start=0, end=2>(X)
      s = Concat<axis=0>(d, four)
      Y = Reshape(X, s)
    })ONNX", "Y", "a non-constant input of the Concat does not have shape (1,)");
}

TEST(StaticConcatReshapePattern, RejectsAComputedInputOfUnknownShape) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, int64[K] n) => (float[?,3,4] Y) <int64[2] tail = {3, 4}> {
      s = Concat<axis=0>(n, tail)
      Y = Reshape(X, s)
    })ONNX", "Y", "a non-constant input of the Concat does not have shape (1,)");
}

TEST(StaticConcatReshapePattern, RejectsAConstantHoldingMinusOne) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, int64[1] n) => (float[?,?,4] Y) <int64[2] tail = {-1, 4}> {
      s = Concat<axis=0>(n, tail)
      Y = Reshape(X, s)
    })ONNX", "Y", "a constant input of the Concat holds -1");
}

TEST(StaticConcatReshapePattern, RejectsAConstantConcat) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[6,4] Y) <int64[1] a = {6}, int64[1] b = {4}> {
      s = Concat<axis=0>(a, b)
      Y = Reshape(X, s)
    })ONNX", "Y", "every input of the Concat is constant");
}

// A shape of rank 2 is refused before the pattern sees it; pieces of unknown rank (the
// Unsqueeze takes axes known at run time only) are not.
TEST(StaticConcatReshapePattern, RejectsAConcatOfAnotherAxis) {
  ExpectNoMatch<StaticConcatReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, int64[1] n, int64[K] ax) => (float[?,?] Y) <int64[1] b = {4}> {
      un = Unsqueeze(n, ax)
      ub = Unsqueeze(b, ax)
      c = Concat<axis=1>(un, ub)
      Y = Reshape(X, c)
    })ONNX", "Y", "the Concat does not concatenate along axis 0");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
