#include "onnx_extensions/patterns/normalization/rms_normalization_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// (n*w)*g becomes n*(w*g): one or two float32 units.
constexpr double kTolerance = 1e-5;

TEST(RMSNormalizationMulPattern, FoldsTheFactorIntoTheWeight) {
  ExpectRewrite<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    rms_mul (float[N,4] X) => (float[N,4] Y)
    <float[4] w = {3.0, 4.0, 5.0, 6.0}, float[4] g = {0.5, 0.25, 2.0, 1.0}> {
      n = RMSNormalization(X, w)
      Y = Mul(n, g)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    rms_mul (float[N,4] X) => (float[N,4] Y) <float[4] wg = {1.5, 1.0, 10.0, 6.0}> {
      Y = RMSNormalization(X, wg)
    })ONNX", kTolerance);
}

TEST(RMSNormalizationMulPattern, FoldsAFactorWrittenFirst) {
  ExpectRewrite<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[N,4] X) => (float[N,4] Y) <float[4] w = {3.0, 4.0, 5.0, 6.0}, float[4] g = {0.5, 0.25, 2.0, 1.0}> {
      n = RMSNormalization<epsilon = 0.001, stash_type = 1>(X, w)
      Y = Mul(g, n)
    })ONNX", R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[N,4] X) => (float[N,4] Y) <float[4] wg = {1.5, 1.0, 10.0, 6.0}> {
      Y = RMSNormalization<epsilon = 0.001, stash_type = 1>(X, wg)
    })ONNX", kTolerance);
}

TEST(RMSNormalizationMulPattern, RejectsAnAdd) {
  ExpectNoMatch<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[N,4] X) => (float[N,4] Y) <float[4] w = {3.0, 4.0, 5.0, 6.0}, float[4] g = {0.5, 0.25, 2.0, 1.0}> {
      n = RMSNormalization(X, w)
      Y = Add(n, g)
    })ONNX", "n", "the output is not read by a single Mul");
}

TEST(RMSNormalizationMulPattern, RejectsAFactorGivenAsInput) {
  ExpectNoMatch<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[N,4] X, float[4] g) => (float[N,4] Y) <float[4] w = {3.0, 4.0, 5.0, 6.0}> {
      n = RMSNormalization(X, w)
      Y = Mul(n, g)
    })ONNX", "n", "the scale or the other input of the Mul is not a constant");
}

TEST(RMSNormalizationMulPattern, RejectsAFactorOfAnotherShape) {
  ExpectNoMatch<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[N,4] X) => (float[N,4] Y) <float[4] w = {3.0, 4.0, 5.0, 6.0}, float[1] g = {0.5}> {
      n = RMSNormalization(X, w)
      Y = Mul(n, g)
    })ONNX", "n", "the scale and the other input of the Mul do not have the same known shape");
}

// Upstream counts node readers only: the normalization's output would disappear.
TEST(RMSNormalizationMulPattern, RejectsANormalizationThatIsAGraphOutput) {
  ExpectNoMatch<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float[N,4] X) => (float[N,4] Y, float[N,4] n) <float[4] w = {3.0, 4.0, 5.0, 6.0}, float[4] g = {0.5, 0.25, 2.0, 1.0}> {
      n = RMSNormalization(X, w)
      Y = Mul(n, g)
    })ONNX", "n", "the output is not read by a single Mul");
}

// Below opset 23, RMSNormalization is not a standard operator.
TEST(RMSNormalizationMulPattern, RejectsOpset22) {
  ExpectNoMatch<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 22]>
    g (float[N,4] X) => (float[N,4] Y) <float[4] w = {3.0, 4.0, 5.0, 6.0}, float[4] g = {0.5, 0.25, 2.0, 1.0}> {
      n = RMSNormalization(X, w)
      Y = Mul(n, g)
    })ONNX", "n", "the main opset is below 23 (RMSNormalization)");
}

TEST(RMSNormalizationMulPattern, RejectsFloat16WhereTheProductOfTheScalesCanOverflow) {
  // w = g = 256 in an element: w*g is inf in float16 where (n*w)*g was not.
  ExpectNoMatch<RMSNormalizationMulPattern>(R"ONNX(
    <ir_version: 10, opset_import: ["" : 23]>
    g (float16[N,3] X) => (float16[N,3] Y) <float[3] w32 = {256.0, 1.0, 1.0}, float[3] g32 = {256.0, 1.0, 1.0}> {
      w = Cast<to = 10>(w32)
      g = Cast<to = 10>(g32)
      n = RMSNormalization(X, w)
      Y = Mul(n, g)
    })ONNX", "n", "the element type is float16, where the product of the two scales can overflow");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
