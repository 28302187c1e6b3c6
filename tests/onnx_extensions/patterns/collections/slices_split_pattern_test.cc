#include "onnx_extensions/patterns/collections/slices_split_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRejects;
using testing::ExpectRewrite;

TEST(SlicesSplitPattern, SplitsContiguousSlices) {
  ExpectRewrite<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,3] A, float[N,5] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] e = {8}, int64[1] ax = {1}> {
      A = Slice(X, z, t, ax)
      B = Slice(X, t, e, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,3] A, float[N,5] B) <int64[2] sizes = {3, 5}> {
      A, B = Split<axis=1>(X, sizes)
    })ONNX");
}

TEST(SlicesSplitPattern, SortsByStartAndNormalizesBounds) {
  ExpectRewrite<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,N] X) => (float[2,N] A, float[4,N] B) <int64[1] z = {0}, int64[1] m = {-4}, int64[1] two = {2}, int64[1] big = {9223372036854775807}, int64[1] ax = {-2}, int64[1] one = {1}> {
      B = Slice(X, m, big, ax, one)
      A = Slice(X, z, two, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,N] X) => (float[2,N] A, float[4,N] B) <int64[2] sizes = {2, 4}> {
      A, B = Split<axis=0>(X, sizes)
    })ONNX");
}

TEST(SlicesSplitPattern, RejectsAGap) {
  ExpectNoMatch<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,3] A, float[N,4] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] f = {4}, int64[1] e = {8}, int64[1] ax = {1}> {
      A = Slice(X, z, t, ax)
      B = Slice(X, f, e, ax)
    })ONNX", "A", "the Slices do not partition the axis into contiguous pieces");
}

TEST(SlicesSplitPattern, RejectsAnEndBeyondTheAxis) {
  ExpectNoMatch<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] A, float[N,5] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] e = {10}, int64[1] ax = {1}> {
      A = Slice(X, z, e, ax)
      B = Slice(X, t, e, ax)
    })ONNX", "A", "the Slices do not partition the axis into contiguous pieces");
}

TEST(SlicesSplitPattern, RejectsStep2) {
  ExpectNoMatch<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,2] A, float[N,5] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] e = {8}, int64[1] ax = {1}, int64[1] st = {2}> {
      A = Slice(X, z, t, ax, st)
      B = Slice(X, t, e, ax)
    })ONNX", "A", "a Slice is not on one constant axis with step 1");
}

TEST(SlicesSplitPattern, RejectsDifferentAxes) {
  ExpectNoMatch<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] X) => (float[8,3] A, float[5,8] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] e = {8}, int64[1] a0 = {0}, int64[1] a1 = {1}> {
      A = Slice(X, z, t, a1)
      B = Slice(X, t, e, a0)
    })ONNX", "A", "the Slices use different axes");
}

TEST(SlicesSplitPattern, RejectsSymbolicDimension) {
  ExpectNoMatch<SlicesSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M] X) => (float[N,3] A, float[N,?] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] e = {8}, int64[1] ax = {1}> {
      A = Slice(X, z, t, ax)
      B = Slice(X, t, e, ax)
    })ONNX", "A", "the dimension along the axis is not static");
}

// Matched from the first Slice of the data only: each would look at all of them, n^2 for
// n Slices of one value.
TEST(SlicesSplitPattern, MatchesFromTheFirstSliceOnly) {
  ExpectRejects(std::make_shared<SlicesSplitPattern>(), R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,3] A, float[N,5] B) <int64[1] z = {0}, int64[1] t = {3}, int64[1] e = {8}, int64[1] ax = {1}> {
      A = Slice(X, z, t, ax)
      B = Slice(X, t, e, ax)
    })ONNX", "B", "an earlier Slice reads the same data");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
