#include "onnx_extensions/patterns/collections/gather_concat_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(GatherConcatPattern, ShiftsTheIndexIntoTheVariablePiece) {
  ExpectRewrite<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[5] X) => (int64 Y) <int64[2] C1 = {10, 20}, int64[3] C2 = {30, 40, 50}, int64 idx = {4}> {
      z = Concat<axis=0>(C1, X, C2)
      Y = Gather<axis=0>(z, idx)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[5] X) => (int64 Y) <int64 idx2 = {2}> {
      Y = Gather<axis=0>(X, idx2)
    })ONNX");
}

TEST(GatherConcatPattern, KeepsInt32IndicesAndASymbolicLastPiece) {
  ExpectRewrite<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N] X) => (float[2] Y, float[?] Z) <float[2] C = {1.0, 2.0}, int32[2] idx = {2, 4}> {
      Z = Concat<axis=0>(C, X)
      Y = Gather(Z, idx)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N] X) => (float[2] Y, float[?] Z) <float[2] C = {1.0, 2.0}, int32[2] idx2 = {0, 2}> {
      Z = Concat<axis=0>(C, X)
      Y = Gather(X, idx2)
    })ONNX");
}

TEST(GatherConcatPattern, RejectsIndexInAConstantPiece) {
  ExpectNoMatch<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[5] X) => (int64 Y) <int64[2] C1 = {10, 20}, int64[3] C2 = {30, 40, 50}, int64 idx = {8}> {
      z = Concat<axis=0>(C1, X, C2)
      Y = Gather<axis=0>(z, idx)
    })ONNX", "Y", "an index does not address the non-constant Concat input");
}

TEST(GatherConcatPattern, RejectsTwoVariablePieces) {
  ExpectNoMatch<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[5] X, int64[2] W) => (int64 Y) <int64 idx = {1}> {
      z = Concat<axis=0>(W, X)
      Y = Gather<axis=0>(z, idx)
    })ONNX", "Y", "the Concat does not have exactly one non-constant input");
}

TEST(GatherConcatPattern, RejectsGatherAxis1) {
  ExpectNoMatch<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,5] X) => (int64[2] Y) <int64[2,2] C = {1, 2, 3, 4}, int64 idx = {3}> {
      z = Concat<axis=1>(C, X)
      Y = Gather<axis=1>(z, idx)
    })ONNX", "Y", "the Gather axis is not 0");
}

TEST(GatherConcatPattern, RejectsConcatAxis1) {
  ExpectNoMatch<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,5] X) => (int64[7] Y) <int64[2,2] C = {1, 2, 3, 4}, int64 idx = {1}> {
      z = Concat<axis=1>(C, X)
      Y = Gather<axis=0>(z, idx)
    })ONNX", "Y", "the Concat axis is not 0");
}

TEST(GatherConcatPattern, RejectsTwoDimensionalIndex) {
  ExpectNoMatch<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[5] X) => (int64[1,2] Y) <int64[2] C1 = {10, 20}, int64[1,2] idx = {2, 3}> {
      z = Concat<axis=0>(C1, X)
      Y = Gather<axis=0>(z, idx)
    })ONNX", "Y", "the index has a rank above 1");
}

TEST(GatherConcatPattern, RejectsNegativeIndex) {
  ExpectNoMatch<GatherConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[5] X) => (int64 Y) <int64[2] C1 = {10, 20}, int64 idx = {-1}> {
      z = Concat<axis=0>(C1, X)
      Y = Gather<axis=0>(z, idx)
    })ONNX", "Y", "an index does not address the non-constant Concat input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
