#include "onnx_extensions/patterns/matmul/shape_based_mat_mul_to_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedMatMulToMulPattern, TurnsAnOuterProductIntoAMul) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    outer (float[2,5,1] X, float[2,1,6] Y) => (float[2,5,6] Z)
    {
      Z = MatMul(X, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    outer (float[2,5,1] X, float[2,1,6] Y) => (float[2,5,6] Z)
    {
      Z = Mul(X, Y)
    })ONNX");
}

// Symbolic batch and matrix dims; Y broadcasts over X's batch as in MatMul.
TEST(ShapeBasedMatMulToMulPattern, AcceptsSymbolicDimsOtherThanTheInnerOne) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,M,1] X, float[1,N] Y) => (float[B,M,N] Z)
    {
      Z = MatMul(X, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,M,1] X, float[1,N] Y) => (float[B,M,N] Z)
    {
      Z = Mul(X, Y)
    })ONNX");
}

TEST(ShapeBasedMatMulToMulPattern, AbsorbsATransposeOfTheLastTwoAxes) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    outer (float[2,5,1] X, float[2,1,6] Y) => (float[2,6,5] Z)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    outer (float[2,5,1] X, float[2,1,6] Y) => (float[2,6,5] Z)
    <int64[3] r1 = {0, 1, -1}, int64[3] r2 = {0, -1, 1}>
    {
      xr = Reshape(X, r1)
      yr = Reshape(Y, r2)
      Z = Mul(xr, yr)
    })ONNX");
}

// Upstream asserts rank > 2 here; [1, -1] and [-1, 1] do the job at rank 2.
TEST(ShapeBasedMatMulToMulPattern, AbsorbsATransposeAtRankTwo) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,1] X, float[1,6] Y) => (float[6,5] Z)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [1, 0]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,1] X, float[1,6] Y) => (float[6,5] Z)
    <int64[2] r1 = {1, -1}, int64[2] r2 = {-1, 1}>
    {
      xr = Reshape(X, r1)
      yr = Reshape(Y, r2)
      Z = Mul(xr, yr)
    })ONNX");
}

// A static nonzero batch determines the -1 that stands for the symbolic M and N.
TEST(ShapeBasedMatMulToMulPattern, InfersSymbolicDimsBehindAStaticBatch) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,M,1] X, float[2,1,N] Y) => (float[2,N,M] Z)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,M,1] X, float[2,1,N] Y) => (float[2,N,M] Z)
    <int64[3] r1 = {0, 1, -1}, int64[3] r2 = {0, -1, 1}>
    {
      xr = Reshape(X, r1)
      yr = Reshape(Y, r2)
      Z = Mul(xr, yr)
    })ONNX");
}

// A symbolic batch may be 0 at run time, where [0, 1, -1] cannot infer its -1 ("cannot
// reshape float[0,3,1] to [0,1,-1]"): the static m and n are written instead.
TEST(ShapeBasedMatMulToMulPattern, WritesStaticDimsWhenTheBatchMayBeEmpty) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,3,1] X, float[B,1,4] Y) => (float[B,4,3] Z)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,3,1] X, float[B,1,4] Y) => (float[B,4,3] Z)
    <int64[3] r1 = {0, 1, 3}, int64[3] r2 = {0, 4, 1}>
    {
      xr = Reshape(X, r1)
      yr = Reshape(Y, r2)
      Z = Mul(xr, yr)
    })ONNX");
}

// An empty batch, evaluated: both graphs give float[0,6,5].
TEST(ShapeBasedMatMulToMulPattern, RunsOnAnEmptyBatch) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[0,5,1] X, float[0,1,6] Y) => (float[0,6,5] Z)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[0,5,1] X, float[0,1,6] Y) => (float[0,6,5] Z)
    <int64[3] r1 = {0, 1, 5}, int64[3] r2 = {0, 6, 1}>
    {
      xr = Reshape(X, r1)
      yr = Reshape(Y, r2)
      Z = Mul(xr, yr)
    })ONNX");
}

// Neither a -1 (the batch B may be 0) nor a static value can stand for the symbolic M: the
// plain form, and the Transpose stays.
TEST(ShapeBasedMatMulToMulPattern, KeepsTheTransposeWhenNoReshapeIsValidForEveryBatch) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,M,1] X, float[B,1,4] Y) => (float[B,4,M] Z)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,M,1] X, float[B,1,4] Y) => (float[B,4,M] Z)
    {
      p = Mul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX");
}

// The product is also a graph output: the plain form, and the Transpose stays.
TEST(ShapeBasedMatMulToMulPattern, KeepsTheTransposeWhenTheProductIsAGraphOutput) {
  ExpectRewrite<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,5,1] X, float[2,1,6] Y) => (float[2,6,5] Z, float[2,5,6] p)
    {
      p = MatMul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,5,1] X, float[2,1,6] Y) => (float[2,6,5] Z, float[2,5,6] p)
    {
      p = Mul(X, Y)
      Z = Transpose<perm = [0, 2, 1]>(p)
    })ONNX");
}

// Mul-6 and older broadcast only with broadcast=1, and only the second input.
TEST(ShapeBasedMatMulToMulPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[5,1] X, float[1,6] Y) => (float[5,6] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "the opset is older than 7");
}

TEST(ShapeBasedMatMulToMulPattern, RejectsAnInnerDimensionOfTwo) {
  ExpectNoMatch<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[a,b,2] X, float[a,2,6] Y) => (float[a,b,6] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "the last dimension of the first input is not 1");
}

TEST(ShapeBasedMatMulToMulPattern, RejectsASymbolicInnerDimension) {
  ExpectNoMatch<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[a,b,k] X, float[a,k,6] Y) => (float[a,b,6] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "the last dimension of the first input is not 1");
}

TEST(ShapeBasedMatMulToMulPattern, RejectsASymbolicInnerDimensionOnTheRight) {
  ExpectNoMatch<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,1] X, float[k,6] Y) => (float[5,6] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "the second-to-last dimension of the second input is not 1");
}

TEST(ShapeBasedMatMulToMulPattern, RejectsAVector) {
  ExpectNoMatch<ShapeBasedMatMulToMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] X, float[1,6] Y) => (float[6] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "an input has rank lower than 2");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
