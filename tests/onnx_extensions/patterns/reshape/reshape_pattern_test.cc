#include "onnx_extensions/patterns/reshape/reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ReshapePattern, RemovesReshapeToTheSameStaticShape) {
  ExpectRewrite<ReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y) <int64[3] s = {2, 3, 4}> {
      r = Reshape(X, s)
      Y = Relu(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(ReshapePattern, RejectsSymbolicDimension) {
  ExpectNoMatch<ReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <int64[2] s = {3, 4}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape of the input is not static");
}

TEST(ReshapePattern, RejectsShapeFromAGraphInput) {
  ExpectNoMatch<ReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, int64[2] s) => (float[?,?] Y) {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape input is not constant");
}

TEST(ReshapePattern, RejectsOtherShape) {
  ExpectNoMatch<ReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2] Y) <int64[2] s = {3, 2}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape is not the shape of the input");
}

TEST(ReshapePattern, RejectsInferredDimension) {
  ExpectNoMatch<ReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <int64[2] s = {2, -1}> {
      Y = Reshape(X, s)
    })ONNX", "Y", "the shape is not the shape of the input");
}

TEST(ReshapePattern, RejectsAllowZero) {
  ExpectNoMatch<ReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <int64[2] s = {2, 3}> {
      Y = Reshape<allowzero=1>(X, s)
    })ONNX", "Y", "the Reshape has allowzero=1");
}

TEST(ReshapePattern, RejectsTheShapeAttributeForm) {
  ExpectNoMatch<ReshapePattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 4]>
    g (float[2,3] X) => (float[2,3] Y) {
      Y = Reshape<shape=[2, 3]>(X)
    })ONNX", "Y", "the node is not a default-domain Reshape with two inputs");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
