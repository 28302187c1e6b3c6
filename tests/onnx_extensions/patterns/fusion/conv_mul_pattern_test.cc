#include "onnx_extensions/patterns/fusion/conv_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Scaling the weights instead of the output rounds in another order.
constexpr double kTolerance = 1e-5;

TEST(ConvMulPattern, ScalesWeightsAndBiasPerOutputChannel) {
  ExpectRewrite<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] B = {1.0, -1.0}, float[2,1,1] k = {0.5, 3.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W, B)
      Y = Mul(c, k)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W2 = {0.5, 1.0, 9.0, 12.0}, float[2] B2 = {0.5, -3.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// A scalar on the left: every channel by 2; a Conv without bias gets a zero bias.
TEST(ConvMulPattern, AcceptsScalarOnTheLeft) {
  ExpectRewrite<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y) <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float k = {2.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(k, c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y) <float[2,2,1,1] W2 = {2.0, 4.0, 6.0, 8.0}, float[2] B2 = {0.0, 0.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// A zero weight times a tiny factor stays 0, as in the original: no underflow. 1e-30 and
// 1e-30 * 2 = 2e-30 are normal floats (above 1.2e-38).
TEST(ConvMulPattern, ScalesZeroWeightsByATinyFactor) {
  ExpectRewrite<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,2,2] X) => (float[N,2,2,2] Y) <float[2,1,1,1] W = {0.0, 2.0}, float[1] k = {1e-30}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,2,2] X) => (float[N,2,2,2] Y) <float[2,1,1,1] W2 = {0.0, 2e-30}, float[2] B2 = {0.0, 0.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// float16 1000 * 100 = 1e5 is above the largest float16 (65504): the folded weight would
// be +inf where the original gives 100 for an input of 0.001. The text syntax has no
// float16 literals: the constants are float tensors cast to float16.
TEST(ConvMulPattern, RejectsAFloat16WeightThatOverflows) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,1,2,2] X) => (float16[N,1,2,2] Y) <float[1,1,1,1] w = {1000.0}, float[1] f = {100.0}> {
      W = Cast<to=10>(w)
      k = Cast<to=10>(f)
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", "Y", "a folded weight overflows the weight type");
}

// float 1e-30 * 1e-20 = 1e-50 is below the smallest float (1.4e-45 subnormal): the
// folded weight would be 0 where the original gives 1e-30 for an input of 1e20.
TEST(ConvMulPattern, RejectsAFloatWeightThatUnderflows) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,2,2] X) => (float[N,1,2,2] Y) <float[1,1,1,1] W = {1e-30}, float[1] k = {1e-20}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", "Y", "a folded weight underflows to 0 or a subnormal of the weight type");
}

// 1e-20 * 1e-20 = 1e-40 is a float subnormal: 3 significant bits where the original
// keeps 24 in the product of the convolution output.
TEST(ConvMulPattern, RejectsAFloatWeightThatBecomesSubnormal) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,2,2] X) => (float[N,1,2,2] Y) <float[1,1,1,1] W = {1e-20}, float[1] k = {1e-20}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", "Y", "a folded weight underflows to 0 or a subnormal of the weight type");
}

// The bias scales with the weight: float16 1000 * 100 overflows there too.
TEST(ConvMulPattern, RejectsAFloat16BiasThatOverflows) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,1,2,2] X) => (float16[N,1,2,2] Y)
      <float[1,1,1,1] w = {1.0}, float[1] bias = {1000.0}, float[1] f = {100.0}> {
      W = Cast<to=10>(w)
      B = Cast<to=10>(bias)
      k = Cast<to=10>(f)
      c = Conv<kernel_shape=[1,1]>(X, W, B)
      Y = Mul(c, k)
    })ONNX", "Y", "a folded bias overflows the weight type");
}

// A [2] constant multiplies the last (spatial) axis, not the channels.
TEST(ConvMulPattern, RejectsConstantAlongAnotherAxis) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,2,2] X) => (float[N,2,2,2] Y) <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] k = {2.0, 3.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", "Y", "the other input is not a constant with one value per output channel that keeps the shape");
}

// A constant of higher rank would broadcast the output to a larger shape.
TEST(ConvMulPattern, RejectsConstantThatChangesTheShape) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,2,2] X) => (float[2,N,2,2,2] Y) <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0},
                                                  float[2,1,1,1,1] k = {2.0, 3.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", "Y", "the other input is not a constant with one value per output channel that keeps the shape");
}

TEST(ConvMulPattern, RejectsNonConstantFactor) {
  ExpectNoMatch<ConvMulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,2,2] X, float[2,1,1] k) => (float[N,2,2,2] Y) <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Mul(c, k)
    })ONNX", "Y", "the other input is not a constant with one value per output channel that keeps the shape");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
