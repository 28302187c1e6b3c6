#include "onnx_extensions/patterns/layout/transpose_equal_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(TransposeEqualReshapePattern, ReshapesWhenOnlyOnesMove) {
  ExpectRewrite<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,1,5] X) => (float[3,1,2,5] Y) {
      Y = Transpose<perm=[0,2,1,3]>(X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,1,5] X) => (float[3,1,2,5] Y) <int64[4] s = {0, 1, 2, 0}> {
      Y = Reshape(X, s)
    })ONNX");
}

// The one moved dim that is not 1 is symbolic: -1 stands for it.
TEST(TransposeEqualReshapePattern, UsesMinusOneForTheSymbolicMovedDim) {
  ExpectRewrite<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,S,1,8] X) => (float[2,S,1,1,8] Y) {
      Y = Transpose<perm=[0,2,3,1,4]>(X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,1,S,1,8] X) => (float[2,S,1,1,8] Y) <int64[5] s = {0, -1, 1, 1, 0}> {
      Y = Reshape(X, s)
    })ONNX");
}

// B may be 0 at run time: Reshape cannot infer the -1 of {0, -1, 1, 1, 0} for an empty X,
// which the Transpose moves without trouble (found by review).
TEST(TransposeEqualReshapePattern, RejectsAMinusOneBesideASymbolicDim) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,1,S,1,8] X) => (float[B,S,1,1,8] Y) {
      Y = Transpose<perm=[0,2,3,1,4]>(X)
    })ONNX", "Y", "another dim may be 0 (an empty tensor), where the -1 of the Reshape cannot be inferred");
}

TEST(TransposeEqualReshapePattern, RejectsTwoRealDimsSwapping) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,4,5] X) => (float[3,4,2,5] Y) {
      Y = Transpose<perm=[0,2,1,3]>(X)
    })ONNX", "Y", "the Transpose moves more than one dimension that may differ from 1");
}

// Reshape-1 takes its shape as an attribute (found by the graph fuzzer: the rewrite gave
// a Reshape with a shape input in an opset-3 model).
TEST(TransposeEqualReshapePattern, RejectsOpsetsBeforeTheShapeInput) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 4]>
    g (float[3,2,1,5] X) => (float[3,1,2,5] Y) {
      Y = Transpose<perm=[0,2,1,3]>(X)
    })ONNX", "Y", "the opset is older than 5");
}

// A and B may be anything but 1.
TEST(TransposeEqualReshapePattern, RejectsTwoSymbolicMovedDims) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,1,B] X) => (float[B,1,A] Y) {
      Y = Transpose<perm=[2,1,0]>(X)
    })ONNX", "Y", "the Transpose moves more than one dimension that may differ from 1");
}

TEST(TransposeEqualReshapePattern, RejectsAnUnknownShape) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,?] X) => (float[?,3] Y) {
      Y = Transpose<perm=[1,0]>(X)
    })ONNX", "Y", "the shape of the input is not known");
}

// r = Reshape(W, [-1, D]) is [1, D] for D >= 1 but [0, 1] for D = 0: its shape is not known
// and the Transpose is not a move of ones.
TEST(TransposeEqualReshapePattern, RejectsAReshapeThatAnEmptyDimChanges) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[D,1] W) => (float[?,?] Y) <int64[1] m1 = {-1}> {
      d = Shape<start = 0, end = 1>(W)
      c = Concat<axis = 0>(m1, d)
      r = Reshape(W, c)
      Y = Transpose<perm = [1, 0]>(r)
    })ONNX", "Y", "the shape of the input is not known");
}

// A moved 0 would be read by Reshape as "copy the input dim".
TEST(TransposeEqualReshapePattern, RejectsAnEmptyDim) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[0,1] X) => (float[1,0] Y) {
      Y = Transpose<perm=[1,0]>(X)
    })ONNX", "Y", "the input has a dimension of size 0");
}

TEST(TransposeEqualReshapePattern, RejectsAMissingPerm) {
  ExpectNoMatch<TransposeEqualReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,3] X) => (float[3,1] Y) {
      Y = Transpose(X)
    })ONNX", "Y", "a Transpose has no perm attribute");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
