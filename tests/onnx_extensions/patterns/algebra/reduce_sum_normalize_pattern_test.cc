#include "onnx_extensions/patterns/algebra/reduce_sum_normalize_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The normalization runs in float16: results differ by float16 rounding of sums up to 16
// and products up to 32 (relative and absolute tolerance).
constexpr double kFloat16Tolerance = 2e-2;

TEST(ReduceSumNormalizePattern, NormalizesInTheNarrowType) {
  ExpectRewrite<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y) => (float16[N,8] Z) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum<keepdims=1>(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=10>(d)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y) => (float16[N,8] Z) <int64[1] axes = {1}> {
      r2 = ReduceSum<keepdims=1>(X, axes)
      y2 = Cast<to=10>(Y)
      m2 = Mul(r2, y2)
      Z = Sub(X, m2)
    })ONNX", kFloat16Tolerance);
}

// Mul(Y, r) and Sub(m, xc): the Sub keeps its operand order; Y is computed after the
// ReduceSum.
TEST(ReduceSumNormalizePattern, KeepsTheOrderOfTheSub) {
  ExpectRewrite<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,1] W) => (float16[N,8] Z) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc, axes)
      Y = Neg(W)
      m = Mul(Y, r)
      d = Sub(m, xc)
      Z = Cast<to=10>(d)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,1] W) => (float16[N,8] Z) <int64[1] axes = {1}> {
      Y = Neg(W)
      r2 = ReduceSum(X, axes)
      y2 = Cast<to=10>(Y)
      m2 = Mul(r2, y2)
      Z = Sub(m2, X)
    })ONNX", kFloat16Tolerance);
}

TEST(ReduceSumNormalizePattern, RejectsResultInAnotherType) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, double[N,8] Y) => (float[N,8] Z) <int64[1] axes = {1}> {
      xc = Cast<to=11>(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=1>(d)
    })ONNX", "r", "the second Cast does not convert back to the type of the first Cast's input");
}

TEST(ReduceSumNormalizePattern, RejectsSharedSum) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y) => (float16[N,8] Z, float[N,1] S) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=10>(d)
      S = Neg(r)
    })ONNX", "r", "the output of the ReduceSum is not read by a Mul alone");
}

TEST(ReduceSumNormalizePattern, RejectsSubOfAnotherTensor) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y, float[N,8] W) => (float16[N,8] Z) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(W, m)
      Z = Cast<to=10>(d)
    })ONNX", "r", "the Sub does not read the output of the first Cast");
}

// Upstream removes the first Cast although Q still reads it.
TEST(ReduceSumNormalizePattern, RejectsCastReadElsewhere) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y) => (float16[N,8] Z, float[N,8] Q) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=10>(d)
      Q = Sigmoid(xc)
    })ONNX", "r", "the output of the first Cast is read by other nodes than the ReduceSum and the Sub");
}

TEST(ReduceSumNormalizePattern, RejectsDifferenceThatIsAGraphOutput) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y) => (float16[N,8] Z, float[N,8] d) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=10>(d)
    })ONNX", "r", "the output of the Sub is not read by a Cast alone");
}

// Y would be truncated to an integer before the product.
TEST(ReduceSumNormalizePattern, RejectsIntegers) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[N,8] X, float[N,8] Y) => (int32[N,8] Z) <int64[1] axes = {1}> {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=6>(d)
    })ONNX", "r", "the first Cast does not convert between float types");
}

// Upstream reads the axes input unconditionally.
TEST(ReduceSumNormalizePattern, RejectsReduceSumWithoutAxes) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X, float[N,8] Y) => (float16[N,8] Z) {
      xc = Cast<to=1>(X)
      r = ReduceSum(xc)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=10>(d)
    })ONNX", "r", "the ReduceSum has no axes input");
}

TEST(ReduceSumNormalizePattern, RejectsReduceSumOfAnotherProducer) {
  ExpectNoMatch<ReduceSumNormalizePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X, float[N,8] Y) => (float16[N,8] Z) <int64[1] axes = {1}> {
      xc = Relu(X)
      r = ReduceSum(xc, axes)
      m = Mul(r, Y)
      d = Sub(xc, m)
      Z = Cast<to=10>(d)
    })ONNX", "r", "the data input of the ReduceSum is not produced by a Cast");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
