#include "onnx_extensions/patterns/fusion/pad_pool_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// low = Log(0) is -inf (the ONNX text has no infinity literal).
TEST(PadPoolPattern, MovesMinusInfinityPaddingIntoMaxPool) {
  ExpectRewrite<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,4,5] Y) <int64[8] pads = {0, 0, 1, 0, 0, 0, 0, 2}, float zero = {0.0}> {
      low = Log(zero)
      xp = Pad(X, pads, low)
      Y = MaxPool<kernel_shape = [3, 3], strides = [2, 2], pads = [0, 1, 1, 0]>(xp)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,4,5] Y) {
      Y = MaxPool<kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 2]>(X)
    })ONNX");
}

// 0 is the lowest uint8: no value ever loses to it... nor wins over a real one.
TEST(PadPoolPattern, MovesZeroPaddingIntoAUint8MaxPool) {
  ExpectRewrite<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint8[N,2,6,6] X) => (uint8[N,2,7,6] Y) <int64[4] pads = {1, 0, 1, 0}, int64[2] axes = {2, 3}> {
      xp = Pad(X, pads, , axes)
      Y = MaxPool<kernel_shape = [2, 2], pads = [0, 0, 0, 1]>(xp)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint8[N,2,6,6] X) => (uint8[N,2,7,6] Y) {
      Y = MaxPool<kernel_shape = [2, 2], pads = [1, 0, 1, 1]>(X)
    })ONNX");
}

TEST(PadPoolPattern, CountsTheZeroPaddingInTheAverage) {
  ExpectRewrite<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,8,8] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = AveragePool<kernel_shape = [3, 3]>(xp)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,8,8] Y) {
      Y = AveragePool<kernel_shape = [3, 3], pads = [1, 1, 1, 1], count_include_pad = 1>(X)
    })ONNX");
}

TEST(PadPoolPattern, AddsToTheCountedPadsOfAnAveragePool) {
  ExpectRewrite<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8] X) => (float[N,3,11] Y) <int64[6] pads = {0, 0, 1, 0, 0, 0}, float zero = {0.0}> {
      xp = Pad(X, pads, zero)
      Y = AveragePool<kernel_shape = [3], pads = [1, 1], count_include_pad = 1>(xp)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8] X) => (float[N,3,11] Y) {
      Y = AveragePool<kernel_shape = [3], pads = [2, 1], count_include_pad = 1>(X)
    })ONNX");
}

TEST(PadPoolPattern, RejectsZeroPaddingBeforeAFloatMaxPool) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,8,8] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = MaxPool<kernel_shape = [3, 3]>(xp)
    })ONNX", "Y", "the padding value is not the lowest value of the element type");
}

TEST(PadPoolPattern, RejectsANonZeroValueBeforeAnAveragePool) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,8,8] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}, float one = {1.0}> {
      xp = Pad(X, pads, one)
      Y = AveragePool<kernel_shape = [3, 3]>(xp)
    })ONNX", "Y", "the padding value is not zero");
}

// The pool divides border windows by their real elements: the Pad's zeros would need
// count_include_pad=1, which would count the pool's own pads too.
TEST(PadPoolPattern, RejectsAnAveragePoolLeavingItsPadsOut) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,10,10] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = AveragePool<kernel_shape = [3, 3], pads = [1, 1, 1, 1]>(xp)
    })ONNX", "Y", "the AveragePool has pads it leaves out of the average");
}

TEST(PadPoolPattern, RejectsCeilMode) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,5,5] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 0, 0}> {
      xp = Pad(X, pads)
      Y = AveragePool<kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1>(xp)
    })ONNX", "Y", "the pool has ceil_mode=1");
}

TEST(PadPoolPattern, RejectsPadsReachingTheKernelSize) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,3,10,8] Y) <int64[8] pads = {0, 0, 2, 0, 0, 0, 1, 0}> {
      xp = Pad(X, pads)
      Y = AveragePool<kernel_shape = [2, 1]>(xp)
    })ONNX", "Y", "a merged pad would not be smaller than the kernel");
}

TEST(PadPoolPattern, RejectsADilatedMaxPool) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint8[N,3,8,8] X) => (uint8[N,3,7,7] Y) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y = MaxPool<kernel_shape = [2, 2], dilations = [4, 4]>(xp)
    })ONNX", "Y", "the MaxPool is dilated");
}

TEST(PadPoolPattern, RejectsUsedIndices) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint8[N,3,8,8] X) => (uint8[N,3,9,9] Y, int64[N,3,9,9] I) <int64[8] pads = {0, 0, 1, 1, 0, 0, 1, 1}> {
      xp = Pad(X, pads)
      Y, I = MaxPool<kernel_shape = [2, 2]>(xp)
    })ONNX", "Y", "the Indices output of the MaxPool is used");
}

TEST(PadPoolPattern, RejectsChannelPadding) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X) => (float[N,4,6,6] Y) <int64[8] pads = {0, 1, 0, 0, 0, 0, 0, 0}> {
      xp = Pad(X, pads)
      Y = AveragePool<kernel_shape = [3, 3]>(xp)
    })ONNX", "Y", "the Pad pads the batch or channel dimension");
}

// With H = 0 the Pad's windows hold -inf alone, and onnxruntime refuses the fused pool
// ("Only N can be zero").
TEST(PadPoolPattern, RejectsASpatialDimThatMayBeZero) {
  ExpectNoMatch<PadPoolPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,H,8] X) => (float[N,3,?,8] Y) <int64[8] pads = {0, 0, 2, 1, 0, 0, 2, 1}, float zero = {0.0}> {
      low = Log(zero)
      xp = Pad(X, pads, low)
      Y = MaxPool<kernel_shape = [3, 3]>(xp)
    })ONNX", "Y", "a spatial dim of the input is not known to be 1 or more");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
