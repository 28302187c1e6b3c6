#include "onnx_extensions/patterns/layout/unsqueeze_shape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(UnsqueezeShapePattern, ConcatenatesSlicesOfTheInputShapeAndOnes) {
  ExpectRewrite<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[4] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Shape(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[4] Y) <int64[1] one = {1}> {
      s0 = Shape<start=0, end=1>(X)
      s1 = Shape<start=1, end=3>(X)
      Y = Concat<axis=0>(s0, one, s1)
    })ONNX");
}

// Axes [-1, 0] of U (rank 4) are [3, 0]: U = (1,A,B,1); Shape<start=1> is [A, B, 1].
TEST(UnsqueezeShapePattern, NormalizesUnsortedAxesAndClipsToTheRange) {
  ExpectRewrite<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[3] Y) <int64[2] ax = {-1, 0}> {
      u = Unsqueeze(X, ax)
      Y = Shape<start=1>(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[3] Y) <int64[1] one = {1}> {
      s = Shape<start=0, end=2>(X)
      Y = Concat<axis=0>(s, one)
    })ONNX");
}

// Adjacent inserted axes give one piece each; a range inside a run gives one slice.
TEST(UnsqueezeShapePattern, SlicesInsideARun) {
  ExpectRewrite<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[4] Y) <int64[2] ax = {3, 4}> {
      u = Unsqueeze(X, ax)
      Y = Shape<start=1>(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (int64[4] Y) <int64[1] one = {1}> {
      s = Shape<start=1, end=3>(X)
      Y = Concat<axis=0>(s, one, one)
    })ONNX");
}

TEST(UnsqueezeShapePattern, KeepsASharedUnsqueeze) {
  ExpectRewrite<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[2] Y, float[A,1,B] W) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      W = Relu(u)
      Y = Shape<start=0, end=2>(u)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[2] Y, float[A,1,B] W) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      s = Shape<start=0, end=1>(X)
      Y = Concat<axis=0>(s, ax)
      W = Relu(u)
    })ONNX");
}

TEST(UnsqueezeShapePattern, RejectsComputedAxes) {
  ExpectNoMatch<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, int64[1] ax) => (int64[3] Y) {
      u = Unsqueeze(X, ax)
      Y = Shape(u)
    })ONNX", "u", "the axes are not a constant 1-D tensor");
}

TEST(UnsqueezeShapePattern, RejectsTheAttributeForm) {
  ExpectNoMatch<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[A,B] X) => (int64[3] Y) {
      u = Unsqueeze<axes=[1]>(X)
      Y = Shape(u)
    })ONNX", "u", "the axes are an attribute before opset 13");
}

TEST(UnsqueezeShapePattern, RejectsOpset14) {
  ExpectNoMatch<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[A,B] X) => (int64[3] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Shape(u)
    })ONNX", "u", "Shape with start and end needs opset 15");
}

TEST(UnsqueezeShapePattern, RejectsNoShapeReader) {
  ExpectNoMatch<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[A,1,B] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Relu(u)
    })ONNX", "u", "no Shape reads the output");
}

TEST(UnsqueezeShapePattern, RejectsAnUnknownRank) {
  ExpectNoMatch<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] X) => (int64[?] Y) <int64[1] ax = {0}> {
      u = Unsqueeze(X, ax)
      Y = Shape(u)
    })ONNX", "u", "the rank of the input is unknown");
}

TEST(UnsqueezeShapePattern, RejectsAnEmptyRange) {
  ExpectNoMatch<UnsqueezeShapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (int64[0] Y) <int64[1] ax = {1}> {
      u = Unsqueeze(X, ax)
      Y = Shape<start=3>(u)
    })ONNX", "u", "the Shape selects no dimension");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
