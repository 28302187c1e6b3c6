#include "onnx_extensions/patterns/matmul/transpose_reshape_mat_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(TransposeReshapeMatMulPattern, MovesTheTransposeNextToTheMatMul) {
  ExpectRewrite<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    tr_rs_mm (float[4,5,7] X, float[2,2,5,3] Y) => (float[2,2,7,3] Z)
    <int64[4] sh = {2, 2, 7, 5}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    tr_rs_mm (float[4,5,7] X, float[2,2,5,3] Y) => (float[2,2,7,3] Z)
    <int64[4] sh2 = {2, 2, 5, 7}>
    {
      r = Reshape(X, sh2)
      xr = Transpose<perm = [0, 1, 3, 2]>(r)
      Z = MatMul(xr, Y)
    })ONNX");
}

TEST(TransposeReshapeMatMulPattern, RewritesTheRightOperand) {
  ExpectRewrite<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,7] Y, float[4,5,7] X) => (float[2,2,3,5] Z)
    <int64[4] sh = {2, 2, 7, 5}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(Y, xr)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,7] Y, float[4,5,7] X) => (float[2,2,3,5] Z)
    <int64[4] sh2 = {2, 2, 5, 7}>
    {
      r = Reshape(X, sh2)
      xr = Transpose<perm = [0, 1, 3, 2]>(r)
      Z = MatMul(Y, xr)
    })ONNX");
}

// A symbolic batch dim and a -1 in the shape: the swapped shape infers it the same way.
TEST(TransposeReshapeMatMulPattern, AcceptsASymbolicBatch) {
  ExpectRewrite<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,2,5,7] X, float[5,3] Y) => (float[C,7,3] Z)
    <int64[3] sh = {-1, 7, 5}>
    {
      xt = Transpose<perm = [0, 1, 3, 2]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,2,5,7] X, float[5,3] Y) => (float[C,7,3] Z)
    <int64[3] sh2 = {-1, 5, 7}>
    {
      r = Reshape(X, sh2)
      xr = Transpose<perm = [0, 2, 1]>(r)
      Z = MatMul(xr, Y)
    })ONNX");
}

TEST(TransposeReshapeMatMulPattern, RejectsATransposeOfABatchAxis) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4,7] X, float[2,2,7,3] Y) => (float[2,2,5,3] Z)
    <int64[4] sh = {2, 2, 5, 7}>
    {
      xt = Transpose<perm = [1, 0, 2]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", "Z", "the Transpose does not swap only the last two axes");
}

TEST(TransposeReshapeMatMulPattern, RejectsAReshapeOfTheLastDimension) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,5,7] X, float[2,2,1,3] Y) => (float[2,2,35,3] Z)
    <int64[4] sh = {2, 2, 35, 1}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", "Z", "the Reshape changes the last two dimensions");
}

TEST(TransposeReshapeMatMulPattern, RejectsAReshapeWithAnotherReader) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,5,7] X, float[2,2,5,3] Y) => (float[2,2,7,3] Z, float[2,2,7,5] N)
    <int64[4] sh = {2, 2, 7, 5}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
      N = Neg(xr)
    })ONNX", "Z", "the Reshape output has other readers");
}

TEST(TransposeReshapeMatMulPattern, RejectsATransposeWithAnotherReader) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,5,7] X, float[2,2,5,3] Y) => (float[2,2,7,3] Z, float[4,7,5] xt)
    <int64[4] sh = {2, 2, 7, 5}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", "Z", "the Transpose output has other readers");
}

// Equal ranks: the 0 copies dim 1 of xt (7); in s' it moves to position 2, which copies
// X's dim 2, the same 7.
TEST(TransposeReshapeMatMulPattern, KeepsAZeroOfTheLastTwoEntriesAtEqualRanks) {
  ExpectRewrite<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,5,7] X, float[4,5,3] Y) => (float[4,7,3] Z)
    <int64[3] sh = {4, 0, 5}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,5,7] X, float[4,5,3] Y) => (float[4,7,3] Z)
    <int64[3] sh2 = {4, 5, 0}>
    {
      r = Reshape(X, sh2)
      xr = Transpose<perm = [0, 2, 1]>(r)
      Z = MatMul(xr, Y)
    })ONNX");
}

// Rank 5 to rank 4: the 0 copies the batch axis 0, which neither the swap nor the rewrite
// moves.
TEST(TransposeReshapeMatMulPattern, KeepsAZeroCopyingABatchDimAcrossRanks) {
  ExpectRewrite<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,2,3,5,7] X, float[5,4] Y) => (float[B,6,7,4] Z)
    <int64[4] sh = {0, -1, 7, 5}>
    {
      xt = Transpose<perm = [0, 1, 2, 4, 3]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,2,3,5,7] X, float[5,4] Y) => (float[B,6,7,4] Z)
    <int64[4] sh2 = {0, -1, 5, 7}>
    {
      r = Reshape(X, sh2)
      xr = Transpose<perm = [0, 1, 3, 2]>(r)
      Z = MatMul(xr, Y)
    })ONNX");
}

// The reviewer's case, rank 4 to rank 3: the 0 copies xt's dim 1 (3); in s' = [-1, 5, 0]
// it would copy X's dim 2 (5), and -1 would then be 90 / 25.
TEST(TransposeReshapeMatMulPattern, RejectsAZeroOfTheLastTwoEntriesOnALowerRank) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,5,3] X, float[5,4] Y) => (float[6,3,4] Z)
    <int64[3] sh = {-1, 0, 5}>
    {
      xt = Transpose<perm = [0, 1, 3, 2]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", "Z", "a 0 in the shape of the Reshape would copy another dimension after the swap");
}

// Rank 3 to rank 4: the 0 at position 1 copies xt's dim 1 (3), a swapped axis; in X that
// axis is 5.
TEST(TransposeReshapeMatMulPattern, RejectsAZeroCopyingASwappedAxisOnAHigherRank) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,5,3] X, float[5,4] Y) => (float[2,3,3,4] Z)
    <int64[4] sh = {2, 0, 3, 5}>
    {
      xt = Transpose<perm = [0, 2, 1]>(X)
      xr = Reshape(xt, sh)
      Z = MatMul(xr, Y)
    })ONNX", "Z", "a 0 in the shape of the Reshape would copy another dimension after the swap");
}

TEST(TransposeReshapeMatMulPattern, RejectsOperandsWithoutReshape) {
  ExpectNoMatch<TransposeReshapeMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,7,5] X, float[4,5,3] Y) => (float[4,7,3] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "the operand is not produced by a default-domain Reshape with allowzero=0");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
