#include "onnx_extensions/patterns/layout/transpose_transpose_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(TransposeTransposePattern, MergesPermutations) {
  ExpectRewrite<TransposeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[C,B,A] Y) {
      t = Transpose<perm=[1,0,2]>(X)
      Y = Transpose<perm=[2,0,1]>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[C,B,A] Y) {
      Y = Transpose<perm=[2,1,0]>(X)
    })ONNX");
}

// p1 = [1,2,0] is not an involution: the composite is p1[p2[i]] = [1,0,2], not
// p2[p1[i]] = [2,1,0].
TEST(TransposeTransposePattern, ComposesInTheOrderOfTheData) {
  ExpectRewrite<TransposeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[3,2,4] Y) {
      t = Transpose<perm=[1,2,0]>(X)
      Y = Transpose<perm=[0,2,1]>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[3,2,4] Y) {
      Y = Transpose<perm=[1,0,2]>(X)
    })ONNX");
}

TEST(TransposeTransposePattern, CancelsInversePermutationsAndKeepsASharedFirstTranspose) {
  ExpectRewrite<TransposeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y, float[3,4,2] W) {
      t = Transpose<perm=[1,2,0]>(X)
      y = Transpose<perm=[2,0,1]>(t)
      Y = Relu(y)
      W = Neg(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Y, float[3,4,2] W) {
      t = Transpose<perm=[1,2,0]>(X)
      Y = Relu(X)
      W = Neg(t)
    })ONNX");
}

TEST(TransposeTransposePattern, RejectsSharedFirstTransposeWithANonIdentityComposite) {
  ExpectNoMatch<TransposeTransposePattern>(
      R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[4,2,3] Y, float[3,4,2] t) {
      t = Transpose<perm=[1,2,0]>(X)
      Y = Transpose<perm=[1,2,0]>(t)
    })ONNX", "t", "the first Transpose has other readers and the composite is not the identity");
}

// Upstream picks the last Transpose reading T; an earlier one that would cancel does not
// help when T is shared.
TEST(TransposeTransposePattern, ConsidersTheLastTransposeReader) {
  ExpectNoMatch<TransposeTransposePattern>(
      R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y, float[3,2] Z) {
      t = Transpose<perm=[1,0]>(X)
      Y = Transpose<perm=[1,0]>(t)
      Z = Transpose<perm=[0,1]>(t)
    })ONNX", "t", "the first Transpose has other readers and the composite is not the identity");
}

TEST(TransposeTransposePattern, RejectsAReshapeReader) {
  ExpectNoMatch<TransposeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[6] Y) <int64[1] s = {6}> {
      t = Transpose<perm=[1,0]>(X)
      Y = Reshape(t, s)
    })ONNX", "t", "no Transpose reads the output");
}

TEST(TransposeTransposePattern, RejectsASecondTransposeOfAnotherDomain) {
  ExpectNoMatch<TransposeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float[2,3] X) => (float[2,3] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = custom.Transpose<perm=[1,0]>(t)
    })ONNX", "t", "no Transpose reads the output");
}

TEST(TransposeTransposePattern, RejectsAMissingPerm) {
  ExpectNoMatch<TransposeTransposePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2,3] Y) {
      t = Transpose(X)
      Y = Transpose<perm=[1,0]>(t)
    })ONNX", "t", "a Transpose has no perm attribute");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
