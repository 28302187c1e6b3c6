#include "onnx_extensions/patterns/normalization/leaky_relu_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(LeakyReluPattern, FusesTheWhereOfAComparison) {
  ExpectRewrite<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    leaky (float[3,4] X) => (float[3,4] Y) <float[1] zero = {0.0}, float[1] slope = {0.2}> {
      pos = Greater(X, zero)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    leaky (float[3,4] X) => (float[3,4] Y) {
      Y = LeakyRelu<alpha = 0.2>(X)
    })ONNX");
}

// A float16 slope (0.1 rounds to 0.0999755859375): LeakyRelu's float alpha holds it exactly.
// The ONNX text parser of onnx 1.12 reads no float16 initializer: Casts make the constants.
TEST(LeakyReluPattern, FusesFloat16) {
  ExpectRewrite<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X) => (float16[N,4] Y) <float zero32 = {0.0}, float slope32 = {0.1}> {
      zero = Cast<to = 10>(zero32)
      slope = Cast<to = 10>(slope32)
      pos = Greater(X, zero)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X) => (float16[N,4] Y) {
      Y = LeakyRelu<alpha = 0.0999755859375>(X)
    })ONNX");
}

TEST(LeakyReluPattern, RejectsATrueBranchOtherThanX) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,4] Y)
    <float[1] zero = {0.0}, float[1] c1 = {0.5}, float[1] c2 = {2.0}, float[1] c4 = {0.1}> {
      gt = Greater(X, zero)
      a = Mul(X, c2)
      b = Mul(X, c1)
      c = Mul(b, c4)
      Y = Where(gt, a, c)
    })ONNX", "Y", "the true branch is not the first input of the Greater");
}

TEST(LeakyReluPattern, RejectsAComparisonWithAnotherValue) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,4] Y) <float[1] half = {0.5}, float[1] slope = {0.2}> {
      pos = Greater(X, half)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", "Y", "the Greater does not compare with a constant scalar 0");
}

TEST(LeakyReluPattern, RejectsAVectorSlope) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X) => (float[4,3] Y) <float[1] zero = {0.0}, float[3] s = {0.1, 0.2, 0.3}> {
      pos = Greater(X, zero)
      xs = Mul(X, s)
      Y = Where(pos, X, xs)
    })ONNX", "Y", "the Mul does not multiply by a constant scalar");
}

// LeakyRelu is defined for float types only.
TEST(LeakyReluPattern, RejectsIntegers) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[3,4] X) => (int64[3,4] Y) <int64[1] zero = {0}, int64[1] slope = {2}> {
      pos = Greater(X, zero)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", "Y", "the input is not float or float16 (onnxruntime has no LeakyRelu kernel for other types)");
}

// onnxruntime runs the chain on double but has no double LeakyRelu.
TEST(LeakyReluPattern, RejectsDouble) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[3,4] X) => (double[3,4] Y) <double[1] zero = {0.0}, double[1] slope = {0.5}> {
      pos = Greater(X, zero)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", "Y", "the input is not float or float16 (onnxruntime has no LeakyRelu kernel for other types)");
}

// An infinite slope: at x = 0 the chain takes x * inf = NaN, LeakyRelu gives 0. (A double
// slope a float would round needs a double input, refused before the slope is read.)
TEST(LeakyReluPattern, RejectsAnInfiniteSlope) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,4] X) => (float[3,4] Y) <float[1] zero = {0.0}, float[1] one = {1.0}> {
      slope = Div(one, zero)
      pos = Greater(X, zero)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", "Y", "the slope is not a finite value a float attribute holds exactly");
}

// Where broadcasts a scalar x with the (1,) constants to (1,); LeakyRelu keeps ().
TEST(LeakyReluPattern, RejectsAScalarInputWithVectorConstants) {
  ExpectNoMatch<LeakyReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[1] Y) <float[1] zero = {0.0}, float[1] slope = {0.2}> {
      pos = Greater(X, zero)
      xs = Mul(X, slope)
      Y = Where(pos, X, xs)
    })ONNX", "Y", "a constant has a higher rank than the input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
