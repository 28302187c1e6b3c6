#include "onnx_extensions/patterns/expand/unsqueeze_equal_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(UnsqueezeEqualPattern, ReusesTheSiblingUnsqueeze) {
  ExpectRewrite<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,S] R) => (int64[N,1,S] U, bool[N,1,S] M) <int64[1] ax = {1}, int64 pad = {0}> {
      U = Unsqueeze(R, ax)
      e = Equal(R, pad)
      M = Unsqueeze(e, ax)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,S] R) => (int64[N,1,S] U, bool[N,1,S] M) <int64[1] ax = {1}, int64 pad = {0}> {
      U = Unsqueeze(R, ax)
      M = Equal(U, pad)
    })ONNX");
}

TEST(UnsqueezeEqualPattern, ComparesAxesAttributesBeforeOpset13) {
  ExpectRewrite<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (int64[N,S] R) => (int64[N,1,S] U, bool[N,1,S] M) <int64 pad = {0}> {
      U = Unsqueeze<axes=[1]>(R)
      e = Equal(R, pad)
      M = Unsqueeze<axes=[1]>(e)
    })ONNX", R"ONNX(
    <ir_version: 7, opset_import: ["" : 11]>
    g (int64[N,S] R) => (int64[N,1,S] U, bool[N,1,S] M) <int64 pad = {0}> {
      U = Unsqueeze<axes=[1]>(R)
      M = Equal(U, pad)
    })ONNX");
}

TEST(UnsqueezeEqualPattern, RejectsNonScalarConstant) {
  ExpectNoMatch<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,3] R) => (int64[N,1,3] U, bool[N,1,3] M) <int64[1] ax = {1}, int64[3] pad = {0, 1, 2}> {
      U = Unsqueeze(R, ax)
      e = Equal(R, pad)
      M = Unsqueeze(e, ax)
    })ONNX", "e", "the second input of the Equal is not a constant scalar");
}

TEST(UnsqueezeEqualPattern, RejectsDifferentAxesTensors) {
  ExpectNoMatch<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,S] R) => (int64[N,1,S] U, bool[N,1,S] M) <int64[1] ax = {1}, int64[1] ax2 = {-2}, int64 pad = {0}> {
      U = Unsqueeze(R, ax)
      e = Equal(R, pad)
      M = Unsqueeze(e, ax2)
    })ONNX", "e", "the two Unsqueezes do not use the same axes");
}

TEST(UnsqueezeEqualPattern, RejectsThirdReader) {
  ExpectNoMatch<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,S] R) => (int64[N,1,S] U, bool[N,1,S] M, int64[N,S] Z) <int64[1] ax = {1}, int64 pad = {0}> {
      U = Unsqueeze(R, ax)
      e = Equal(R, pad)
      M = Unsqueeze(e, ax)
      Z = Neg(R)
    })ONNX", "e", "the first input of the Equal is not read by exactly one other node, an Unsqueeze");
}

TEST(UnsqueezeEqualPattern, RejectsRankZeroInputWithShapeOneConstant) {
  ExpectNoMatch<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 R) => (int64[1] U, bool[1,1] M) <int64[1] ax = {0}, int64[1] pad = {0}> {
      U = Unsqueeze(R, ax)
      e = Equal(R, pad)
      M = Unsqueeze(e, ax)
    })ONNX", "e", "the constant has shape (1,) and the first input may have rank 0");
}

// Equal-1 broadcasts only with broadcast=1: Equal(r, c) of one shape (1,) needs none,
// Equal(u, c) with u of shape (1, 1) would be invalid (an internal error, exit 3, before).
TEST(UnsqueezeEqualPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<UnsqueezeEqualPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (int64[1] r) => (int64[1,1] u, bool[1,1] m) <int64[1] c = {3}> {
      u = Unsqueeze <axes = [0]> (r)
      e = Equal(r, c)
      m = Unsqueeze <axes = [0]> (e)
    })ONNX", "e", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
