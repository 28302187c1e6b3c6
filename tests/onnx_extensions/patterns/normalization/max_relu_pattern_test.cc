#include "onnx_extensions/patterns/normalization/max_relu_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(MaxReluPattern, ReplacesMaxWithZeroFirst) {
  ExpectRewrite<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    max_relu (float[3,3] X) => (float[3,3] Y) <float[1] zero = {0.0}> {
      Y = Max(zero, X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    max_relu (float[3,3] X) => (float[3,3] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(MaxReluPattern, ReplacesMaxOfInt32WithAScalarZero) {
  ExpectRewrite<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int32[N] X) => (int32[N] Y) <int32 zero = {0}> {
      Y = Max(X, zero)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int32[N] X) => (int32[N] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(MaxReluPattern, RejectsAnotherConstant) {
  ExpectNoMatch<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,3] X) => (float[3,3] Y) <float[1] one = {1.0}> {
      Y = Max(X, one)
    })ONNX", "Y", "no input is a constant scalar 0");
}

TEST(MaxReluPattern, RejectsThreeInputs) {
  ExpectNoMatch<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,3] X, float[3,3] Z) => (float[3,3] Y) <float[1] zero = {0.0}> {
      Y = Max(X, Z, zero)
    })ONNX", "Y", "the Max does not have exactly two inputs");
}

TEST(MaxReluPattern, RejectsFloat64) {
  ExpectNoMatch<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[3,3] X) => (double[3,3] Y) <double[1] zero = {0.0}> {
      Y = Max(X, zero)
    })ONNX", "Y", "the element type is not float, float16, int16 or int32");
}

TEST(MaxReluPattern, RejectsIntegersBeforeOpset14) {
  ExpectNoMatch<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int32[3] X) => (int32[3] Y) <int32[1] zero = {0}> {
      Y = Max(X, zero)
    })ONNX", "Y", "Relu takes int16 and int32 only from opset 14");
}

TEST(MaxReluPattern, RejectsTwoZeros) {
  ExpectNoMatch<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g () => (float[1] Y) <float[1] zero = {0.0}, float[1] zero2 = {0.0}> {
      Y = Max(zero, zero2)
    })ONNX", "Y", "both inputs are the constant 0");
}

// Max broadcasts a scalar X with a (1,) zero to (1,); Relu keeps ().
TEST(MaxReluPattern, RejectsAScalarInputWithAVectorZero) {
  ExpectNoMatch<MaxReluPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (float[1] Y) <float[1] zero = {0.0}> {
      Y = Max(X, zero)
    })ONNX", "Y", "the input may have a lower rank than the constant 0");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
