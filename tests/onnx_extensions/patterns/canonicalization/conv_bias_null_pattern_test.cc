#include "onnx_extensions/patterns/canonicalization/conv_bias_null_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConvBiasNullPattern, RemovesZeroBias) {
  ExpectRewrite<ConvBiasNullPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,6,6] Y) <float[4] B = {0.0, 0.0, 0.0, 0.0}> {
      Y = Conv<kernel_shape=[3,3]>(X, W, B)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,6,6] Y) {
      Y = Conv<kernel_shape=[3,3]>(X, W)
    })ONNX");
}

TEST(ConvBiasNullPattern, RejectsNonZeroBias) {
  ExpectNoMatch<ConvBiasNullPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,6,6] Y) <float[4] B = {0.0, 0.1, 0.0, 0.0}> {
      Y = Conv<kernel_shape=[3,3]>(X, W, B)
    })ONNX", "Y", "the bias has a non-zero element");
}

TEST(ConvBiasNullPattern, RejectsBiasGraphInput) {
  ExpectNoMatch<ConvBiasNullPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W, float[4] B) => (float[N,4,6,6] Y) {
      Y = Conv<kernel_shape=[3,3]>(X, W, B)
    })ONNX", "Y", "the bias is not a computable constant");
}

TEST(ConvBiasNullPattern, RejectsConvWithoutBias) {
  ExpectNoMatch<ConvBiasNullPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,8,8] X, float[4,3,3,3] W) => (float[N,4,6,6] Y) {
      Y = Conv<kernel_shape=[3,3]>(X, W)
    })ONNX", "Y", "the Conv has no bias input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
