#include "onnx_extensions/patterns/layout/shape_transpose_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ShapeTransposePattern, GathersTheInputShapeInPermOrder) {
  ExpectRewrite<ShapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[3] Y) {
      t = Transpose<perm=[2,0,1]>(X)
      Y = Shape(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[3] Y) <int64[3] idx = {2, 0, 1}> {
      sx = Shape(X)
      Y = Gather<axis=0>(sx, idx)
    })ONNX");
}

// start=-2 on rank 3 is 1: p[1:3] = [0, 1].
TEST(ShapeTransposePattern, ResolvesStartAndEnd) {
  ExpectRewrite<ShapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[2] Y) {
      t = Transpose<perm=[2,0,1]>(X)
      Y = Shape<start=-2, end=10>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[2] Y) <int64[2] idx = {0, 1}> {
      sx = Shape(X)
      Y = Gather<axis=0>(sx, idx)
    })ONNX");
}

TEST(ShapeTransposePattern, KeepsASharedTranspose) {
  ExpectRewrite<ShapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[2] Y, float[B,A] t) {
      t = Transpose<perm=[1,0]>(X)
      Y = Shape(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[2] Y, float[B,A] t) <int64[2] idx = {1, 0}> {
      t = Transpose<perm=[1,0]>(X)
      sx = Shape(X)
      Y = Gather<axis=0>(sx, idx)
    })ONNX");
}

TEST(ShapeTransposePattern, RejectsAReshapeInput) {
  ExpectNoMatch<ShapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,6] X) => (int64[3] Y) <int64[3] s = {0, 2, 3}> {
      r = Reshape(X, s)
      Y = Shape(r)
    })ONNX", "Y", "the input is not produced by a Transpose");
}

TEST(ShapeTransposePattern, RejectsAnEmptyRange) {
  ExpectNoMatch<ShapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[0] Y) {
      t = Transpose<perm=[2,0,1]>(X)
      Y = Shape<start=2, end=1>(t)
    })ONNX", "Y", "the Shape selects no dimension");
}

TEST(ShapeTransposePattern, RejectsAMissingPerm) {
  ExpectNoMatch<ShapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[3] Y) {
      t = Transpose(X)
      Y = Shape(t)
    })ONNX", "Y", "a Transpose has no perm attribute");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
