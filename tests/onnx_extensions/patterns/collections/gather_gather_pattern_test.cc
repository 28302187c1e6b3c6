#include "onnx_extensions/patterns/collections/gather_gather_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(GatherGatherPattern, ComposesTheIndices) {
  ExpectRewrite<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[3,4] Z) <int64[5] p = {1, 3, 0, 2, 4}, int64[3] q = {2, 0, 1}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[3,4] Z) <int64[3] pq = {0, 1, 3}> {
      Z = Gather<axis=0>(X, pq)
    })ONNX");
}

TEST(GatherGatherPattern, ComposesNegativeScalarIndexAndKeepsSharedGather) {
  ExpectRewrite<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[4] Z, float[3,4] y) <int32[3] p = {4, -1, 2}, int64 q = {-2}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[4] Z, float[3,4] y) <int32[3] p = {4, -1, 2}, int64 pq = {-1}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(X, pq)
    })ONNX");
}

TEST(GatherGatherPattern, RejectsScalarInnerIndex) {
  ExpectNoMatch<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float Z) <int64 p = {1}, int64 q = {2}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", "Z", "the inner index is not 1-D");
}

TEST(GatherGatherPattern, RejectsTwoDimensionalInnerIndex) {
  ExpectNoMatch<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[2,4] Z) <int64[2,2] p = {1, 2, 3, 4}, int64[1] q = {1}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", "Z", "the inner index is not 1-D");
}

TEST(GatherGatherPattern, RejectsAxis1) {
  ExpectNoMatch<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[5,1] Z) <int64[2] p = {1, 3}, int64[1] q = {1}> {
      y = Gather<axis=1>(X, p)
      Z = Gather<axis=1>(y, q)
    })ONNX", "Z", "the outer Gather axis is not 0");
}

TEST(GatherGatherPattern, RejectsInnerAxis1) {
  ExpectNoMatch<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[1,2] Z) <int64[2] p = {1, 3}, int64[1] q = {1}> {
      y = Gather<axis=1>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", "Z", "the inner Gather axis is not 0");
}

TEST(GatherGatherPattern, RejectsVariableOuterIndex) {
  ExpectNoMatch<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X, int64[2] q) => (float[2,4] Z) <int64[3] p = {1, 3, 0}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", "Z", "the outer index is not constant");
}

TEST(GatherGatherPattern, RejectsOuterIndexOutOfRange) {
  ExpectNoMatch<GatherGatherPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,4] X) => (float[1,4] Z) <int64[3] p = {1, 3, 0}, int64[1] q = {3}> {
      y = Gather<axis=0>(X, p)
      Z = Gather<axis=0>(y, q)
    })ONNX", "Z", "an outer index is out of the range of the inner index");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
