#include "onnx_extensions/patterns/canonicalization/dropout_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(DropoutPattern, RemovesInferenceDropout) {
  ExpectRewrite<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] Y) <float ratio = {0.1}> {
      d, mask = Dropout(X, ratio)
      Y = Relu(d)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(DropoutPattern, RemovesDropoutWithConstantFalseTrainingMode) {
  ExpectRewrite<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] Y) <float ratio = {0.5}, bool training = {0}> {
      d = Dropout(X, ratio, training)
      Y = Relu(d)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(DropoutPattern, RemovesDropoutWithZeroRatioInAnyMode) {
  ExpectRewrite<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X, bool training) => (float[N,D] Y) <float ratio = {0.0}> {
      d = Dropout(X, ratio, training)
      Y = Relu(d)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X, bool training) => (float[N,D] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(DropoutPattern, RejectsConsumedMask) {
  ExpectNoMatch<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] Y) <float ratio = {0.1}> {
      d, mask = Dropout(X, ratio)
      m = Cast<to=1>(mask)
      Y = Mul(d, m)
    })ONNX", "d", "the mask output is used");
}

TEST(DropoutPattern, RejectsMaskGraphOutput) {
  ExpectNoMatch<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] d, bool[N,D] mask) <float ratio = {0.1}> {
      d, mask = Dropout(X, ratio)
    })ONNX", "d", "the mask output is used");
}

TEST(DropoutPattern, RejectsDynamicTrainingMode) {
  ExpectNoMatch<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X, bool training) => (float[N,D] Y) <float ratio = {0.1}> {
      d = Dropout(X, ratio, training)
      Y = Relu(d)
    })ONNX", "d", "training_mode is not a constant");
}

TEST(DropoutPattern, RejectsConstantTrueTrainingMode) {
  ExpectNoMatch<DropoutPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,D] X) => (float[N,D] Y) <float ratio = {0.1}, bool training = {1}> {
      d = Dropout(X, ratio, training)
      Y = Relu(d)
    })ONNX", "d", "training_mode is true");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
