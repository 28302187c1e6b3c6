#include "onnx_extensions/patterns/collections/concat_gather_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ConcatGatherPattern, ReadsTheDimensionFromTheShape) {
  ExpectRewrite<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,H,W] X, int64[1] K) => (int64[1] Y) <int64[1] i = {2}> {
      s = Shape<start=1>(X)
      c = Concat<axis=0>(K, s)
      Y = Gather(c, i)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,H,W] X, int64[1] K) => (int64[1] Y) {
      Y = Shape<start=2, end=3>(X)
    })ONNX");
}

TEST(ConcatGatherPattern, NormalizesANegativeShapeStart) {
  ExpectRewrite<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,H,W] X, int64[1] K) => (int64[1] Y) <int64[1] i = {1}> {
      s = Shape<start=-2>(X)
      c = Concat<axis=0>(K, s)
      Y = Gather(c, i)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,C,H,W] X, int64[1] K) => (int64[1] Y) {
      Y = Shape<start=2, end=3>(X)
    })ONNX");
}

TEST(ConcatGatherPattern, ReturnsAPieceOfLengthOne) {
  ExpectRewrite<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64[1] Y) <int64[1] i = {2}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64[1] Y) {
      Y = Identity(B)
    })ONNX");
}

TEST(ConcatGatherPattern, GathersInsideAPieceAndKeepsASharedConcat) {
  ExpectRewrite<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64[1] Y, int64[3] Z) <int64[1] i = {1}> {
      Z = Concat<axis=0>(A, B)
      Y = Gather(Z, i)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64[1] Y, int64[3] Z) <int64[1] j = {1}> {
      Z = Concat<axis=0>(A, B)
      Y = Gather(A, j)
    })ONNX");
}

TEST(ConcatGatherPattern, RejectsScalarIndex) {
  ExpectNoMatch<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64 Y) <int64 i = {1}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", "Y", "the index does not have shape (1,)");
}

TEST(ConcatGatherPattern, RejectsInt32Index) {
  ExpectNoMatch<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64[1] Y) <int32[1] i = {1}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", "Y", "the index is not of type int64");
}

TEST(ConcatGatherPattern, RejectsTwoDimensionalInput) {
  ExpectNoMatch<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,2] A, int64[1,2] B) => (int64[1,2] Y) <int64[1] i = {1}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", "Y", "a Concat input does not have a known rank of 1");
}

TEST(ConcatGatherPattern, RejectsIndexPastTheEnd) {
  ExpectNoMatch<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2] A, int64[1] B) => (int64[1] Y) <int64[1] i = {3}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", "Y", "the index is past the end of the Concat");
}

TEST(ConcatGatherPattern, RejectsSymbolicLengthBeforeTheIndex) {
  ExpectNoMatch<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[M] A, int64[1] B) => (int64[1] Y) <int64[1] i = {1}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", "Y", "a Concat input up to the indexed one has a symbolic length");
}

TEST(ConcatGatherPattern, RejectsNegativeIndex) {
  ExpectNoMatch<ConcatGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] A, int64[2] B) => (int64[1] Y) <int64[1] i = {-1}> {
      c = Concat<axis=0>(A, B)
      Y = Gather(c, i)
    })ONNX", "Y", "the index is negative");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
