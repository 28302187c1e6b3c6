#include "onnx_extensions/patterns/normalization/rms_normalization_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The fused kernel sums in its own order: float32 rounding on values of magnitude ~1.
constexpr double kTolerance = 1e-5;

TEST(RMSNormalizationPattern, FusesTheDecomposedNormalization) {
  ExpectRewrite<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    rms_decomposed (float[4,8] X) => (float[4,8] Y)
    <float[1] two = {2.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    rms_decomposed (float[4,8] X) => (float[4,8] Y)
    <float[8] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      Y = RMSNormalization<axis = -1, epsilon = 0.000001, stash_type = 1>(X, ones)
    })ONNX", kTolerance);
}

// Upstream reads epsilon from the Add's input 1 even when the constant is input 0.
// Div(1, r) instead of Reciprocal, Mul(inv, X), axis rank-1 and a symbolic last dimension.
TEST(RMSNormalizationPattern, FusesTheDivVariantWithASymbolicDimension) {
  ExpectRewrite<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[2,D] X) => (float[2,D] Y)
    <float two = {2.0}, int64[1] axes = {1}, float[1] eps = {0.001}, float one = {1.0}> {
      sq = Pow(X, two)
      ms = ReduceMean(sq, axes)
      a = Add(eps, ms)
      r = Sqrt(a)
      inv = Div(one, r)
      Y = Mul(inv, X)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[2,D] X) => (float[2,D] Y) {
      s = Shape<start = 1, end = 2>(X)
      ones = ConstantOfShape<value = float[1] {1.0}>(s)
      Y = RMSNormalization<axis = 1, epsilon = 0.001, stash_type = 1>(X, ones)
    })ONNX", kTolerance);
}

// A float input computed in double: both Casts are absorbed, stash_type double. (float16 in
// float32 is the usual case; the ONNX text parser of onnx 1.12 reads no float16
// initializer for the expected graph.)
TEST(RMSNormalizationPattern, AbsorbsTheCastsAround) {
  ExpectRewrite<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[3,8] X) => (float[3,8] Y) <double[1] two = {2.0}, int64[1] axes = {-1}, double[1] eps = {0.000001}> {
      xf = Cast<to = 11>(X)
      sq = Pow(xf, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      y = Mul(xf, inv)
      Y = Cast<to = 1>(y)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[3,8] X) => (float[3,8] Y) <float[8] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      Y = RMSNormalization<axis = -1, epsilon = 0.000001, stash_type = 11>(X, ones)
    })ONNX", kTolerance);
}

// A double chain: its epsilon 1e-5 is rounded to the float attribute.
TEST(RMSNormalizationPattern, FusesADoubleNormalizationRoundingItsEpsilon) {
  ExpectRewrite<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (double[4,8] X) => (double[4,8] Y) <double two = {2.0}, int64[1] axes = {-1}, double eps = {0.00001}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (double[4,8] X) => (double[4,8] Y) <double[8] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      Y = RMSNormalization<axis = -1, epsilon = 0.00001, stash_type = 11>(X, ones)
    })ONNX", kTolerance);
}

// xf has a third reader: the Casts stay, the core chain is fused on xf.
TEST(RMSNormalizationPattern, KeepsACastWithAnotherReader) {
  ExpectRewrite<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float16[3,8] X) => (float16[3,8] Y, float[3,8] Z) <float[1] two = {2.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
      xf = Cast<to = 1>(X)
      sq = Pow(xf, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      y = Mul(xf, inv)
      Y = Cast<to = 10>(y)
      Z = Neg(xf)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float16[3,8] X) => (float16[3,8] Y, float[3,8] Z)
    <float[8] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      xf = Cast<to = 1>(X)
      y = RMSNormalization<axis = -1, epsilon = 0.000001, stash_type = 1>(xf, ones)
      Y = Cast<to = 10>(y)
      Z = Neg(xf)
    })ONNX", kTolerance);
}

constexpr const char* kOpset22 = R"ONNX(
  <ir_version: 10, opset_import: ["" : 22]>
  g (float[4,8] X) => (float[4,8] Y) <float[1] two = {2.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
    sq = Pow(X, two)
    ms = ReduceMean<keepdims = 1>(sq, axes)
    a = Add(ms, eps)
    r = Sqrt(a)
    inv = Reciprocal(r)
    Y = Mul(X, inv)
  })ONNX";

TEST(RMSNormalizationPattern, RejectsOpset22) {
  ExpectNoMatch<RMSNormalizationPattern>(kOpset22, "ms", "the main opset is below 23 (RMSNormalization)");
}

TEST(RMSNormalizationPattern, RejectsAMeanWithAnotherReader) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[4,8] X) => (float[4,8] Y, float[4,1] Z) <float[1] two = {2.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
      Z = Neg(ms)
    })ONNX", "ms", "the mean of squares is not read by a single Add");
}

TEST(RMSNormalizationPattern, RejectsACube) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[4,8] X) => (float[4,8] Y) <float[1] three = {3.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
      sq = Pow(X, three)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
    })ONNX", "ms", "the exponent of the Pow is not a constant scalar 2");
}

TEST(RMSNormalizationPattern, RejectsAnotherMultiplicand) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[4,8] X, float[4,8] X2) => (float[4,8] Y) <float[1] two = {2.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X2, inv)
    })ONNX", "ms", "the Mul does not multiply the input of the Pow by the inverse");
}

// RMSNormalization normalizes every axis from `axis` on: axis 1 of a rank-3 input is not it.
TEST(RMSNormalizationPattern, RejectsAnAxisOtherThanTheLast) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[2,4,8] X) => (float[2,4,8] Y) <float[1] two = {2.0}, int64[1] axes = {1}, float[1] eps = {0.000001}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
    })ONNX", "ms", "the axes are not a constant holding the last axis alone");
}

// The epsilon attribute is a float: float(1e-50) is 0, and a row (1e-30, 0, 0, 0) would
// normalize to 2 instead of about 2e-5.
TEST(RMSNormalizationPattern, RejectsADoubleEpsilonBelowTheFloatRange) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (double[2,4] X) => (double[2,4] Y) <double two = {2.0}, int64[1] axes = {-1}, double eps = {1e-50}, double one = {1.0}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Div(one, r)
      Y = Mul(X, inv)
    })ONNX", "ms", "epsilon is outside the normal range of a float (the float epsilon attribute would lose it)");
}

// The chain computes in float16 what the fused operator would compute from the float X:
// x = 1e5 gives NaN (float16 overflow) before, 2 after. Likewise double computed in float.
TEST(RMSNormalizationPattern, RejectsANarrowingCast) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[2,4] X) => (float[2,4] Y) <float two32 = {2.0}, int64[1] axes = {-1}, float eps32 = {0.000001}> {
      two = Cast<to = 10>(two32)
      eps = Cast<to = 10>(eps32)
      xf = Cast<to = 10>(X)
      sq = Pow(xf, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      y = Mul(xf, inv)
      Y = Cast<to = 1>(y)
    })ONNX", "ms", "the Cast before the Pow narrows the input (the fused operator would change the precision)");
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (double[2,4] X) => (double[2,4] Y) <float two = {2.0}, int64[1] axes = {-1}, float eps = {0.000001}> {
      xf = Cast<to = 1>(X)
      sq = Pow(xf, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      y = Mul(xf, inv)
      Y = Cast<to = 11>(y)
    })ONNX", "ms", "the Cast before the Pow narrows the input (the fused operator would change the precision)");
}

// The kernels compute RMSNormalization on float16 in float32 whatever stash_type says:
// x^2 overflows the float16 chain beyond 256, not the fused operator.
TEST(RMSNormalizationPattern, RejectsAFloat16Chain) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float16[2,4] X) => (float16[2,4] Y) <float two32 = {2.0}, int64[1] axes = {-1}, float eps32 = {0.000001}> {
      two = Cast<to = 10>(two32)
      eps = Cast<to = 10>(eps32)
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 1>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
    })ONNX", "ms", "the chain is not computed in float or double (the fused operator would change the precision)");
}

TEST(RMSNormalizationPattern, RejectsKeepdimsZero) {
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[4,4] X) => (float[4,4] Y) <float[1] two = {2.0}, int64[1] axes = {-1}, float[1] eps = {0.000001}> {
      sq = Pow(X, two)
      ms = ReduceMean<keepdims = 0>(sq, axes)
      a = Add(ms, eps)
      r = Sqrt(a)
      inv = Reciprocal(r)
      Y = Mul(X, inv)
    })ONNX", "ms", "the ReduceMean has keepdims=0");
}

TEST(RMSNormalizationPattern, RejectsANormalizedSizeOfOne) {
  // onnxruntime refuses RMSNormalization over one element, where the chain runs.
  ExpectNoMatch<RMSNormalizationPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[2,1] X) => (float[2,1] Y) <int64[1] axes = {-1}, float two = {2.0}, float eps = {0.00001}> {
      sq = Pow(X, two)
      ms = ReduceMean(sq, axes)
      ve = Add(ms, eps)
      sd = Sqrt(ve)
      inv = Reciprocal(sd)
      Y = Mul(X, inv)
    })ONNX", "ms", "the normalized dims hold fewer than two elements (onnxruntime refuses the fused operator)");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
