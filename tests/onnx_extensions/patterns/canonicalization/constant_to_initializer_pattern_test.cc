#include "onnx_extensions/patterns/canonicalization/constant_to_initializer_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConstantToInitializerPattern, MovesTensorValueToAnInitializer) {
  ExpectRewrite<ConstantToInitializerPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) {
      bias = Constant<value = float[3] {0.5, -1.0, 2.0}>()
      Y = Add(X, bias)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) <float[3] bias_cst2init = {0.5, -1.0, 2.0}> {
      Y = Add(X, bias_cst2init)
    })ONNX");
}

TEST(ConstantToInitializerPattern, MovesValueIntsToAnInitializer) {
  ExpectRewrite<ConstantToInitializerPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[3,4] Y) {
      shape = Constant<value_ints = [3, 4]>()
      Y = Reshape(X, shape)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6] X) => (float[3,4] Y) <int64[2] shape_cst2init = {3, 4}> {
      Y = Reshape(X, shape_cst2init)
    })ONNX");
}

TEST(ConstantToInitializerPattern, RejectsConstantWithoutValue) {
  ExpectNoMatch<ConstantToInitializerPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3] X) => (float[3] Y) {
      c = Constant()
      Y = Add(X, c)
    })ONNX", "c", "the Constant value cannot be read");
}

TEST(ConstantToInitializerPattern, RejectsValueFloatOfTypeInt) {
  // onnxruntime types c as float but computes an int64: an int64 initializer does not load.
  ExpectNoMatch<ConstantToInitializerPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3] X) => (float[3] Y) {
      c = Constant<value_float = 0>()
      Y = Add(X, c)
    })ONNX", "c", "the Constant attribute's type is not the one its name says");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
