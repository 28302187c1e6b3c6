#include "onnx_extensions/patterns/matmul/mat_mul_add_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(MatMulAddPattern, FusesMatMulAndBiasIntoGemm) {
  ExpectRewrite<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mm_add (float[4,3] A, float[3,5] B, float[5] bias) => (float[4,5] Y)
    {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mm_add (float[4,3] A, float[3,5] B, float[5] bias) => (float[4,5] Y)
    {
      Y = Gemm(A, B, bias)
    })ONNX");
}

// The bias on the left, computed after the MatMul (the Gemm goes where the Add was), and
// a symbolic row count.
TEST(MatMulAddPattern, AcceptsABiasFirstWithSymbolicRows) {
  ExpectRewrite<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[M,3] A, float[3,5] B, float[5] D) => (float[M,5] Y)
    {
      P = MatMul(A, B)
      bias = Neg(D)
      Y = Add(bias, P)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[M,3] A, float[3,5] B, float[5] D) => (float[M,5] Y)
    {
      bias = Neg(D)
      Y = Gemm(A, B, bias)
    })ONNX");
}

TEST(MatMulAddPattern, KeepsTheAttributesOfATwoInputGemm) {
  ExpectRewrite<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[5,3] B, float[5] bias) => (float[4,5] Y)
    {
      P = Gemm<alpha = 2.0, transB = 1>(A, B)
      Y = Add(P, bias)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[5,3] B, float[5] bias) => (float[4,5] Y)
    {
      Y = Gemm<alpha = 2.0, transB = 1>(A, B, bias)
    })ONNX");
}

// (alpha*AB + C) + bias becomes alpha*AB + (bias + C): another rounding of the sums.
TEST(MatMulAddPattern, AddsTheBiasToTheCOfAThreeInputGemm) {
  ExpectRewrite<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[5] C, float[5] bias) => (float[4,5] Y)
    {
      P = Gemm<alpha = 0.5>(A, B, C)
      Y = Add(P, bias)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[5] C, float[5] bias) => (float[4,5] Y)
    {
      S = Add(bias, C)
      Y = Gemm<alpha = 0.5>(A, B, S)
    })ONNX", 1e-5);
}

TEST(MatMulAddPattern, RejectsAThreeDimensionalInput) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,2,3] A, float[3,5] B, float[5] bias) => (float[4,2,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "an input does not have rank 2");
}

TEST(MatMulAddPattern, RejectsABroadcastRowBias) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[1,5] bias) => (float[4,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "the bias has more than one dimension");
}

// A full [M, N] operand is an activation, e.g. another product: not fused (see the header).
TEST(MatMulAddPattern, RejectsAFullSizeOperand) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[4,6] C, float[6,5] D) => (float[4,5] Y) {
      P = MatMul(A, B)
      Q = MatMul(C, D)
      Y = Add(P, Q)
    })ONNX", "P", "the bias has more than one dimension");
}

TEST(MatMulAddPattern, RejectsAFloat16MatMul) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4,3] A, float16[3,5] B, float16[5] bias) => (float16[4,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "the MatMul is not in float or double, where a runtime's Gemm computes like its MatMul");
}

TEST(MatMulAddPattern, RejectsAnIntegerMatMul) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[4,3] A, int64[3,5] B, int64[5] bias) => (int64[4,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "the MatMul is not in float or double, where a runtime's Gemm computes like its MatMul");
}

TEST(MatMulAddPattern, RejectsAProductWithAnotherReader) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[5] bias) => (float[4,5] Y, float[4,5] Z) {
      P = MatMul(A, B)
      Y = Add(P, bias)
      Z = Relu(P)
    })ONNX", "P", "the output of the product does not have exactly one reader");
}

TEST(MatMulAddPattern, RejectsAProductThatIsAGraphOutput) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[5] bias) => (float[4,5] Y, float[4,5] P) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "the output of the product is a graph output");
}

TEST(MatMulAddPattern, RejectsAddingTheProductToItself) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B) => (float[4,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, P)
    })ONNX", "P", "the Add adds the product to itself");
}

TEST(MatMulAddPattern, RejectsAGemmWithBeta) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[5] C, float[5] bias) => (float[4,5] Y) {
      P = Gemm<beta = 0.5>(A, B, C)
      Y = Add(P, bias)
    })ONNX", "P", "the Gemm has a beta other than 1");
}

TEST(MatMulAddPattern, RejectsAScalarBias) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float bias) => (float[4,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "the bias is a scalar");
}

TEST(MatMulAddPattern, RejectsABiasBroadcastAlongColumns) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[1] bias) => (float[4,5] Y) {
      P = MatMul(A, B)
      Y = Add(P, bias)
    })ONNX", "P", "the last dimension of the bias is not the column count of the product");
}

TEST(MatMulAddPattern, RejectsAGemmWhoseCShapeDiffersFromTheBias) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] A, float[3,5] B, float[1,5] C, float[5] bias) => (float[4,5] Y) {
      P = Gemm(A, B, C)
      Y = Add(P, bias)
    })ONNX", "P", "the Gemm has an input C whose shape is not known to equal the bias's");
}

// Add-6 with axis 0 adds c[i] to row i, where Gemm's C adds c[j] to column j; without
// broadcast=1, Gemm-6 wants C of shape (M, N).
TEST(MatMulAddPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<MatMulAddPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[4,2] A, float[2,4] B, float[4] C) => (float[4,4] Y) {
      T = MatMul(A, B)
      Y = Add <broadcast = 1, axis = 0> (T, C)
    })ONNX", "T", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
