#include "onnx_extensions/patterns/collections/concat_twice_unary_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConcatTwiceUnaryPattern, ComputesTheUnaryOpOnHalfTheData) {
  ExpectRewrite<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[6,4] Y) {
      xx = Concat<axis=0>(X, X)
      Y = Sin(xx)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[6,4] Y) {
      s = Sin(X)
      Y = Concat<axis=0>(s, s)
    })ONNX");
}

TEST(ConcatTwiceUnaryPattern, MovesScalarMulAndKeepsASharedConcat) {
  ExpectRewrite<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,8] Y, float[3,8] Z) <float two = {2.0}> {
      Z = Concat<axis=1>(X, X)
      Y = Mul(Z, two)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,8] Y, float[3,8] Z) <float two = {2.0}> {
      Z = Concat<axis=1>(X, X)
      m = Mul(X, two)
      Y = Concat<axis=1>(m, m)
    })ONNX");
}

TEST(ConcatTwiceUnaryPattern, MovesUnsqueezeBeforeTheLastAxis) {
  ExpectRewrite<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,1,8] Y) <int64[1] ax = {1}> {
      xx = Concat<axis=-1>(X, X)
      Y = Unsqueeze(xx, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,1,8] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Concat<axis=-1>(u, u)
    })ONNX");
}

TEST(ConcatTwiceUnaryPattern, RejectsDifferentInputs) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X, float[3,4] Z) => (float[6,4] Y) {
      xz = Concat<axis=0>(X, Z)
      Y = Sin(xz)
    })ONNX", "xz", "the two Concat inputs differ");
}

TEST(ConcatTwiceUnaryPattern, RejectsThreeInputs) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[9,4] Y) {
      xx = Concat<axis=0>(X, X, X)
      Y = Sin(xx)
    })ONNX", "xx", "the Concat does not have two inputs");
}

TEST(ConcatTwiceUnaryPattern, RejectsOpset17) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3,4] X) => (float[6,4] Y) {
      xx = Concat<axis=0>(X, X)
      Y = Sin(xx)
    })ONNX", "xx", "the opset is below 18");
}

TEST(ConcatTwiceUnaryPattern, RejectsSoftmaxAlongTheAxis) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,8] Y) {
      xx = Concat<axis=1>(X, X)
      Y = Softmax<axis=1>(xx)
    })ONNX", "xx", "no consumer of the Concat is pointwise along the axis");
}

TEST(ConcatTwiceUnaryPattern, RejectsMatMul) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X, float[8,2] W) => (float[3,2] Y) {
      xx = Concat<axis=1>(X, X)
      Y = MatMul(xx, W)
    })ONNX", "xx", "no consumer of the Concat is pointwise along the axis");
}

TEST(ConcatTwiceUnaryPattern, RejectsUnsqueezeOnTheLastAxis) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,8,1] Y) <int64[1] ax = {-1}> {
      xx = Concat<axis=-1>(X, X)
      Y = Unsqueeze(xx, ax)
    })ONNX", "xx", "no consumer of the Concat is pointwise along the axis");
}

TEST(ConcatTwiceUnaryPattern, RejectsUnsqueezeWithConcatOnAnotherAxis) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[1,6,4] Y) <int64[1] ax = {0}> {
      xx = Concat<axis=0>(X, X)
      Y = Unsqueeze(xx, ax)
    })ONNX", "xx", "no consumer of the Concat is pointwise along the axis");
}

TEST(ConcatTwiceUnaryPattern, RejectsNonScalarOperand) {
  ExpectNoMatch<ConcatTwiceUnaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[6,4] Y) <float[6,1] w = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}> {
      xx = Concat<axis=0>(X, X)
      Y = Mul(xx, w)
    })ONNX", "xx", "no consumer of the Concat is pointwise along the axis");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
