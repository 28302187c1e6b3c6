#include "onnx_extensions/patterns/canonicalization/cast_cast_binary_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// One float16 rounding of values below 8 in magnitude.
constexpr double kFloat16Tolerance = 5e-3;

TEST(CastCastBinaryPattern, ComputesBeforeNarrowingCasts) {
  ExpectRewrite<CastCastBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float16[N,4] Z) {
      xh = Cast<to=10>(X)
      yh = Cast<to=10>(Y)
      Z = Mul(xh, yh)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float16[N,4] Z) {
      m = Mul(X, Y)
      Z = Cast<to=10>(m)
    })ONNX", kFloat16Tolerance);
}

TEST(CastCastBinaryPattern, RejectsIntegerSources) {
  ExpectNoMatch<CastCastBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[4] X, int64[4] Y) => (float16[4] Z) {
      xh = Cast<to=10>(X)
      yh = Cast<to=10>(Y)
      Z = Add(xh, yh)
    })ONNX", "Z", "the Cast inputs are not of a float type");
}

TEST(CastCastBinaryPattern, RejectsWideningCasts) {
  // 60000 + 60000 is 120000 in float but inf in float16.
  ExpectNoMatch<CastCastBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4] X, float16[4] Y) => (float[4] Z) {
      xf = Cast<to=1>(X)
      yf = Cast<to=1>(Y)
      Z = Add(xf, yf)
    })ONNX", "Z", "the casts widen the operands");
}

TEST(CastCastBinaryPattern, RejectsDifferentSourceTypes) {
  ExpectNoMatch<CastCastBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, double[4] Y) => (float16[4] Z) {
      xh = Cast<to=10>(X)
      yh = Cast<to=10>(Y)
      Z = Sub(xh, yh)
    })ONNX", "Z", "the Cast inputs have different element types");
}

TEST(CastCastBinaryPattern, RejectsSharedCastOutput) {
  ExpectNoMatch<CastCastBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Y) => (float16[4] Z, float16[4] W) {
      xh = Cast<to=10>(X)
      yh = Cast<to=10>(Y)
      Z = Mul(xh, yh)
      W = Neg(xh)
    })ONNX", "Z", "a Cast output has another reader");
}

TEST(CastCastBinaryPattern, RejectsSingleCastOperand) {
  ExpectNoMatch<CastCastBinaryPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float16[4] Y) => (float16[4] Z) {
      xh = Cast<to=10>(X)
      Z = Mul(xh, Y)
    })ONNX", "Z", "an operand is not produced by a Cast");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
