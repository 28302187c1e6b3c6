#include "onnx_extensions/patterns/reshape/unsqueeze_or_squeeze_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(UnsqueezeOrSqueezeReshapePattern, RemovesTheUnsqueeze) {
  ExpectRewrite<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,16] X) => (float[M,64] Y) <int64[1] ax = {0}, int64[2] s = {-1, 64}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,16] X) => (float[M,64] Y) <int64[2] s = {-1, 64}> {
      Y = Reshape(X, s)
    })ONNX");
}

TEST(UnsqueezeOrSqueezeReshapePattern, RemovesASqueezeAfterTheCopiedDimensions) {
  ExpectRewrite<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,16] X) => (float[N,4,4] Y) <int64[1] ax = {1}, int64[3] s = {0, 4, 4}> {
      u = Squeeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,16] X) => (float[N,4,4] Y) <int64[3] s = {0, 4, 4}> {
      Y = Reshape(X, s)
    })ONNX");
}

// Axis -1 of the rank-3 output is 2, after the 0 at index 0 (upstream compares -1 raw).
TEST(UnsqueezeOrSqueezeReshapePattern, NormalizesNegativeAxes) {
  ExpectRewrite<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,2,4] Y) <int64[1] ax = {-1}, int64[3] s = {0, 2, 4}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8] X) => (float[N,2,4] Y) <int64[3] s = {0, 2, 4}> {
      Y = Reshape(X, s)
    })ONNX");
}

TEST(UnsqueezeOrSqueezeReshapePattern, RemovesASqueezeWithoutAxesWhenTheShapeHasNoZero) {
  ExpectRewrite<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,N,1,4] X) => (float[M] Y) <int64[1] s = {-1}> {
      u = Squeeze(X)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,N,1,4] X) => (float[M] Y) <int64[1] s = {-1}> {
      Y = Reshape(X, s)
    })ONNX");
}

TEST(UnsqueezeOrSqueezeReshapePattern, ReadsTheAxesAttributeOfOldOpsets) {
  ExpectRewrite<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[N,4,1] X) => (float[N,2,2] Y) <int64[3] s = {0, 2, 2}> {
      u = Squeeze<axes=[2]>(X)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[N,4,1] X) => (float[N,2,2] Y) <int64[3] s = {0, 2, 2}> {
      Y = Reshape(X, s)
    })ONNX");
}

TEST(UnsqueezeOrSqueezeReshapePattern, RejectsAnIntermediateGraphOutput) {
  ExpectNoMatch<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,16] X) => (float[M,64] Y, float[1,N,8,16] u) <int64[1] ax = {0}, int64[2] s = {-1, 64}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "the output of the Squeeze or Unsqueeze has other readers");
}

TEST(UnsqueezeOrSqueezeReshapePattern, RejectsAZeroAtTheInsertedAxis) {
  ExpectNoMatch<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,16] X) => (float[N,1,128] Y) <int64[1] ax = {1}, int64[3] s = {0, 0, -1}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "a 0 of the shape is at or after the first axis the Squeeze or Unsqueeze changes");
}

TEST(UnsqueezeOrSqueezeReshapePattern, RejectsAComputedShape) {
  ExpectNoMatch<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,16] X, int64[2] s) => (float[?,?] Y) <int64[1] ax = {0}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "the shape input is not constant");
}

// Upstream crashes here: no axes to compare the 0 with.
TEST(UnsqueezeOrSqueezeReshapePattern, RejectsAZeroAfterASqueezeWithoutAxes) {
  ExpectNoMatch<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,4] X) => (float[N,2,2] Y) <int64[3] s = {0, 2, 2}> {
      u = Squeeze(X)
      Y = Reshape(u, s)
    })ONNX", "Y", "the shape has a 0 and the axes of the Squeeze or Unsqueeze are not known");
}

// Upstream checks the Reshape's domain where it means the producer's.
TEST(UnsqueezeOrSqueezeReshapePattern, RejectsAnUnsqueezeOfAnotherDomain) {
  ExpectNoMatch<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.example" : 1]>
    g (float[N,8,16] X) => (float[M,64] Y) <int64[1] ax = {0}, int64[2] s = {-1, 64}> {
      u = com.example.Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "the data input is not produced by a default-domain Squeeze or Unsqueeze");
}

TEST(UnsqueezeOrSqueezeReshapePattern, RejectsAnotherProducer) {
  ExpectNoMatch<UnsqueezeOrSqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,8,16] X) => (float[M,64] Y) <int64[2] s = {-1, 64}> {
      u = Neg(X)
      Y = Reshape(u, s)
    })ONNX", "Y", "the data input is not produced by a default-domain Squeeze or Unsqueeze");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
