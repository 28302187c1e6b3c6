#include "onnx_extensions/patterns/elimination/flatten_same_shape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(FlattenSameShapePattern, RemovesFlattenOfAMatrix) {
  ExpectRewrite<FlattenSameShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      f = Flatten<axis=1>(X)
      Y = Relu(f)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(FlattenSameShapePattern, RejectsRank4) {
  ExpectNoMatch<FlattenSameShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6,1,1] X) => (float[N,6] Y) {
      Y = Flatten(X)
    })ONNX", "Y", "the input has no known rank 2");
}

TEST(FlattenSameShapePattern, RejectsAxis0) {
  ExpectNoMatch<FlattenSameShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[1,?] Y) {
      Y = Flatten<axis=0>(X)
    })ONNX", "Y", "the axis is not 1");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
