#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_mat_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeBasedExpandBroadcastMatMulPattern, LetsTheMatMulBroadcast) {
  ExpectRewrite<ShapeBasedExpandBroadcastMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,M,K] X, float[1,K,P] Y) => (float[A,M,P] Z) <int64[2] o11 = {1, 1}> {
      a = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(a, o11)
      ye = Expand(Y, sh)
      Z = MatMul(X, ye)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,M,K] X, float[1,K,P] Y) => (float[A,M,P] Z) {
      Z = MatMul(X, Y)
    })ONNX");
}

TEST(ShapeBasedExpandBroadcastMatMulPattern, RejectsRankOneOperand) {
  ExpectNoMatch<ShapeBasedExpandBroadcastMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,M,K] X, float[1] Y) => (float[A,M] Z) {
      k = Shape<start=2>(X)
      ye = Expand(Y, k)
      Z = MatMul(X, ye)
    })ONNX", "Z", "an operand or the output has rank below 2");
}

TEST(ShapeBasedExpandBroadcastMatMulPattern, RejectsNoExpand) {
  ExpectNoMatch<ShapeBasedExpandBroadcastMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,M,K] X, float[1,K,P] Y) => (float[A,M,P] Z) {
      Z = MatMul(X, Y)
    })ONNX", "Z", "no input is produced by an Expand");
}

TEST(ShapeBasedExpandBroadcastMatMulPattern, RejectsBatchFromTheExpandAlone) {
  ExpectNoMatch<ShapeBasedExpandBroadcastMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,S,K] X, float[1,K,M] Y, float[B] W) => (float[B,S,M] Z) <int64[2] o11 = {1, 1}> {
      b = Shape(W)
      sh = Concat<axis=0>(b, o11)
      xe = Expand(X, sh)
      Z = MatMul(xe, Y)
    })ONNX", "Z", "broadcasting without the Expand does not give the batch dimensions");
}

TEST(ShapeBasedExpandBroadcastMatMulPattern, RejectsExpandOfAMatrixDimension) {
  ExpectNoMatch<ShapeBasedExpandBroadcastMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,1,K] X, float[K,P] Y, float[M] W) => (float[B,M,P] Z) <int64[1] o1 = {1}> {
      m = Shape(W)
      sh = Concat<axis=0>(o1, m, o1)
      xe = Expand(X, sh)
      Z = MatMul(xe, Y)
    })ONNX", "Z", "an Expand changes a matrix dimension");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
