#include "onnx_extensions/patterns/reshape/unsqueeze_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(UnsqueezeReshapePattern, MovesTheInsertedAxis) {
  ExpectRewrite<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[A,1,B,C] Y) <int64[1] ax = {2}, int64[4] s = {0, 1, -1, 0}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[A,1,B,C] Y) <int64[1] ax1 = {1}> {
      Y = Unsqueeze(X, ax1)
    })ONNX");
}

TEST(UnsqueezeReshapePattern, AcceptsANegativeAxis) {
  ExpectRewrite<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,1,3,4] Y) <int64[1] ax = {-2}, int64[4] s = {0, 1, -1, 0}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,1,3,4] Y) <int64[1] ax1 = {1}> {
      Y = Unsqueeze(X, ax1)
    })ONNX");
}

TEST(UnsqueezeReshapePattern, RejectsAnotherAxis) {
  ExpectNoMatch<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[A,1,B,C] Y) <int64[1] ax = {1}, int64[4] s = {0, 1, -1, 0}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "the axes and the shape are not the handled case (2) and (0, 1, -1, 0)");
}

TEST(UnsqueezeReshapePattern, RejectsRank2) {
  ExpectNoMatch<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X) => (float[A,1,B,1] Y) <int64[1] ax = {2}, int64[4] s = {0, 1, -1, 1}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "the shape does not have one entry more than the rank of x");
}

TEST(UnsqueezeReshapePattern, RejectsASharedUnsqueeze) {
  ExpectNoMatch<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X) => (float[A,1,B,C] Y, float[A,B,1,C] Z) <int64[1] ax = {2}, int64[4] s = {0, 1, -1, 0}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
      Z = Neg(u)
    })ONNX", "Y", "the output of the Unsqueeze has other readers");
}

TEST(UnsqueezeReshapePattern, RejectsTheAxesAttributeForm) {
  ExpectNoMatch<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[A,B,C] X) => (float[A,1,B,C] Y) <int64[4] s = {0, 1, -1, 0}> {
      u = Unsqueeze<axes=[2]>(X)
      Y = Reshape(u, s)
    })ONNX", "Y", "the Unsqueeze does not have a constant axes input");
}

TEST(UnsqueezeReshapePattern, RejectsAComputedShape) {
  ExpectNoMatch<UnsqueezeReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B,C] X, int64[4] s) => (float[?,?,?,?] Y) <int64[1] ax = {2}> {
      u = Unsqueeze(X, ax)
      Y = Reshape(u, s)
    })ONNX", "Y", "the shape input is not constant");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
