#include "onnx_extensions/patterns/layout/dequantize_linear_transpose_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Per-axis weights quantized along their last axis (-1): once transposed, that axis is the
// first one, and the folded constant holds the transposed integers.
TEST(DequantizeLinearTransposePattern, MovesTheTransposeOntoPerAxisWeights) {
  ExpectRewrite<DequantizeLinearTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3,2] X) => (float[3,2] Y)
    <int8[2,3] Q = {1, -2, 3, -4, 5, -6}, float[3] S = {0.5, 0.25, 2.0}, int8[3] Z = {0, 1, -1}>
    {
      W = DequantizeLinear<axis = -1>(Q, S, Z)
      T = Transpose<perm = [1, 0]>(W)
      Y = Mul(X, T)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3,2] X) => (float[3,2] Y)
    <float[3] S = {0.5, 0.25, 2.0}, int8[3] Z = {0, 1, -1}, int8[3,2] Qt = {1, -4, -2, 5, 3, -6}>
    {
      T = DequantizeLinear<axis = 0>(Qt, S, Z)
      Y = Mul(X, T)
    })ONNX");
}

// A per-tensor DequantizeLinear keeps its attributes (here none: uint8 without a zero
// point); the perm is not an involution, so the constant is transposed by p, not by p^-1.
TEST(DequantizeLinearTransposePattern, MovesTheTransposeOntoPerTensorWeights) {
  ExpectRewrite<DequantizeLinearTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,1,2] X) => (float[3,1,2] Y)
    <uint8[1,2,3] Q = {1, 2, 3, 4, 5, 6}, float S = {0.5}>
    {
      W = DequantizeLinear(Q, S)
      T = Transpose<perm = [2, 0, 1]>(W)
      Y = Add(X, T)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,1,2] X) => (float[3,1,2] Y)
    <float S = {0.5}, uint8[3,1,2] Qt = {1, 4, 2, 5, 3, 6}>
    {
      T = DequantizeLinear(Qt, S)
      Y = Add(X, T)
    })ONNX");
}

// Moving the Transpose would store the constant twice (the DequantizeLinear stays for Y).
TEST(DequantizeLinearTransposePattern, RejectsASharedDequantizeLinear) {
  ExpectNoMatch<DequantizeLinearTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g () => (float[3,2] T, float[2,3] W)
    <int8[2,3] Q = {1, -2, 3, -4, 5, -6}, float S = {0.5}>
    {
      W = DequantizeLinear(Q, S)
      T = Transpose<perm = [1, 0]>(W)
    })ONNX", "T", "the DequantizeLinear has other readers");
}

TEST(DequantizeLinearTransposePattern, RejectsQuantizedDataThatIsNotConstant) {
  ExpectNoMatch<DequantizeLinearTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int8[2,3] Q) => (float[3,2] T)
    <float S = {0.5}>
    {
      W = DequantizeLinear(Q, S)
      T = Transpose<perm = [1, 0]>(W)
    })ONNX", "T", "the quantized input is not a constant");
}

// Blocked quantization (opset 21): the scale has the data's rank and would move too.
TEST(DequantizeLinearTransposePattern, RejectsBlockedQuantization) {
  ExpectNoMatch<DequantizeLinearTransposePattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 21]>
    g () => (float[4,2] T)
    <int8[2,4] Q = {1, 2, 3, 4, 5, 6, 7, 8}, float[2,2] S = {0.5, 1.0, 2.0, 4.0}>
    {
      W = DequantizeLinear<axis = 1, block_size = 2>(Q, S)
      T = Transpose<perm = [1, 0]>(W)
    })ONNX", "T", "the DequantizeLinear quantizes by blocks");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
