#include "onnx_extensions/patterns/reshape/reduce_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ReduceReshapePattern, DropsTheKeptDimensionsInTheReduction) {
  ExpectRewrite<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] Y) <int64[1] axes = {1}, int64[1] flat = {-1}> {
      r = ReduceMean<keepdims=1>(X, axes)
      Y = Reshape(r, flat)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] Y) <int64[1] axes = {1}> {
      Y = ReduceMean<keepdims=0>(X, axes)
    })ONNX");
}

// Upstream never fires for rank(y) > 1 (it compares a list with a tuple).
TEST(ReduceReshapePattern, KeepsTheOtherDimensionsInOrder) {
  ExpectRewrite<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,N,2] X) => (float[4,2] Y) <int64[1] axes = {-2}, int64[2] s = {4, 2}> {
      r = ReduceMax(X, axes)
      Y = Reshape(r, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,N,2] X) => (float[4,2] Y) <int64[1] axes = {-2}> {
      Y = ReduceMax<keepdims=0>(X, axes)
    })ONNX");
}

TEST(ReduceReshapePattern, KeepsTheAxesAttributeOfOldOpsets) {
  ExpectRewrite<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[N,8,3] X) => (float[N,3] Y) <int64[2] s = {0, 3}> {
      r = ReduceMean<axes=[1], keepdims=1>(X)
      Y = Reshape(r, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[N,8,3] X) => (float[N,3] Y) {
      Y = ReduceMean<axes=[1], keepdims=0>(X)
    })ONNX");
}

TEST(ReduceReshapePattern, ReducesEveryAxisToAScalar) {
  ExpectRewrite<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float Y) <int64[0] s = {}> {
      r = ReduceSum(X)
      Y = Reshape(r, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float Y) {
      Y = ReduceSum<keepdims=0>(X)
    })ONNX");
}

TEST(ReduceReshapePattern, RejectsKeepDimsZero) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] Y) <int64[1] axes = {1}, int64[1] flat = {-1}> {
      r = ReduceMean<keepdims=0>(X, axes)
      Y = Reshape(r, flat)
    })ONNX", "r", "the reduction has keepdims=0");
}

TEST(ReduceReshapePattern, RejectsAReductionThatIsAGraphOutput) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] Y, float[N,1] r) <int64[1] axes = {1}, int64[1] flat = {-1}> {
      r = ReduceMean(X, axes)
      Y = Reshape(r, flat)
    })ONNX", "r", "the output of the reduction is not read by a plain Reshape alone, as its data");
}

TEST(ReduceReshapePattern, RejectsASecondReader) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] Y, float[N,1] Z) <int64[1] axes = {1}, int64[1] flat = {-1}> {
      r = ReduceMean(X, axes)
      Y = Reshape(r, flat)
      Z = Neg(r)
    })ONNX", "r", "the output of the reduction is not read by a plain Reshape alone, as its data");
}

TEST(ReduceReshapePattern, RejectsAReshapeOfAnotherDomain) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.example" : 1]>
    g (float[N,8] X) => (float[N] Y) <int64[1] axes = {1}, int64[1] flat = {-1}> {
      r = ReduceMean(X, axes)
      Y = com.example.Reshape(r, flat)
    })ONNX", "r", "the output of the reduction is not read by a plain Reshape alone, as its data");
}

TEST(ReduceReshapePattern, RejectsAPermutation) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3,2] X) => (float[2,4] Y) <int64[1] axes = {1}, int64[2] s = {2, 4}> {
      r = ReduceSum(X, axes)
      Y = Reshape(r, s)
    })ONNX", "r", "the Reshape does not only remove the reduced dimensions");
}

// Upstream turns the (1,) result into a scalar here.
TEST(ReduceReshapePattern, RejectsEmptyAxes) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X) => (float[1] Y) <int64[0] axes = {}, int64[1] s = {1}> {
      r = ReduceSum(X, axes)
      Y = Reshape(r, s)
    })ONNX", "r", "the axes of the reduction are empty");
}

TEST(ReduceReshapePattern, RejectsANoOpReduction) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X) => (float[12] Y) <int64[1] s = {12}> {
      r = ReduceSum<noop_with_empty_axes=1>(X)
      Y = Reshape(r, s)
    })ONNX", "r", "the reduction has no axes and noop_with_empty_axes=1");
}

TEST(ReduceReshapePattern, RejectsComputedAxes) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X, int64[1] axes) => (float[?] Y) <int64[1] s = {-1}> {
      r = ReduceSum(X, axes)
      Y = Reshape(r, s)
    })ONNX", "r", "the axes input of the reduction is not constant");
}

TEST(ReduceReshapePattern, RejectsAReshapeAddingDimensions) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,3] X) => (float[2,2] Y) <int64[1] axes = {1}, int64[2] s = {2, 2}> {
      r = ReduceSum(X, axes)
      Y = Reshape(r, s)
    })ONNX", "r", "the rank of the output is not the rank of the input minus the number of axes");
}

TEST(ReduceReshapePattern, RejectsAnUnknownInputShape) {
  ExpectNoMatch<ReduceReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,?,2] X) => (float[4,2] Y) <int64[1] axes = {1}, int64[2] s = {4, 2}> {
      r = ReduceSum(X, axes)
      Y = Reshape(r, s)
    })ONNX", "r", "the shape of the input or of the output is not known");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
