#include "onnx_extensions/patterns/layout/transpose_reshape_transpose_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// T = (2,4,3,5) merged into (2,12,5): groups [0]|[1,2]|[3]. The Reshape moves after the
// second Transpose; the two Transposes become adjacent.
TEST(TransposeReshapeTransposePattern, MovesAMergingReshapeAfter) {
  ExpectRewrite<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,5] X) => (float[2,5,12] Y) <int64[3] s = {2, 12, 5}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1]>(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,5] X) => (float[2,5,12] Y) <int64[3] s2 = {2, 5, 12}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      t = Transpose<perm=[0,3,1,2]>(xt)
      Y = Reshape(t, s2)
    })ONNX");
}

// T = (2,5,6) split into (2,5,2,3): groups [0]|[1]|[2,3]. The Reshape moves before the
// first Transpose, splitting dim 1 of X; R keeps its name.
TEST(TransposeReshapeTransposePattern, MovesASplittingReshapeBefore) {
  ExpectRewrite<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6,5] X) => (float[2,2,5,3] Y) <int64[4] s = {2, 5, 2, 3}> {
      xt = Transpose<perm=[0,2,1]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1,3]>(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6,5] X) => (float[2,2,5,3] Y) <int64[4] s2 = {2, 2, 3, 5}> {
      t = Reshape(X, s2)
      r = Transpose<perm=[0,3,1,2]>(t)
      Y = Transpose<perm=[0,2,1,3]>(r)
    })ONNX");
}

// p1 = [1,2,0] is not an involution: X = (4,6,5), T = (6,5,4) split into (2,3,5,4);
// dim 0 of X is dim inverse(p1)[0] = 2 of T.
TEST(TransposeReshapeTransposePattern, SplitsAlongTheInversePermutation) {
  ExpectRewrite<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,6,5] X) => (float[4,2,5,3] Y) <int64[4] s = {2, 3, 5, 4}> {
      xt = Transpose<perm=[1,2,0]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[3,0,2,1]>(r)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,6,5] X) => (float[4,2,5,3] Y) <int64[4] s2 = {4, 2, 3, 5}> {
      t = Reshape(X, s2)
      r = Transpose<perm=[1,2,3,0]>(t)
      Y = Transpose<perm=[3,0,2,1]>(r)
    })ONNX");
}

TEST(TransposeReshapeTransposePattern, RejectsAGroupWithSeveralDimsOnBothSides) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3,2,4] X) => (float[8,3] Y) <int64[2] s = {3, 8}> {
      xt = Transpose<perm=[1,0,2]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[1,0]>(r)
    })ONNX", "xt", "the Reshape does not only merge or only split dimensions");
}

TEST(TransposeReshapeTransposePattern, RejectsMinusOne) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,5] X) => (float[2,5,12] Y) <int64[3] s = {2, -1, 5}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1]>(r)
    })ONNX", "xt", "the shape of the Reshape has an entry that is not positive");
}

TEST(TransposeReshapeTransposePattern, RejectsASharedReshapeOutput) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,5] X) => (float[2,5,12] Y, float[2,12,5] W) <int64[3] s = {2, 12, 5}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1]>(r)
      W = Relu(r)
    })ONNX", "xt", "the output of the Reshape is not read by a Transpose alone");
}

// Merging removes R, which the graph returns.
TEST(TransposeReshapeTransposePattern, RejectsAMergedReshapeOutputThatIsAGraphOutput) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,5] X) => (float[2,5,12] Y, float[2,12,5] r) <int64[3] s = {2, 12, 5}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1]>(r)
    })ONNX", "xt", "the output of the Reshape has other readers");
}

// Splitting removes T, which the graph returns.
TEST(TransposeReshapeTransposePattern, RejectsASplitFirstTransposeThatIsAGraphOutput) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,6,5] X) => (float[2,2,5,3] Y, float[2,5,6] xt) <int64[4] s = {2, 5, 2, 3}> {
      xt = Transpose<perm=[0,2,1]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1,3]>(r)
    })ONNX", "xt", "the output of the first Transpose has other readers");
}

TEST(TransposeReshapeTransposePattern, RejectsASymbolicShape) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4,5] X) => (float[?,5,12] Y) <int64[3] s = {2, 12, 5}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      r = Reshape(xt, s)
      Y = Transpose<perm=[0,2,1]>(r)
    })ONNX", "xt", "the shape of the first Transpose output is not static");
}

TEST(TransposeReshapeTransposePattern, RejectsAMissingPerm) {
  ExpectNoMatch<TransposeReshapeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4,5] X) => (float[12,5,2] Y) <int64[3] s = {2, 12, 5}> {
      xt = Transpose<perm=[0,2,1,3]>(X)
      r = Reshape(xt, s)
      Y = Transpose(r)
    })ONNX", "xt", "a Transpose has no perm attribute");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
