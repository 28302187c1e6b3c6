#include "onnx_extensions/patterns/collections/slice_slice_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SliceSlicePattern, MergesSlicesOnDisjointAxes) {
  ExpectRewrite<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X) => (float[N,4,3] Y) <int64[1] s1 = {2}, int64[1] e1 = {6}, int64[1] a1 = {1}, int64[1] s2 = {0}, int64[1] e2 = {3}, int64[1] a2 = {2}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X) => (float[N,4,3] Y) <int64[2] st = {2, 0}, int64[2] en = {6, 3}, int64[2] ax = {1, 2}> {
      Y = Slice(X, st, en, ax)
    })ONNX");
}

TEST(SliceSlicePattern, ConcatenatesVariableBoundsAndFillsMissingSteps) {
  ExpectRewrite<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X, int32[1] e2) => (float[N,?,?] Y) <int32[1] s1 = {2}, int32[1] e1 = {6}, int32[1] a1 = {-2}, int32[1] s2 = {0}, int32[1] a2 = {2}, int32[1] st2 = {2}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2, st2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X, int32[1] e2) => (float[N,?,?] Y) <int32[1] e1 = {6}, int32[2] st = {2, 0}, int32[2] ax = {-2, 2}, int32[2] steps = {1, 2}> {
      en = Concat<axis=0>(e1, e2)
      Y = Slice(X, st, en, ax, steps)
    })ONNX");
}

TEST(SliceSlicePattern, RejectsTheSameAxisTwice) {
  ExpectNoMatch<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X) => (float[N,?,6] Y) <int64[1] s1 = {2}, int64[1] e1 = {6}, int64[1] a1 = {1}, int64[1] s2 = {0}, int64[1] e2 = {3}, int64[1] a2 = {1}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2)
    })ONNX", "Y", "the two Slices share an axis");
}

TEST(SliceSlicePattern, RejectsTheSameAxisWrittenNegative) {
  ExpectNoMatch<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6,5] X) => (float[N,8,6,?] Y) <int64[1] s1 = {1}, int64[1] e1 = {4}, int64[1] a1 = {-1}, int64[1] s2 = {0}, int64[1] e2 = {2}, int64[1] a2 = {3}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2)
    })ONNX", "Y", "the two Slices share an axis");
}

TEST(SliceSlicePattern, RejectsSharedIntermediate) {
  ExpectNoMatch<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X) => (float[N,4,3] Y, float[N,4,6] t) <int64[1] s1 = {2}, int64[1] e1 = {6}, int64[1] a1 = {1}, int64[1] s2 = {0}, int64[1] e2 = {3}, int64[1] a2 = {2}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2)
    })ONNX", "Y", "the first Slice output has another reader");
}

TEST(SliceSlicePattern, RejectsVariableAxes) {
  ExpectNoMatch<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X, int64[1] a2) => (float[?,?,?] Y) <int64[1] s1 = {2}, int64[1] e1 = {6}, int64[1] a1 = {1}, int64[1] s2 = {0}, int64[1] e2 = {3}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2)
    })ONNX", "Y", "an axes input is not constant");
}

TEST(SliceSlicePattern, RejectsMissingAxes) {
  ExpectNoMatch<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X) => (float[?,?,?] Y) <int64[1] s1 = {2}, int64[1] e1 = {6}, int64[1] a1 = {1}, int64[1] s2 = {0}, int64[1] e2 = {3}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2)
    })ONNX", "Y", "the second Slice has no axes input");
}

TEST(SliceSlicePattern, RejectsMixedIntegerTypes) {
  ExpectNoMatch<SliceSlicePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,6] X) => (float[N,4,3] Y) <int64[1] s1 = {2}, int64[1] e1 = {6}, int64[1] a1 = {1}, int32[1] s2 = {0}, int32[1] e2 = {3}, int32[1] a2 = {2}> {
      t = Slice(X, s1, e1, a1)
      Y = Slice(t, s2, e2, a2)
    })ONNX", "Y", "the Slice parameters do not all have the same integer type");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
