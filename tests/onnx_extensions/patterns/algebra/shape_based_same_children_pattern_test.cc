#include "onnx_extensions/patterns/algebra/shape_based_same_children_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;
using testing::ApplicationsUntilConvergence;
using testing::ExpectRejects;

TEST(ShapeBasedSameChildrenPattern, MergesExpandsToTheSameShape) {
  ExpectRewrite<ShapeBasedSameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1] X) => (float[2,3] Y1, float[2,3] Y2) <int64[2] s1 = {2, 3}, int64[2] s2 = {1, 3}> {
      a = Relu(X)
      Y1 = Expand(a, s1)
      Y2 = Expand(a, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1] X) => (float[2,3] Y1, float[2,3] Y2) <int64[2] s1 = {2, 3}> {
      a = Relu(X)
      Y1 = Expand(a, s1)
      Y2 = Identity(Y1)
    })ONNX");
}

// A static and a computed target of the same symbolic shape; the third Reshape has
// another shape and stays.
TEST(ShapeBasedSameChildrenPattern, MergesReshapesToTheSameSymbolicShape) {
  ExpectRewrite<ShapeBasedSameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2,3] Y1, float[N,2,3] Y2, float[N,3,2] Y3) <int64[3] s1 = {0, 2, 3}, int64[2] s23 = {2, 3}, int64[3] s3 = {0, 3, 2}> {
      n = Shape<start=0, end=1>(X)
      s2 = Concat<axis=0>(n, s23)
      r1 = Reshape(X, s1)
      r3 = Reshape(X, s3)
      r2 = Reshape(X, s2)
      Y1 = Neg(r1)
      Y2 = Exp(r2)
      Y3 = Abs(r3)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,2,3] Y1, float[N,2,3] Y2, float[N,3,2] Y3) <int64[3] s1 = {0, 2, 3}, int64[3] s3 = {0, 3, 2}> {
      r1 = Reshape(X, s1)
      r3 = Reshape(X, s3)
      Y1 = Neg(r1)
      Y2 = Exp(r1)
      Y3 = Abs(r3)
    })ONNX");
}

TEST(ShapeBasedSameChildrenPattern, RejectsOtherShapes) {
  ExpectNoMatch<ShapeBasedSameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,4] Y1, float[N,8] Y2) <int64[2] s1 = {1, 4}, int64[2] s2 = {1, 8}> {
      Y1 = Expand(X, s1)
      Y2 = Expand(X, s2)
    })ONNX", "Y1", "no two Expand or Reshape nodes of the data give the same known shape");
}

TEST(ShapeBasedSameChildrenPattern, RejectsAnExpandAndAReshape) {
  ExpectNoMatch<ShapeBasedSameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X) => (float[1,4] Y1, float[1,4] Y2) <int64[2] s = {1, 4}> {
      Y1 = Expand(X, s)
      Y2 = Reshape(X, s)
    })ONNX", "Y1", "no two Expand or Reshape nodes of the data give the same known shape");
}

TEST(ShapeBasedSameChildrenPattern, RejectsUnknownOutputShape) {
  ExpectNoMatch<ShapeBasedSameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X, int64[2] s1, int64[2] s2) => (float[?,?] Y1, float[?,?] Y2) {
      Y1 = Expand(X, s1)
      Y2 = Expand(X, s2)
    })ONNX", "Y1", "no two Expand or Reshape nodes of the data give the same known shape");
}

TEST(ShapeBasedSameChildrenPattern, RejectsSingleReader) {
  ExpectNoMatch<ShapeBasedSameChildrenPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,4] Y1) <int64[2] s1 = {1, 4}> {
      Y1 = Expand(X, s1)
    })ONNX", "Y1", "the data input has a single reader");
}

// Three Expands of one shape merge in one rewrite, matched from the first Expand only: the
// others would find the same group (n readers, n matches of n comparisons each).
constexpr std::string_view kThreeExpands = R"ONNX(
  <ir_version: 8, opset_import: ["" : 18]>
  g (float[2,1] X) => (float[2,3] Y1, float[2,3] Y2, float[2,3] Y3, float[2,4] Y4)
    <int64[2] s1 = {2, 3}, int64[2] s2 = {1, 3}, int64[2] s4 = {2, 4}> {
    a = Relu(X)
    Y4 = Expand(a, s4)
    Y1 = Expand(a, s1)
    Y2 = Expand(a, s2)
    Y3 = Expand(a, s1)
  })ONNX";

TEST(ShapeBasedSameChildrenPattern, MergesAGroupOnceFromTheFirstReader) {
  ExpectRewrite<ShapeBasedSameChildrenPattern>(kThreeExpands, R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1] X) => (float[2,3] Y1, float[2,3] Y2, float[2,3] Y3, float[2,4] Y4)
      <int64[2] s1 = {2, 3}, int64[2] s4 = {2, 4}> {
      a = Relu(X)
      Y4 = Expand(a, s4)
      Y1 = Expand(a, s1)
      Y2 = Identity(Y1)
      Y3 = Identity(Y1)
    })ONNX");
  EXPECT_EQ(ApplicationsUntilConvergence(std::make_shared<ShapeBasedSameChildrenPattern>(), kThreeExpands), 1u);
  ExpectRejects(std::make_shared<ShapeBasedSameChildrenPattern>(), kThreeExpands, "Y2",
                "an earlier Expand or Reshape reads the same data");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
