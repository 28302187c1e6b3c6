#include "onnx_extensions/patterns/collections/gather_shape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(GatherShapePattern, TakesAContiguousRangeOfDims) {
  ExpectRewrite<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64[2] Y) <int64[2] idx = {1, 2}> {
      s = Shape(X)
      Y = Gather(s, idx)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64[2] Y) {
      Y = Shape<start=1, end=3>(X)
    })ONNX");
}

TEST(GatherShapePattern, SqueezesAScalarIndexFromAShapeSlice) {
  ExpectRewrite<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64 Y, int64[3] s) <int64 idx = {-1}> {
      s = Shape<start=1>(X)
      Y = Gather(s, idx)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64 Y, int64[3] s) <int64[1] zero = {0}> {
      s = Shape<start=1>(X)
      t = Shape<start=3, end=4>(X)
      Y = Squeeze(t, zero)
    })ONNX");
}

TEST(GatherShapePattern, RejectsNonContiguousIndices) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64[2] Y) <int64[2] idx = {0, 2}> {
      s = Shape(X)
      Y = Gather(s, idx)
    })ONNX", "Y", "the indices are not consecutive");
}

TEST(GatherShapePattern, RejectsLastThenFirstDim) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64[2] Y) <int64[2] idx = {-1, 0}> {
      s = Shape(X)
      Y = Gather(s, idx)
    })ONNX", "Y", "the indices are not consecutive");
}

TEST(GatherShapePattern, RejectsInt32Index) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64[2] Y) <int32[2] idx = {1, 2}> {
      s = Shape(X)
      Y = Gather(s, idx)
    })ONNX", "Y", "the index is not of type int64");
}

// A shape is 1-D: its only axes are 0 and -1 (1 is out of range, an invalid model); the
// pattern takes axis 0 as written only.
TEST(GatherShapePattern, RejectsGatherAxisMinus1) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[B,S,H,D] X) => (int64[1] Y) <int64[1] idx = {1}> {
      s = Shape(X)
      Y = Gather<axis=-1>(s, idx)
    })ONNX", "Y", "the Gather axis is not 0");
}

TEST(GatherShapePattern, RejectsNegativeIndexWithUnknownRank) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float[N] X) => (int64 Y) <int64 idx = {-1}> {
      u = custom.Unknown(X)
      s = Shape(u)
      Y = Gather(s, idx)
    })ONNX", "Y", "the length of the Shape output is unknown");
}

// end = 10 only bounds the length when the rank is unknown: for a rank-3 input the Shape
// holds 3 dims and -1 is dim 2, not Shape<start=9, end=10>, which is empty (found by review).
TEST(GatherShapePattern, RejectsNegativeIndexPastAnEndBeyondAnUnknownRank) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float[N] X) => (int64 Y) <int64 idx = {-1}> {
      u = custom.Unknown(X)
      s = Shape<start=0, end=10>(u)
      Y = Gather(s, idx)
    })ONNX", "Y", "a negative index needs the rank of the Shape's input");
}

TEST(GatherShapePattern, RejectsOpset14) {
  ExpectNoMatch<GatherShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[B,S,H,D] X) => (int64[2] Y) <int64[2] idx = {1, 2}> {
      s = Shape(X)
      Y = Gather(s, idx)
    })ONNX", "Y", "Shape with start and end needs opset 15");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
