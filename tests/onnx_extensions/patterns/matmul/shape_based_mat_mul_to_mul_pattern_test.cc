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
