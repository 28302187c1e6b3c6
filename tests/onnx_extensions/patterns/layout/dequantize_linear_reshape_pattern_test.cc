#include "onnx_extensions/patterns/layout/dequantize_linear_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// A per-channel quantized bias unsqueezed to broadcast over [N, C, W]: the channel axis 0
// becomes axis 1, and the folded constant holds the unsqueezed integers.
TEST(DequantizeLinearReshapePattern, MovesAnUnsqueezeOntoPerAxisWeights) {
  ExpectRewrite<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4] X) => (float[2,3,4] Y)
    <int8[3] Q = {5, -7, 9}, float[3] S = {0.5, 0.25, 2.0}, int8[3] Z = {0, 1, -1}, int64[2] A = {0, 2}>
    {
      B = DequantizeLinear<axis = 0>(Q, S, Z)
      U = Unsqueeze(B, A)
      Y = Add(X, U)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,4] X) => (float[2,3,4] Y)
    <float[3] S = {0.5, 0.25, 2.0}, int8[3] Z = {0, 1, -1}, int8[1,3,1] Qu = {5, -7, 9}>
    {
      U = DequantizeLinear<axis = 1>(Qu, S, Z)
      Y = Add(X, U)
    })ONNX");
}

// Per-tensor quantization (uint8 without a zero point) moves through any reshape.
TEST(DequantizeLinearReshapePattern, MovesAReshapeOntoPerTensorWeights) {
  ExpectRewrite<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X) => (float[4,2] Y)
    <uint8[2,3] Q = {1, 2, 3, 4, 5, 6}, float S = {0.5}, int64[2] shape = {3, 2}>
    {
      W = DequantizeLinear(Q, S)
      R = Reshape(W, shape)
      Y = MatMul(X, R)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X) => (float[4,2] Y)
    <float S = {0.5}, uint8[3,2] Qr = {1, 2, 3, 4, 5, 6}>
    {
      R = DequantizeLinear(Qr, S)
      Y = MatMul(X, R)
    })ONNX");
}

// Flatten keeps the output channels (axis 0) whole and merges the others.
TEST(DequantizeLinearReshapePattern, MovesAFlattenThatKeepsTheQuantizationAxis) {
  ExpectRewrite<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3,4] X) => (float[3,4] Y)
    <int8[3,2,2] Q = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12}, float[3] S = {0.5, 0.25, 2.0}>
    {
      W = DequantizeLinear<axis = 0>(Q, S)
      F = Flatten<axis = 1>(W)
      Y = Mul(X, F)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3,4] X) => (float[3,4] Y)
    <float[3] S = {0.5, 0.25, 2.0}, int8[3,4] Qf = {1, -2, 3, -4, 5, -6, 7, -8, 9, -10, 11, -12}>
    {
      F = DequantizeLinear<axis = 0>(Qf, S)
      Y = Mul(X, F)
    })ONNX");
}

// Squeezing a leading 1 moves the quantization axis (given as -1) from 1 to 0.
TEST(DequantizeLinearReshapePattern, MovesASqueezeBeforeTheQuantizationAxis) {
  ExpectRewrite<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3] X) => (float[3] Y)
    <int8[1,3] Q = {4, -5, 6}, float[3] S = {0.5, 0.25, 2.0}, int64[1] A = {0}>
    {
      W = DequantizeLinear<axis = -1>(Q, S)
      V = Squeeze(W, A)
      Y = Sub(X, V)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3] X) => (float[3] Y)
    <float[3] S = {0.5, 0.25, 2.0}, int8[3] Qs = {4, -5, 6}>
    {
      V = DequantizeLinear<axis = 0>(Qs, S)
      Y = Sub(X, V)
    })ONNX");
}

// The channels of axis 1 would be interleaved with those of axis 0 in the flat vector.
TEST(DequantizeLinearReshapePattern, RejectsAReshapeThatMergesTheQuantizationAxis) {
  ExpectNoMatch<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g () => (float[6] R)
    <int8[2,3] Q = {1, 2, 3, 4, 5, 6}, float[3] S = {0.5, 0.25, 2.0}, int64[1] shape = {6}>
    {
      W = DequantizeLinear<axis = 1>(Q, S)
      R = Reshape(W, shape)
    })ONNX", "R", "the node splits or merges the quantization axis");
}

// Splitting [6] into [2,3] splits the axis too, though a dim of the output is 6 elements in.
TEST(DequantizeLinearReshapePattern, RejectsAReshapeThatSplitsTheQuantizationAxis) {
  ExpectNoMatch<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g () => (float[2,3] R)
    <int8[6] Q = {1, 2, 3, 4, 5, 6}, float[6] S = {0.5, 0.25, 2.0, 1.0, 4.0, 8.0}, int64[2] shape = {2, 3}>
    {
      W = DequantizeLinear<axis = 0>(Q, S)
      R = Reshape(W, shape)
    })ONNX", "R", "the node splits or merges the quantization axis");
}

TEST(DequantizeLinearReshapePattern, RejectsAShapeThatIsNotConstant) {
  ExpectNoMatch<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] shape) => (float[?,?] R)
    <uint8[2,3] Q = {1, 2, 3, 4, 5, 6}, float S = {0.5}>
    {
      W = DequantizeLinear(Q, S)
      R = Reshape(W, shape)
    })ONNX", "R", "the shape or axes input is not constant");
}

// Moving the Unsqueeze would store the constant twice (the DequantizeLinear stays for W).
TEST(DequantizeLinearReshapePattern, RejectsASharedDequantizeLinear) {
  ExpectNoMatch<DequantizeLinearReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g () => (float[1,3] U, float[3] W)
    <int8[3] Q = {1, -2, 3}, float S = {0.5}, int64[1] A = {0}>
    {
      W = DequantizeLinear(Q, S)
      U = Unsqueeze(W, A)
    })ONNX", "U", "the DequantizeLinear has other readers");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
