#include "onnx_extensions/patterns/collections/split_concat_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SplitConcatPattern, RemovesARoundTrip) {
  ExpectRewrite<SplitConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) <int64[2] sp = {3, 5}> {
      a, b = Split<axis=1>(X, sp)
      Y = Concat<axis=1>(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) {
      Y = Identity(X)
    })ONNX");
}

TEST(SplitConcatPattern, UsesTheDefaultSplitAxisAndNormalizesTheConcatAxis) {
  ExpectRewrite<SplitConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,N] X) => (float[4,N] Y) {
      a, b = Split<num_outputs=2>(X)
      c = Concat<axis=-2>(a, b)
      Y = Neg(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4,N] X) => (float[4,N] Y) {
      Y = Neg(X)
    })ONNX");
}

TEST(SplitConcatPattern, RejectsReorderedPieces) {
  ExpectNoMatch<SplitConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y) <int64[2] sp = {3, 5}> {
      a, b = Split<axis=1>(X, sp)
      Y = Concat<axis=1>(b, a)
    })ONNX", "a", "the Concat takes the pieces in another order");
}

TEST(SplitConcatPattern, RejectsDifferentAxes) {
  ExpectNoMatch<SplitConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[8,8] X) => (float[16,4] Y) {
      a, b = Split<axis=1, num_outputs=2>(X)
      Y = Concat<axis=0>(a, b)
    })ONNX", "a", "the Split and Concat axes differ");
}

TEST(SplitConcatPattern, RejectsAPieceWithAnotherReader) {
  ExpectNoMatch<SplitConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y, float[N,3] Z) <int64[2] sp = {3, 5}> {
      a, b = Split<axis=1>(X, sp)
      Y = Concat<axis=1>(a, b)
      Z = Neg(a)
    })ONNX", "a", "a piece does not have exactly one reader");
}

TEST(SplitConcatPattern, RejectsAPieceThatIsAGraphOutput) {
  ExpectNoMatch<SplitConcatPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,8] Y, float[N,3] a) <int64[2] sp = {3, 5}> {
      a, b = Split<axis=1>(X, sp)
      Y = Concat<axis=1>(a, b)
    })ONNX", "a", "a piece is a graph output or read by a subgraph");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
