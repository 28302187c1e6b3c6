#include "onnx_extensions/patterns/canonicalization/pad_conv_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(PadConvPattern, MovesSpatialPaddingIntoTheConv) {
  ExpectRewrite<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y) {
      Y = Conv<kernel_shape=[3,3], pads=[1, 1, 1, 1]>(X, W)
    })ONNX");
}

TEST(PadConvPattern, AddsToTheConvPadsAndKeepsTheBias) {
  ExpectRewrite<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W, float[4] B) => (float[N,4,11,9] Y)
      <int64[8] pads = {0, 0, 2, 0, 0, 0, 1, 1}, float zero = {0.0}> {
      xp = Pad(X, pads, zero)
      Y = Conv<kernel_shape=[3,3], pads=[1, 1, 1, 1]>(xp, W, B)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W, float[4] B) => (float[N,4,11,9] Y) {
      Y = Conv<kernel_shape=[3,3], pads=[3, 1, 2, 2]>(X, W, B)
    })ONNX");
}

TEST(PadConvPattern, ScattersPadsGivenForNegativeAxes) {
  // Upstream takes the rank from len(pads) / 2 = 2 here and misplaces the pads.
  ExpectRewrite<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,7,9] Y)
      <int64[4] pads = {0, 1, 1, 2}, int64[2] axes = {-2, -1}> {
      xp = Pad(X, pads, , axes)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,7,9] Y) {
      Y = Conv<kernel_shape=[3,3], pads=[0, 1, 1, 2]>(X, W)
    })ONNX");
}

TEST(PadConvPattern, RejectsPaddedBatchDimension) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[M,4,6,6] Y) <int64[8] pads = {1, 0, 0, 0, 1, 0, 0, 0}> {
      xp = Pad(X, pads)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
    })ONNX", "Y", "the Pad pads the batch or channel dimension");
}

TEST(PadConvPattern, RejectsReflectMode) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad<mode="reflect">(X, pads)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
    })ONNX", "Y", "the Pad mode is not constant");
}

TEST(PadConvPattern, RejectsNonZeroPaddingValue) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y)
      <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}, float one = {1.0}> {
      xp = Pad(X, pads, one)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
    })ONNX", "Y", "the padding value is not zero");
}

TEST(PadConvPattern, RejectsAutoPad) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,10,10] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = Conv<kernel_shape=[3,3], auto_pad="SAME_UPPER">(xp, W)
    })ONNX", "Y", "the Conv has an auto_pad other than NOTSET");
}

TEST(PadConvPattern, RejectsSharedPaddedTensor) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y, float[N,3,10,10] Z)
      <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
      Z = Relu(xp)
    })ONNX", "Y", "the padded tensor has another reader");
}

// The Conv reads the padded tensor as data and as weights: the merge would leave the weights
// reading the removed Pad (an internal error, found by mutating MovesSpatialPaddingIntoTheConv).
TEST(PadConvPattern, RejectsAPaddedTensorThatIsAlsoTheWeights) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,3,1,1] X) => (float[1,1,1,1] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = Conv<kernel_shape=[3,3]>(xp, xp)
    })ONNX", "Y", "the padded tensor has another reader");
}

TEST(PadConvPattern, RejectsNegativeSpatialPad) {
  ExpectNoMatch<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,5,6] Y) <int64[8] pads = {0, 0, -1, 0, 0, 0, 0, 0}> {
      xp = Pad(X, pads)
      Y = Conv<kernel_shape=[3,3]>(xp, W)
    })ONNX", "Y", "a spatial pad is negative");
}

TEST(PadConvPattern, PlacesTheConvAfterWeightsComputedAfterThePad) {
  // The fused Conv went where the Pad was, before Wn: an internal error (exit 3) before.
  ExpectRewrite<PadConvPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Wn = Neg(W)
      Y = Conv<kernel_shape=[3,3]>(xp, Wn)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,8,8] Y) {
      Wn = Neg(W)
      Y = Conv<kernel_shape=[3,3], pads=[1, 1, 1, 1]>(X, Wn)
    })ONNX");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
