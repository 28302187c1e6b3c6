#include "onnx_extensions/patterns/reshape/shaped_based_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapedBasedReshapePattern, RemovesLeadingZerosAndInferredLast) {
  ExpectRewrite<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M,8] X) => (float[N,M,8] Y) <int64[3] s = {0, 0, -1}> {
      r = Reshape(X, s)
      Y = Sigmoid(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M,8] X) => (float[N,M,8] Y) {
      Y = Sigmoid(X)
    })ONNX");
}

TEST(ShapedBasedReshapePattern, RemovesLeadingZerosAndTheKnownLastDimension) {
  ExpectRewrite<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) <int64[2] s = {0, 8}> {
      r = Reshape(X, s)
      Y = Neg(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) {
      Y = Neg(X)
    })ONNX");
}

TEST(ShapedBasedReshapePattern, RejectsAllZeros) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M,8] X) => (float[N,M,8] Y) <int64[3] s = {0, 0, 0}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the last entry of the shape is 0");
}

TEST(ShapedBasedReshapePattern, RejectsMergingDimensions) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M,8] X) => (float[N,?] Y) <int64[2] s = {0, -1}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the rank of the input is not the length of the shape");
}

TEST(ShapedBasedReshapePattern, RejectsASingleEntry) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N] X) => (float[N] Y) <int64[1] s = {-1}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape has fewer than two entries");
}

TEST(ShapedBasedReshapePattern, RejectsANonZeroLeadingEntry) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,8] X) => (float[N,1,8] Y) <int64[3] s = {0, 1, -1}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "an entry of the shape other than the last is not 0");
}

TEST(ShapedBasedReshapePattern, RejectsAnUnknownRank) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N] X, int64[K] k) => (float[?,?] Y) <int64[2] s = {0, -1}> {
      r = Reshape(X, k)
      Y = Reshape(r, s)
    })ONNX", "Y", "the rank of the input is not known");
}

// A symbolic last dimension is not proven to be 8: for an empty tensor the element count
// does not force it.
TEST(ShapedBasedReshapePattern, RejectsASymbolicLastDimensionFacingAPositiveEntry) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,8] Y) <int64[2] s = {0, 8}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the last dimension of the input is not known to be the last entry of the shape");
}

TEST(ShapedBasedReshapePattern, RejectsAllowZero) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) <int64[2] s = {0, 8}> {
      Y = Reshape<allowzero=1>(X, s)
    })ONNX", "Y", "the Reshape has allowzero=1");
}

TEST(ShapedBasedReshapePattern, RejectsAComputedShape) {
  ExpectNoMatch<ShapedBasedReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X, int64[2] s) => (float[?,?] Y) {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape input is not constant");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
