#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRejects;
using testing::ExpectRewrite;

TEST(GathersSplitPattern, SplitsAndSqueezesScalarGathers) {
  ExpectRewrite<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N] Y) <int64 i0 = {0}, int64 i1 = {1}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=1>(X, i1)
      Y = Sub(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N] Y) <int64[1] ax = {1}> {
      a2, b2 = Split<axis=1, num_outputs=2>(X)
      a = Squeeze(a2, ax)
      b = Squeeze(b2, ax)
      Y = Sub(a, b)
    })ONNX");
}

TEST(GathersSplitPattern, SplitsOneElementIndicesWithSizesBeforeOpset18) {
  ExpectRewrite<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3,N] X) => (float[1,N] A, float[1,N] B, float[1,N] C, float[2,N] D) <int64[1] i0 = {0}, int64[1] i1 = {1}, int64[1] i2 = {2}, int64[2] k = {2, 0}> {
      C = Gather(X, i2)
      A = Gather(X, i0)
      D = Gather(X, k)
      B = Gather(X, i1)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[3,N] X) => (float[1,N] A, float[1,N] B, float[1,N] C, float[2,N] D) <int64[2] k = {2, 0}, int64[3] ones = {1, 1, 1}> {
      A, B, C = Split<axis=0>(X, ones)
      D = Gather(X, k)
    })ONNX");
}

TEST(GathersSplitPattern, RejectsIncompletePartition) {
  ExpectNoMatch<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N] Y) <int64[1] i0 = {0}, int64[1] i2 = {2}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=1>(X, i2)
      Y = Sub(a, b)
    })ONNX", "a", "the constant indices are not 0, 1, ..., k-1");
}

TEST(GathersSplitPattern, RejectsSymbolicDimension) {
  ExpectNoMatch<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M] X) => (float[N] Y) <int64 i0 = {0}, int64 i1 = {1}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=1>(X, i1)
      Y = Sub(a, b)
    })ONNX", "a", "the dimension along the axis is not static");
}

TEST(GathersSplitPattern, RejectsDifferentAxes) {
  ExpectNoMatch<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2] X) => (float[2] Y) <int64 i0 = {0}, int64 i1 = {1}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=0>(X, i1)
      Y = Sub(a, b)
    })ONNX", "a", "the Gathers use different axes");
}

TEST(GathersSplitPattern, RejectsRepeatedIndex) {
  ExpectNoMatch<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N] Y) <int64 i0 = {0}, int32 j0 = {0}, int64 i1 = {1}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=1>(X, j0)
      c = Gather<axis=1>(X, i1)
      s = Sub(a, b)
      Y = Add(s, c)
    })ONNX", "a", "two Gathers use the same index");
}

TEST(GathersSplitPattern, RejectsMixedIndexRanks) {
  ExpectNoMatch<GathersSplitPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,2] X) => (float[2,1] Y) <int64 i0 = {0}, int64[1] i1 = {1}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=1>(X, i1)
      Y = Sub(b, a)
    })ONNX", "a", "the constant indices do not all have the same rank");
}

// Matched from the first Gather of the data only: each would look at all of them, n^2 for
// n Gathers of one value.
TEST(GathersSplitPattern, MatchesFromTheFirstGatherOnly) {
  ExpectRejects(std::make_shared<GathersSplitPattern>(), R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N] Y) <int64 i0 = {0}, int64 i1 = {1}> {
      a = Gather<axis=1>(X, i0)
      b = Gather<axis=1>(X, i1)
      Y = Sub(a, b)
    })ONNX", "b", "an earlier Gather reads the same data");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
