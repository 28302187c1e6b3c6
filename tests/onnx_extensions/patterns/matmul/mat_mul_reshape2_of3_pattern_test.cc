#include "onnx_extensions/patterns/matmul/mat_mul_reshape2_of3_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(MatMulReshape2Of3Pattern, RemovesThreeBatchReshapes) {
  ExpectRewrite<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mm_2of3 (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[2,2,3,3] Z)
    <int64[3] s1 = {-1, 3, 4}, int64[3] s2 = {-1, 4, 3}, int64[4] s3 = {2, 2, 3, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      p = MatMul(xr, yr)
      Z = Reshape(p, s3)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mm_2of3 (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[2,2,3,3] Z)
    {
      Z = MatMul(X, Y)
    })ONNX");
}

// No output Reshape: the product runs on the unflattened inputs and one Reshape gives the
// output its shape back.
TEST(MatMulReshape2Of3Pattern, ReshapesTheOutputBackWithoutAnOutputReshape) {
  ExpectRewrite<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[4,3,3] Z)
    <int64[3] s1 = {4, 3, 4}, int64[3] s2 = {4, 4, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      Z = MatMul(xr, yr)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[4,3,3] Z)
    <int64[3] s = {4, 3, 3}>
    {
      t = MatMul(X, Y)
      Z = Reshape(t, s)
    })ONNX");
}

// p is also a graph output: the output Reshape stays (it reads p), the two input ones go.
TEST(MatMulReshape2Of3Pattern, KeepsTheOutputReshapeOfAProductThatIsAGraphOutput) {
  ExpectRewrite<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[2,2,3,3] Z, float[4,3,3] p)
    <int64[3] s1 = {4, 3, 4}, int64[3] s2 = {4, 4, 3}, int64[4] s3 = {2, 2, 3, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      p = MatMul(xr, yr)
      Z = Reshape(p, s3)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[2,2,3,3] Z, float[4,3,3] p)
    <int64[4] s3 = {2, 2, 3, 3}, int64[3] s = {4, 3, 3}>
    {
      t = MatMul(X, Y)
      p = Reshape(t, s)
      Z = Reshape(p, s3)
    })ONNX");
}

// No right Reshape: Y gets one to the batch dims of the output.
TEST(MatMulReshape2Of3Pattern, ReshapesTheSideWithoutAReshape) {
  ExpectRewrite<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[4,4,3] Y) => (float[2,2,3,3] Z)
    <int64[3] s1 = {4, 3, 4}, int64[4] s3 = {2, 2, 3, 3}>
    {
      xr = Reshape(X, s1)
      p = MatMul(xr, Y)
      Z = Reshape(p, s3)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[4,4,3] Y) => (float[2,2,3,3] Z)
    <int64[4] s = {2, 2, 4, 3}>
    {
      yr = Reshape(Y, s)
      Z = MatMul(X, yr)
    })ONNX");
}

// The batch dims of Y ([3,2]) differ from the output's ([6], as X's): Y alone is reshaped.
TEST(MatMulReshape2Of3Pattern, ReshapesTheSideWhoseBatchDimsDiffer) {
  ExpectRewrite<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,3,4] X, float[3,2,4,5] Y) => (float[6,3,5] Z)
    <int64[4] s1 = {2, 3, 3, 4}, int64[4] s2 = {2, 3, 4, 5}, int64[3] s3 = {6, 3, 5}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      p = MatMul(xr, yr)
      Z = Reshape(p, s3)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,3,4] X, float[3,2,4,5] Y) => (float[6,3,5] Z)
    <int64[3] s = {6, 4, 5}>
    {
      yr = Reshape(Y, s)
      Z = MatMul(X, yr)
    })ONNX");
}

TEST(MatMulReshape2Of3Pattern, KeepsTheAttributesOfAFusedMatMul) {
  ExpectRewrite<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>
    g (float[2,2,4,3] X, float[2,2,4,3] Y) => (float[2,2,3,3] Z)
    <int64[3] s1 = {4, 4, 3}, int64[4] s3 = {2, 2, 3, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s1)
      p = com.microsoft.FusedMatMul<transA = 1, alpha = 0.5>(xr, yr)
      Z = Reshape(p, s3)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>
    g (float[2,2,4,3] X, float[2,2,4,3] Y) => (float[2,2,3,3] Z)
    {
      Z = com.microsoft.FusedMatMul<transA = 1, alpha = 0.5>(X, Y)
    })ONNX");
}

TEST(MatMulReshape2Of3Pattern, RejectsASingleReshape) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[4,4,3] Y) => (float[4,3,3] Z)
    <int64[3] s1 = {4, 3, 4}>
    {
      xr = Reshape(X, s1)
      Z = MatMul(xr, Y)
    })ONNX", "Z", "fewer than two of the inputs and the output go through a Reshape read there alone");
}

// A side Reshape with another reader stays, so it does not count.
TEST(MatMulReshape2Of3Pattern, RejectsASharedSideReshape) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[4,3,3] Z, float[4,3,4] W)
    <int64[3] s1 = {4, 3, 4}, int64[3] s2 = {4, 4, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      Z = MatMul(xr, yr)
      W = Neg(xr)
    })ONNX", "Z", "fewer than two of the inputs and the output go through a Reshape read there alone");
}

// [6,1,3,4] x [1,6,4,5] broadcasts to 36 matrices: the batch sizes before the Reshapes (6
// and 6) are not enough.
TEST(MatMulReshape2Of3Pattern, RejectsBatchBroadcasting) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,3,4] X, float[6,4,5] Y) => (float[36,3,5] Z)
    <int64[4] s1 = {6, 1, 3, 4}, int64[4] s2 = {1, 6, 4, 5}, int64[3] s3 = {36, 3, 5}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      p = MatMul(xr, yr)
      Z = Reshape(p, s3)
    })ONNX", "p", "the product broadcasts batch dimensions");
}

// [2,4,3] read as [2,3,4]: the same number of elements per matrix, other matrices.
TEST(MatMulReshape2Of3Pattern, RejectsAReshapeOfTheMatrixDims) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,4,3] X, float[2,4,5] Y) => (float[1,2,3,5] Z)
    <int64[3] s1 = {2, 3, 4}, int64[4] s3 = {1, 2, 3, 5}>
    {
      xr = Reshape(X, s1)
      p = MatMul(xr, Y)
      Z = Reshape(p, s3)
    })ONNX", "p", "a Reshape changes the last two dimensions");
}

TEST(MatMulReshape2Of3Pattern, RejectsSymbolicBatchDims) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,4] X, float[N,2,4,3] Y) => (float[N,2,3,3] Z)
    <int64[3] s1 = {-1, 3, 4}, int64[3] s2 = {-1, 4, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      Z = MatMul(xr, yr)
    })ONNX", "Z", "the shape of an input or of the output of the product is not static");
}

// Every choice of batch dims needs two Reshapes, as many as there are.
TEST(MatMulReshape2Of3Pattern, RejectsARewriteThatRemovesNoReshape) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,3,4] X, float[3,2,4,5] Y) => (float[2,3,3,5] Z)
    <int64[4] s1 = {2, 3, 3, 4}, int64[4] s2 = {2, 3, 4, 5}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      Z = MatMul(xr, yr)
    })ONNX", "Z", "the rewrite would not remove a Reshape");
}

TEST(MatMulReshape2Of3Pattern, RejectsBatchTransposition) {
  ExpectNoMatch<MatMulReshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.microsoft" : 1]>
    g (float[2,2,3,4] X, float[2,2,4,3] Y) => (float[4,3,3] Z)
    <int64[3] s1 = {4, 3, 4}, int64[3] s2 = {4, 4, 3}>
    {
      xr = Reshape(X, s1)
      yr = Reshape(Y, s2)
      Z = com.microsoft.FusedMatMul<transBatchA = 1>(xr, yr)
    })ONNX", "Z", "the node is not a MatMul, nor a FusedMatMul without batch transposition");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
