#include "onnx_extensions/patterns/algebra/reduce_arg_top_k_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// k = [1] and the squeezed axis [1] are equal initializers, which the cleanup merges.
TEST(ReduceArgTopKPattern, FusesMaxAndArgMaxWithoutKeptDims) {
  ExpectRewrite<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] V, int64[N] I) <int64[1] axes = {1}> {
      V = ReduceMax<keepdims=0>(X, axes)
      I = ArgMax<axis=1, keepdims=0>(X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N] V, int64[N] I) <int64[1] one = {1}> {
      tv, ti = TopK<axis=1, largest=1>(X, one)
      V = Squeeze(tv, one)
      I = Squeeze(ti, one)
    })ONNX");
}

// keepdims=1 (the default of both): TopK's outputs have the shapes already. Upstream
// rejects axes = [0].
TEST(ReduceArgTopKPattern, FusesMinAndArgMinKeepingDims) {
  ExpectRewrite<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,N] X) => (int64[1,N] I, float[1,N] V) <int64[1] axes = {0}> {
      I = ArgMin(X)
      V = ReduceMin(X, axes)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5,N] X) => (int64[1,N] I, float[1,N] V) <int64[1] k = {1}> {
      V, I = TopK<axis=0, largest=0>(X, k)
    })ONNX");
}

TEST(ReduceArgTopKPattern, SqueezesTheAxisOfTheArgNode) {
  ExpectRewrite<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[7,N] X) => (int64[N] I, double[N] V) <int64[1] axes = {0}> {
      I = ArgMin<keepdims=0>(X)
      V = ReduceMin<keepdims=0>(X, axes)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[7,N] X) => (int64[N] I, double[N] V) <int64[1] k = {1}, int64[1] ax = {0}> {
      tv, ti = TopK<axis=0, largest=0>(X, k)
      V = Squeeze(tv, ax)
      I = Squeeze(ti, ax)
    })ONNX");
}

TEST(ReduceArgTopKPattern, ComparesNegativeAxesWithTheRank) {
  ExpectRewrite<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[N,6] X) => (int32[N,1] V, int64[N,1] I) <int64[1] axes = {-1}> {
      V = ReduceMax(X, axes)
      I = ArgMax<axis=1>(X)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[N,6] X) => (int32[N,1] V, int64[N,1] I) <int64[1] k = {1}> {
      V, I = TopK<axis=1, largest=1>(X, k)
    })ONNX");
}

TEST(ReduceArgTopKPattern, RejectsTypesOnnxruntimeHasNoTopKFor) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint8[4,8] X) => (uint8[4] V, int64[4] I) <int64[1] axes = {1}> {
      V = ReduceMax<keepdims=0>(X, axes)
      I = ArgMax<axis=1, keepdims=0>(X)
    })ONNX", "I", "the input is not float, float16, double, int32 or int64 (the types onnxruntime's TopK takes)");
}

TEST(ReduceArgTopKPattern, RejectsDifferentAxes) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[4,1] V, int64[1,8] I) <int64[1] axes = {1}> {
      V = ReduceMin(X, axes)
      I = ArgMin<axis=0>(X)
    })ONNX", "I", "the reduction and the Arg node do not use the same axis");
}

TEST(ReduceArgTopKPattern, RejectsDifferentKeepdims) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[4] V, int64[4,1] I) <int64[1] axes = {1}> {
      V = ReduceMax<keepdims=0>(X, axes)
      I = ArgMax<axis=1, keepdims=1>(X)
    })ONNX", "I", "the reduction and the Arg node have different keepdims");
}

// Upstream reads select_last_index from the reduction and fuses: TopK would return the
// first index of a repeated maximum instead of the last.
TEST(ReduceArgTopKPattern, RejectsSelectLastIndex) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[4,1] V, int64[4,1] I) <int64[1] axes = {1}> {
      V = ReduceMax(X, axes)
      I = ArgMax<axis=1, select_last_index=1>(X)
    })ONNX", "I", "the Arg node selects the last index on ties");
}

TEST(ReduceArgTopKPattern, RejectsOpset17) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[4,8] X) => (float[4,1] V, int64[4,1] I) {
      V = ReduceMax<axes=[1]>(X)
      I = ArgMax<axis=1>(X)
    })ONNX", "I", "the opset is older than 18");
}

// Upstream crashes here: it reads the axes input unconditionally.
TEST(ReduceArgTopKPattern, RejectsReductionWithoutAxes) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8] X) => (float[1] V, int64[1] I) {
      V = ReduceMax(X)
      I = ArgMax(X)
    })ONNX", "I", "the reduction has no axes input");
}

TEST(ReduceArgTopKPattern, RejectsVariableAxes) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X, int64[1] axes) => (float[?,?] V, int64[4,1] I) {
      V = ReduceMax(X, axes)
      I = ArgMax<axis=1>(X)
    })ONNX", "I", "the axes of the reduction are not constant");
}

TEST(ReduceArgTopKPattern, RejectsTwoReducedAxes) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[1,1] V, int64[4,1] I) <int64[2] axes = {0, 1}> {
      V = ReduceMax(X, axes)
      I = ArgMax<axis=1>(X)
    })ONNX", "I", "the reduction does not reduce exactly one axis");
}

TEST(ReduceArgTopKPattern, RejectsNoopWithEmptyAxes) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[4,1] V, int64[4,1] I) <int64[1] axes = {1}> {
      V = ReduceMax<noop_with_empty_axes=1>(X, axes)
      I = ArgMax<axis=1>(X)
    })ONNX", "I", "the reduction has noop_with_empty_axes=1");
}

TEST(ReduceArgTopKPattern, RejectsArgMaxWithReduceMin) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[4,1] V, int64[4,1] I) <int64[1] axes = {1}> {
      V = ReduceMin(X, axes)
      I = ArgMax<axis=1>(X)
    })ONNX", "I", "the input is not read by the matching reduction");
}

TEST(ReduceArgTopKPattern, RejectsTwoMatchingReductions) {
  ExpectNoMatch<ReduceArgTopKPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,8] X) => (float[4,1] V, float[1,8] W, int64[4,1] I) <int64[1] a1 = {1}, int64[1] a0 = {0}> {
      V = ReduceMax(X, a1)
      W = ReduceMax(X, a0)
      I = ArgMax<axis=1>(X)
    })ONNX", "I", "the input is read by several matching reductions");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
