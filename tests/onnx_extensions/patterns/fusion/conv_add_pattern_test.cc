#include "onnx_extensions/patterns/fusion/conv_add_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// One rounding of the bias sum instead of two.
constexpr double kTolerance = 1e-5;

TEST(ConvAddPattern, AddsToTheBias) {
  ExpectRewrite<ConvAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] B = {1.0, -1.0}, float[1,2,1,1] k = {0.5, 3.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W, B)
      Y = Add(k, c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] B2 = {1.5, 2.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W, B2)
    })ONNX", kTolerance);
}

// The weight is kept as it is, even when another Conv reads it.
TEST(ConvAddPattern, BecomesTheBiasOfAConvWithout) {
  ExpectRewrite<ConvAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y, float[N,2,4,4] Z)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2,1,1] k = {0.5, 3.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Add(c, k)
      Z = Conv<kernel_shape=[1,1]>(X, W)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y, float[N,2,4,4] Z)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] B2 = {0.5, 3.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W, B2)
      Z = Conv<kernel_shape=[1,1]>(X, W)
    })ONNX", kTolerance);
}

// An Add of another activation is a residual connection, not a bias.
TEST(ConvAddPattern, RejectsResidualAdd) {
  ExpectNoMatch<ConvAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,2,2] X) => (float[N,2,2,2] Y) <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = Add(c, X)
    })ONNX", "Y", "the other input is not a constant with one value per output channel that keeps the shape");
}

// float16 60000 + 60000 is above the largest float16 (65504): the folded bias would be
// +inf where the original gives 60000 for a convolution output of -60000. The text syntax
// has no float16 literals: the constants are float tensors cast to float16.
TEST(ConvAddPattern, RejectsAFloat16BiasThatOverflows) {
  ExpectNoMatch<ConvAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,1,2,2] X) => (float16[N,1,2,2] Y)
      <float[1,1,1,1] w = {1.0}, float[1] bias = {60000.0}, float[1] f = {60000.0}> {
      W = Cast<to=10>(w)
      B = Cast<to=10>(bias)
      k = Cast<to=10>(f)
      c = Conv<kernel_shape=[1,1]>(X, W, B)
      Y = Add(c, k)
    })ONNX", "Y", "a folded bias overflows the weight type");
}

TEST(ConvAddPattern, RejectsOverridableBias) {
  ExpectNoMatch<ConvAddPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,2,2] X, float[2] B) => (float[N,2,2,2] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2,1,1] k = {0.5, 3.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W, B)
      Y = Add(c, k)
    })ONNX", "Y", "the convolution bias is not a constant");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
