#include "onnx_extensions/patterns/expand/expand_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ExpandPattern, RemovesExpandToTheSameShape) {
  ExpectRewrite<ExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) <int64[2] s = {2, 3}> {
      e = Expand(X, s)
      Y = Relu(e)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(ExpandPattern, RejectsRankIncrease) {
  ExpectNoMatch<ExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2,3] Y) <int64[3] s = {3, 2, 3}> {
      Y = Expand(X, s)
    })ONNX", "Y", "the target shape is not the shape of the input");
}

TEST(ExpandPattern, RejectsSymbolicDimension) {
  ExpectNoMatch<ExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) <int64[2] s = {1, 3}> {
      Y = Expand(X, s)
    })ONNX", "Y", "the shape of the input is not static");
}

TEST(ExpandPattern, RejectsComputedShape) {
  ExpectNoMatch<ExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, int64[2] s) => (float[?,?] Y) {
      Y = Expand(X, s)
    })ONNX", "Y", "the shape input is not constant");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
