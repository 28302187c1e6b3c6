#include "onnx_extensions/patterns/expand/expand_unsqueeze_expand_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ExpandUnsqueezeExpandPattern, MergesTheExpands) {
  ExpectRewrite<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,4,5,7] Y) <int64[3] s1 = {3, 1, 1}, int64[1] ax = {1}, int64[4] s2 = {3, 4, 1, 1}> {
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Expand(b, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,4,5,7] Y) <int64[1] ax = {1}, int64[4] s3 = {3, 4, 1, 1}> {
      u = Unsqueeze(X, ax)
      Y = Expand(u, s3)
    })ONNX");
}

TEST(ExpandUnsqueezeExpandPattern, CombinesBothShapes) {
  ExpectRewrite<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y) <int64[3] s1 = {3, 5, 7}, int64[1] ax = {1}, int64[4] s2 = {1, 1, 5, 7}> {
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Expand(b, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y) <int64[1] ax = {1}, int64[4] s3 = {3, 1, 5, 7}> {
      u = Unsqueeze(X, ax)
      Y = Expand(u, s3)
    })ONNX");
}

TEST(ExpandUnsqueezeExpandPattern, PadsTheShorterShape) {
  ExpectRewrite<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5] X) => (float[2,3,1,5] Y) <int64[2] s1 = {3, 5}, int64[1] ax = {-2}, int64[4] s2 = {2, 1, 1, 5}> {
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Expand(b, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5] X) => (float[2,3,1,5] Y) <int64[1] ax = {-2}, int64[4] s3 = {2, 3, 1, 5}> {
      u = Unsqueeze(X, ax)
      Y = Expand(u, s3)
    })ONNX");
}

TEST(ExpandUnsqueezeExpandPattern, RejectsSecondReaderOfTheFirstExpand) {
  ExpectNoMatch<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,4,5,7] Y, float[3,5,7] Z) <int64[3] s1 = {3, 1, 1}, int64[1] ax = {1}, int64[4] s2 = {3, 4, 1, 1}> {
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Expand(b, s2)
      Z = Relu(a)
    })ONNX", "a", "the output of the Expand is not read by an Unsqueeze alone");
}

TEST(ExpandUnsqueezeExpandPattern, RejectsComputedFirstShape) {
  ExpectNoMatch<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X, float[N,5,7] W) => (float[N,4,5,7] Y) <int64[1] ax = {1}, int64[4] s2 = {1, 4, 1, 1}> {
      s1 = Shape(W)
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Expand(b, s2)
    })ONNX", "a", "the shape of the first Expand is not constant");
}

TEST(ExpandUnsqueezeExpandPattern, RejectsOtherReaderOfTheUnsqueeze) {
  ExpectNoMatch<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y) <int64[3] s1 = {3, 1, 1}, int64[1] ax = {1}> {
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Relu(b)
    })ONNX", "a", "the output of the Unsqueeze is not read by an Expand alone");
}

TEST(ExpandUnsqueezeExpandPattern, RejectsShapesThatDoNotBroadcast) {
  ExpectNoMatch<ExpandUnsqueezeExpandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[?,?,?,?] Y) <int64[3] s1 = {3, 1, 1}, int64[1] ax = {1}, int64[4] s2 = {2, 4, 1, 1}> {
      a = Expand(X, s1)
      b = Unsqueeze(a, ax)
      Y = Expand(b, s2)
    })ONNX", "a", "the axes are invalid or the two shapes do not broadcast");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
