#include "onnx_extensions/patterns/layout/transpose_gather_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(TransposeGatherPattern, GathersTheInputAlongThePermutedAxis) {
  ExpectRewrite<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,16,80] X) => (float[A,16,80] Y) <int64 ind = {1}> {
      t = Transpose<perm=[1,0,2,3]>(X)
      Y = Gather<axis=0>(t, ind)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,16,80] X) => (float[A,16,80] Y) <int64 ind = {1}> {
      Y = Gather<axis=1>(X, ind)
    })ONNX");
}

// T = (4,2,3); Gather axis 1 is axis 0 of X; the other axes [2, 1] are not increasing.
TEST(TransposeGatherPattern, TransposesTheSmallerResultWhenTheOtherAxesAreReordered) {
  ExpectRewrite<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[4,3] Y) <int64 ind = {-1}> {
      t = Transpose<perm=[2,0,1]>(X)
      Y = Gather<axis=1>(t, ind)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[4,3] Y) <int64 ind = {-1}> {
      g = Gather<axis=0>(X, ind)
      Y = Transpose<perm=[1,0]>(g)
    })ONNX");
}

// axis -2 of T = (3,4,2) is axis 1, i.e. axis p[1] = 2 of X (upstream does not normalize).
TEST(TransposeGatherPattern, NormalizesANegativeAxis) {
  ExpectRewrite<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[3,2] Y) <int64 ind = {3}> {
      t = Transpose<perm=[1,2,0]>(X)
      Y = Gather<axis=-2>(t, ind)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[3,2] Y) <int64 ind = {3}> {
      g = Gather<axis=2>(X, ind)
      Y = Transpose<perm=[1,0]>(g)
    })ONNX");
}

TEST(TransposeGatherPattern, KeepsASharedTranspose) {
  ExpectRewrite<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2] Y, float[3,2] W) <int64 ind = {2}> {
      t = Transpose<perm=[1,0]>(X)
      W = Neg(t)
      Y = Gather<axis=0>(t, ind)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2] Y, float[3,2] W) <int64 ind = {2}> {
      t = Transpose<perm=[1,0]>(X)
      Y = Gather<axis=1>(X, ind)
      W = Neg(t)
    })ONNX");
}

TEST(TransposeGatherPattern, RejectsAOneDimensionalIndex) {
  ExpectNoMatch<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[1,2] Y) <int64[1] ind = {1}> {
      t = Transpose<perm=[1,0]>(X)
      Y = Gather<axis=0>(t, ind)
    })ONNX", "Y", "the index does not have the known rank 0");
}

TEST(TransposeGatherPattern, RejectsAnIndexOfUnknownRank) {
  ExpectNoMatch<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, int64[] i) => (float[] Y) {
      t = Transpose<perm=[1,0]>(X)
      Y = Gather<axis=0>(t, i)
    })ONNX", "Y", "the index does not have the known rank 0");
}

TEST(TransposeGatherPattern, RejectsAReshapeProducer) {
  ExpectNoMatch<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2] Y) <int64[2] s = {3, 2}, int64 ind = {1}> {
      t = Reshape(X, s)
      Y = Gather<axis=0>(t, ind)
    })ONNX", "Y", "the data input is not produced by a Transpose");
}

TEST(TransposeGatherPattern, RejectsAMissingPerm) {
  ExpectNoMatch<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[2] Y) <int64 ind = {1}> {
      t = Transpose(X)
      Y = Gather<axis=0>(t, ind)
    })ONNX", "Y", "a Transpose has no perm attribute");
}

TEST(TransposeGatherPattern, RejectsAnIndexComputedAfterASharedTranspose) {
  ExpectNoMatch<TransposeGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X, int64 i) => (float[2] Y, float[3,2] W) {
      t = Transpose<perm=[1,0]>(X)
      W = Neg(t)
      j = Abs(i)
      Y = Gather<axis=0>(t, j)
    })ONNX", "Y", "the Transpose has other readers and the index is computed after it");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
