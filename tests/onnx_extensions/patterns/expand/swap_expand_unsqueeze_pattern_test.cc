#include "onnx_extensions/patterns/expand/swap_expand_unsqueeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SwapExpandUnsqueezePattern, UnsqueezesBeforeExpanding) {
  ExpectRewrite<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y) <int64[3] s = {3, 5, 7}, int64[1] ax = {1}> {
      xe = Expand(X, s)
      Y = Unsqueeze(xe, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y) <int64[1] ax = {1}, int64[4] s2 = {3, 1, 5, 7}> {
      u = Unsqueeze(X, ax)
      Y = Expand(u, s2)
    })ONNX");
}

TEST(SwapExpandUnsqueezePattern, NormalizesAndSortsAxes) {
  ExpectRewrite<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5] X) => (float[1,3,5,1] Y) <int64[2] s = {3, 5}, int64[2] ax = {-1, 0}> {
      xe = Expand(X, s)
      Y = Unsqueeze(xe, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5] X) => (float[1,3,5,1] Y) <int64[2] ax = {-1, 0}, int64[4] s2 = {1, 3, 5, 1}> {
      u = Unsqueeze(X, ax)
      Y = Expand(u, s2)
    })ONNX");
}

TEST(SwapExpandUnsqueezePattern, RejectsSecondReader) {
  ExpectNoMatch<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y, float[3,5,7] Z) <int64[3] s = {3, 5, 7}, int64[1] ax = {1}> {
      xe = Expand(X, s)
      Y = Unsqueeze(xe, ax)
      Z = Relu(xe)
    })ONNX", "xe", "the output of the Expand is not read by an Unsqueeze alone");
}

TEST(SwapExpandUnsqueezePattern, RejectsComputedAxes) {
  ExpectNoMatch<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X, int64[1] ax) => (float[?,?,?,?] Y) <int64[3] s = {3, 5, 7}> {
      xe = Expand(X, s)
      Y = Unsqueeze(xe, ax)
    })ONNX", "xe", "the axes of the Unsqueeze are not constant");
}

TEST(SwapExpandUnsqueezePattern, RejectsUnknownTarget) {
  ExpectNoMatch<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X, float[N,5,7] W) => (float[N,1,5,7] Y) <int64[1] ax = {1}> {
      s = Shape(W)
      xe = Expand(X, s)
      Y = Unsqueeze(xe, ax)
    })ONNX", "xe", "the target shape of the Expand is not known");
}

TEST(SwapExpandUnsqueezePattern, RejectsRankIncrease) {
  ExpectNoMatch<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[5] X) => (float[3,1,5] Y) <int64[2] s = {3, 5}, int64[1] ax = {1}> {
      xe = Expand(X, s)
      Y = Unsqueeze(xe, ax)
    })ONNX", "xe", "the Expand may change the rank");
}

TEST(SwapExpandUnsqueezePattern, RejectsOpset12) {
  ExpectNoMatch<SwapExpandUnsqueezePattern>(R"ONNX(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[1,5,7] X) => (float[3,1,5,7] Y) <int64[3] s = {3, 5, 7}> {
      xe = Expand(X, s)
      Y = Unsqueeze<axes=[1]>(xe)
    })ONNX", "xe", "the opset is older than 13");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
