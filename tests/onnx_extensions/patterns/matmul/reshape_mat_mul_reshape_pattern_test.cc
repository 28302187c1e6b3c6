#include "onnx_extensions/patterns/matmul/reshape_mat_mul_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// A's batch dims are all ones: MatMul broadcasts it over B's [3, 5].
TEST(ReshapeMatMulReshapePattern, LetsMatMulBroadcastTheBatchDims) {
  ExpectRewrite<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    rmr (float[1,1,4,8] A, float[3,5,8,6] B) => (float[3,5,4,6] Z)
    <int64[3] sa = {1, 4, 8}, int64[3] sb = {15, 8, 6}, int64[4] sz = {3, 5, 4, 6}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    rmr (float[1,1,4,8] A, float[3,5,8,6] B) => (float[3,5,4,6] Z)
    {
      Z = MatMul(A, B)
    })ONNX");
}

// The flattened A is also a graph output: its Reshape stays.
TEST(ReshapeMatMulReshapePattern, KeepsAnInputReshapeWithOtherReaders) {
  ExpectRewrite<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,8] A, float[2,3,8,6] B) => (float[2,3,4,6] Z, float[6,4,8] ra)
    <int64[3] sa = {6, 4, 8}, int64[3] sb = {6, 8, 6}, int64[4] sz = {2, 3, 4, 6}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,8] A, float[2,3,8,6] B) => (float[2,3,4,6] Z, float[6,4,8] ra)
    <int64[3] sa = {6, 4, 8}>
    {
      ra = Reshape(A, sa)
      Z = MatMul(A, B)
    })ONNX");
}

TEST(ReshapeMatMulReshapePattern, RejectsAThreeDimensionalOutput) {
  ExpectNoMatch<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[15,32,8] A, float[15,8,64] B) => (float[15,32,64] Z)
    <int64[3] sa = {15, 32, 8}, int64[3] sb = {15, 8, 64}, int64[3] sz = {15, 32, 64}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", "m", "the output Reshape produces fewer than 4 dimensions");
}

TEST(ReshapeMatMulReshapePattern, RejectsAMinusOneInTheMatrixPart) {
  ExpectNoMatch<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,32,8] A, float[3,5,8,6] B) => (float[3,5,32,6] Z)
    <int64[3] sa = {1, 32, -1}, int64[3] sb = {15, 8, 6}, int64[4] sz = {3, 5, 32, 6}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", "m", "the last two dimensions of an input differ from those its Reshape gives");
}

// A symbolic matrix dim is not taken for the integer of the shape constant.
TEST(ReshapeMatMulReshapePattern, RejectsASymbolicMatrixDim) {
  ExpectNoMatch<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,M,8] A, float[3,5,8,6] B) => (float[3,5,4,6] Z)
    <int64[3] sa = {1, 4, 8}, int64[3] sb = {15, 8, 6}, int64[4] sz = {3, 5, 4, 6}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", "m", "the last two dimensions of an input differ from those its Reshape gives");
}

TEST(ReshapeMatMulReshapePattern, RejectsAComputedShape) {
  ExpectNoMatch<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,4,8] A, float[3,5,8,6] B, float[K] C) => (float[3,5,4,6] Z)
    <int64[2] tail = {4, 8}, int64[3] sb = {15, 8, 6}, int64[4] sz = {3, 5, 4, 6}>
    {
      k = Shape(C)
      sa = Concat<axis = 0>(k, tail)
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", "m", "the shape of a Reshape is not constant");
}

// [2,3] and [3,2] both flatten to 6 batches, which MatMul(A, B) would not pair.
TEST(ReshapeMatMulReshapePattern, RejectsInconsistentBatchDims) {
  ExpectNoMatch<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,8] A, float[3,2,8,6] B) => (float[2,3,4,6] Z)
    <int64[3] sa = {6, 4, 8}, int64[3] sb = {6, 8, 6}, int64[4] sz = {2, 3, 4, 6}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Reshape(m, sz)
    })ONNX", "m", "the batch dimensions of an input are neither the output's nor all ones");
}

TEST(ReshapeMatMulReshapePattern, RejectsAnOutputThatIsNotReshaped) {
  ExpectNoMatch<ReshapeMatMulReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,4,8] A, float[3,5,8,6] B) => (float[15,4,6] Z)
    <int64[3] sa = {1, 4, 8}, int64[3] sb = {15, 8, 6}>
    {
      ra = Reshape(A, sa)
      rb = Reshape(B, sb)
      m = MatMul(ra, rb)
      Z = Relu(m)
    })ONNX", "m", "the output of the MatMul is not reshaped by a Reshape");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
