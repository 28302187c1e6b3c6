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
