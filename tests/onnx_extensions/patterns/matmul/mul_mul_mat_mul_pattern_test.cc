#include "onnx_extensions/patterns/matmul/mul_mul_mat_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// (0.4 * 0.6) * sum(x*y) against sum((0.4 x) (0.6 y)): float32 rounding, 1e-5 suffices
// for sums of 4 products of values in [-2, 2].
TEST(MulMulMatMulPattern, MovesBothScalarFactorsAfterTheProduct) {
  ExpectRewrite<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mul_mul_mm (float[3,4] X, float[4,5] Y) => (float[3,5] Z)
    <float[1] c = {0.4}, float[1] d = {0.6}>
    {
      a = Mul(X, c)
      b = Mul(d, Y)
      Z = MatMul(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    mul_mul_mm (float[3,4] X, float[4,5] Y) => (float[3,5] Z)
    <float[1] k = {0.24000001}>
    {
      t = MatMul(X, Y)
      Z = Mul(t, k)
    })ONNX", 1e-5);
}

// Integer products are exact; a () and a (1,) constant give a (1,) factor, and the batched
// product keeps its rank.
TEST(MulMulMatMulPattern, CombinesIntegerFactorsOfBothShapes) {
  ExpectRewrite<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,3,4] X, int64[4,5] Y) => (int64[2,3,5] Z)
    <int64 c = {3}, int64[1] d = {-2}>
    {
      a = Mul(c, X)
      b = Mul(Y, d)
      Z = MatMul(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,3,4] X, int64[4,5] Y) => (int64[2,3,5] Z)
    <int64[1] k = {-6}>
    {
      t = MatMul(X, Y)
      Z = Mul(t, k)
    })ONNX");
}

TEST(MulMulMatMulPattern, RejectsANonScalarConstant) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,16] X, float[16,5] Y) => (float[3,5] Z)
    <float[3,16] W = {1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,
                      1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1}, float[1] d = {0.5}>
    {
      a = Mul(X, W)
      b = Mul(d, Y)
      Z = MatMul(a, b)
    })ONNX", "Z", "the constant of a Mul is not of shape () or (1,)");
}

TEST(MulMulMatMulPattern, RejectsAnOperandFromAnAdd) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X, float[4,5] Y) => (float[3,5] Z)
    <float[1] c = {0.4}, float[1] d = {0.6}>
    {
      a = Mul(X, c)
      b = Add(d, Y)
      Z = MatMul(a, b)
    })ONNX", "Z", "an input of the MatMul is not produced by a Mul");
}

// Mul(c1, c2) on one side: three of the four Mul inputs are constants.
TEST(MulMulMatMulPattern, RejectsAMulOfTwoConstants) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,1] Z)
    <float[1] c = {0.4}, float[4,1] W = {1, 2, 3, 4}, float[1] d = {0.6}>
    {
      a = Mul(X, c)
      b = Mul(d, W)
      Z = MatMul(a, b)
    })ONNX", "Z", "a Mul does not have exactly one constant operand");
}

TEST(MulMulMatMulPattern, RejectsAMulWithAnotherReader) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X, float[4,5] Y) => (float[3,5] Z, float[3,4] a)
    <float[1] c = {0.4}, float[1] d = {0.6}>
    {
      a = Mul(X, c)
      b = Mul(d, Y)
      Z = MatMul(a, b)
    })ONNX", "Z", "the output of a Mul has other readers");
}

// 1e-30 * 1e-30 underflows to 0 in float32 where each factor alone does not.
TEST(MulMulMatMulPattern, RejectsAFactorThatUnderflows) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X, float[4,5] Y) => (float[3,5] Z)
    <float[1] c = {1e-30}, float[1] d = {1e-30}>
    {
      a = Mul(X, c)
      b = Mul(d, Y)
      Z = MatMul(a, b)
    })ONNX", "Z", "the combined factor is not a normal number of the element type");
}

// Attention in float16: 64 products of (40*0.25) * (40*0.25) sum to 6400, but 40*40 * 64
// overflows float16 (max 65504) before the factor 0.0625 is applied. The ONNX text reads
// no float16 initializer: float constants cast to float16.
TEST(MulMulMatMulPattern, RejectsFloat16) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[2,64] Q, float16[64,2] K) => (float16[2,2] Z)
    <float cf = {0.25}, float df = {0.25}>
    {
      c = Cast<to = 10>(cf)
      d = Cast<to = 10>(df)
      a = Mul(Q, c)
      b = Mul(K, d)
      Z = MatMul(a, b)
    })ONNX", "Z", "the element type is float16, where the unscaled product can overflow");
}

// bfloat16 has float32's exponent range: the product cannot overflow where the scaled one
// does not. The ONNX text reads no bfloat16 initializer: float constants cast to bfloat16,
// which the test driver does not fold (the optimizer does). The tolerance covers
// bfloat16's 8-bit significand.
TEST(MulMulMatMulPattern, KeepsBfloat16) {
  ExpectRewrite<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bfloat16[3,4] X, bfloat16[4,5] Y) => (bfloat16[3,5] Z)
    <float cf = {0.5}, float df = {0.25}>
    {
      c = Cast<to = 16>(cf)
      d = Cast<to = 16>(df)
      a = Mul(X, c)
      b = Mul(d, Y)
      Z = MatMul(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bfloat16[3,4] X, bfloat16[4,5] Y) => (bfloat16[3,5] Z)
    <float cf = {0.5}, float df = {0.25}>
    {
      c = Cast<to = 16>(cf)
      d = Cast<to = 16>(df)
      t = MatMul(X, Y)
      k = Mul(c, d)
      Z = Mul(t, k)
    })ONNX", 5e-2);
}

// A dot product of vectors is a scalar, which a (1,) factor would turn into a vector.
TEST(MulMulMatMulPattern, RejectsAVectorFactorOnAScalarProduct) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Y) => (float Z)
    <float[1] c = {0.4}, float d = {0.6}>
    {
      a = Mul(X, c)
      b = Mul(d, Y)
      Z = MatMul(a, b)
    })ONNX", "Z", "a constant has shape (1,) and the MatMul output may be a scalar");
}

// Mul-6 broadcasts only with broadcast=1: the Mul the rewrite adds would be invalid (an
// internal error, exit 3, before).
TEST(MulMulMatMulPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<MulMulMatMulPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[3,2] A, float[2,4] B) => (float[3,4] Y) <float[1] c = {2.0}, float[1] d = {3.0}> {
      X1 = Mul <broadcast = 1> (A, c)
      X2 = Mul <broadcast = 1> (B, d)
      Y = MatMul(X1, X2)
    })ONNX", "Y", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
