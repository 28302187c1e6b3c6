#include "onnx_extensions/patterns/matmul/transpose_mat_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

constexpr const char* kLeftTransposeOfMatMul = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    tr_mm (float[5,3] X, float[5,4] Y) => (float[3,4] Z)
    {
      xt = Transpose<perm = [1, 0]>(X)
      Z = MatMul(xt, Y)
    })ONNX";

TEST(TransposeMatMulPattern, FoldsALeftTransposeIntoTransA) {
  ExpectRewrite<TransposeMatMulPattern>(kLeftTransposeOfMatMul, R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    tr_mm (float[5,3] X, float[5,4] Y) => (float[3,4] Z)
    {
      Z = Gemm<transA = 1, transB = 0>(X, Y)
    })ONNX");
}

// Both sides of a Gemm: transB=1 folds back to 0; alpha, beta and C stay.
TEST(TransposeMatMulPattern, FoldsBothTransposesOfAGemm) {
  ExpectRewrite<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,3] X, float[5,4] W, float[4] C) => (float[3,4] Z)
    {
      xt = Transpose<perm = [1, 0]>(X)
      wt = Transpose<perm = [1, 0]>(W)
      Z = Gemm<alpha = 2.0, beta = 0.5, transB = 1>(xt, wt, C)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,3] X, float[5,4] W, float[4] C) => (float[3,4] Z)
    {
      Z = Gemm<alpha = 2.0, beta = 0.5, transB = 0, transA = 1>(X, W, C)
    })ONNX");
}

// The Transpose has another reader and stays for it; one without perm reverses the axes.
TEST(TransposeMatMulPattern, KeepsASharedTransposeAndReadsADefaultPerm) {
  ExpectRewrite<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,5] X, float[4,5] Y) => (float[3,4] Z, float[5,4] N)
    {
      yt = Transpose(Y)
      Z = MatMul(X, yt)
      N = Neg(yt)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,5] X, float[4,5] Y) => (float[3,4] Z, float[5,4] N)
    {
      yt = Transpose(Y)
      Z = Gemm<transA = 0, transB = 1>(X, Y)
      N = Neg(yt)
    })ONNX");
}

// The Gemm reads wt as B and as C: the Transpose stays for C, B reads W with transB
// (folding it away left C reading a removed node, found by mutating FoldsBothTransposesOfAGemm).
TEST(TransposeMatMulPattern, KeepsATransposeThatIsAlsoTheBias) {
  ExpectRewrite<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,5] X, float[4,5] W) => (float[5,4] Z)
    {
      xt = Transpose<perm = [1, 0]>(X)
      wt = Transpose<perm = [1, 0]>(W)
      Z = Gemm(xt, wt, wt)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,5] X, float[4,5] W) => (float[5,4] Z)
    {
      wt = Transpose<perm = [1, 0]>(W)
      Z = Gemm<transA = 1, transB = 1>(X, W, wt)
    })ONNX");
}

// A float16 Gemm keeps its type: only the transposes fold.
TEST(TransposeMatMulPattern, FoldsATransposeOfAFloat16Gemm) {
  ExpectRewrite<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[3,5] X, float16[4,5] Y) => (float16[3,4] Z)
    {
      yt = Transpose<perm = [1, 0]>(Y)
      Z = Gemm(X, yt)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[3,5] X, float16[4,5] Y) => (float16[3,4] Z)
    {
      Z = Gemm<transB = 1>(X, Y)
    })ONNX");
}

// onnxruntime rounds a float16 Gemm differently from a float16 MatMul.
TEST(TransposeMatMulPattern, RejectsAFloat16MatMul) {
  ExpectNoMatch<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[5,3] X, float16[5,4] Y) => (float16[3,4] Z) {
      xt = Transpose<perm = [1, 0]>(X)
      Z = MatMul(xt, Y)
    })ONNX", "Z", "the MatMul is not in float or double, where a runtime's Gemm computes like its MatMul");
}

// The first model at opset 10: a Gemm needs C there, so the MatMul stays (found by
// mutate_pattern_graphs.py, whose mutant at opset 6 had a Gemm of two inputs refused by the
// driver).
TEST(TransposeMatMulPattern, RejectsAMatMulBeforeOpset11) {
  ModelProto model = testing::ParseText(kLeftTransposeOfMatMul);
  model.mutable_opset_import(0)->set_version(10);
  ExpectNoMatch<TransposeMatMulPattern>(model, "Z", "the opset is older than 11, where Gemm needs its input C");
}

TEST(TransposeMatMulPattern, RejectsABatchedTranspose) {
  ExpectNoMatch<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,5,3] X, float[2,5,4] Y) => (float[2,3,4] Z) {
      xt = Transpose<perm = [0, 2, 1]>(X)
      Z = MatMul(xt, Y)
    })ONNX", "Z", "an input does not have rank 2");
}

TEST(TransposeMatMulPattern, RejectsAMatMulWithoutTranspose) {
  ExpectNoMatch<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,5] X, float[5,4] Y) => (float[3,4] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "no input is produced by a Transpose");
}

TEST(TransposeMatMulPattern, RejectsAnIdentityTranspose) {
  ExpectNoMatch<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,5] X, float[5,4] Y) => (float[3,4] Z) {
      xt = Transpose<perm = [0, 1]>(X)
      Z = MatMul(xt, Y)
    })ONNX", "Z", "a Transpose producing an input does not have perm [1, 0]");
}

// GemmTransposePattern's result before folding: undoing it would loop.
TEST(TransposeMatMulPattern, RejectsTheTransposedConstantOfGemmTransposePattern) {
  ExpectNoMatch<TransposeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,4] Y)
    <float[3,4] W = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}>
    {
      wt = Transpose<perm = [1, 0]>(W)
      Y = Gemm<transB = 1>(X, wt)
    })ONNX", "Y", "the Gemm reads a transposed constant with transA != transB (GemmTransposePattern)");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
