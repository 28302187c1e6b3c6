#include "onnx_extensions/patterns/expand/shape_based_expand_swap_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedExpandSwapPattern, AddsBeforeExpanding) {
  ExpectRewrite<ShapeBasedExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D] X) => (float[D,D] Y) <int64[2] sh1 = {-1, 1}, float[1] four = {4.0}> {
      xc = Reshape(X, sh1)
      s = Shape(X)
      full = Concat<axis=0>(s, s)
      xce = Expand(xc, full)
      Y = Add(xce, four)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D] X) => (float[D,D] Y) <int64[2] sh1 = {-1, 1}, float[1] four = {4.0}> {
      xc = Reshape(X, sh1)
      s = Shape(X)
      full = Concat<axis=0>(s, s)
      t = Add(xc, four)
      Y = Expand(t, full)
    })ONNX");
}

TEST(ShapeBasedExpandSwapPattern, SwapsTwoExpandsOfTheSameShape) {
  ExpectRewrite<ShapeBasedExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,1] X, float[1,1] W, float[M] V) => (float[D,M] Y) {
      d = Shape<start=0, end=1>(X)
      m = Shape(V)
      full = Concat<axis=0>(d, m)
      xe = Expand(X, full)
      we = Expand(W, full)
      Y = Mul(xe, we)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,1] X, float[1,1] W, float[M] V) => (float[D,M] Y) {
      d = Shape<start=0, end=1>(X)
      m = Shape(V)
      full = Concat<axis=0>(d, m)
      t = Mul(X, W)
      Y = Expand(t, full)
    })ONNX");
}

TEST(ShapeBasedExpandSwapPattern, RejectsOutputLargerThanTheExpand) {
  ExpectNoMatch<ShapeBasedExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,1] X, float[B,1,1] Z) => (float[B,D,D] Y) {
      d = Shape<start=0, end=1>(X)
      full = Concat<axis=0>(d, d)
      xe = Expand(X, full)
      Y = Add(xe, Z)
    })ONNX", "Y", "the output is larger than the Expand output");
}

TEST(ShapeBasedExpandSwapPattern, RejectsDifferentShapeTensors) {
  ExpectNoMatch<ShapeBasedExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,1] X, float[1,1] W, float[D,D] V) => (float[D,D] Y) {
      d = Shape<start=0, end=1>(X)
      full = Concat<axis=0>(d, d)
      full2 = Shape(V)
      xe = Expand(X, full)
      we = Expand(W, full2)
      Y = Mul(xe, we)
    })ONNX", "Y", "the two Expands use different shape tensors");
}

TEST(ShapeBasedExpandSwapPattern, RejectsOtherOperandWithTheExpandedShape) {
  ExpectNoMatch<ShapeBasedExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,1] X, float[D,D] W) => (float[D,D] Y) {
      full = Shape(W)
      xe = Expand(X, full)
      Y = Add(xe, W)
    })ONNX", "Y", "the other operand already has the expanded shape");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
