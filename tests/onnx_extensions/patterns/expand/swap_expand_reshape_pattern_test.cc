#include "onnx_extensions/patterns/expand/swap_expand_reshape_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SwapExpandReshapePattern, ReshapesBeforeExpanding) {
  ExpectRewrite<SwapExpandReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, float[1,4,1] W) => (float[A,1,4] Y) <int64[2] o11 = {1, 1}, int64[3] stat = {0, 1, -1}> {
      a = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(a, o11)
      e = Expand(W, sh)
      Y = Reshape(e, stat)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[A,B] X, float[1,4,1] W) => (float[A,1,4] Y) <int64[2] o11 = {1, 1}, int64[3] stat = {0, 1, -1}> {
      a = Shape<start=0, end=1>(X)
      sh = Concat<axis=0>(a, o11)
      r = Reshape(W, stat)
      Y = Expand(r, sh)
    })ONNX");
}

TEST(SwapExpandReshapePattern, RejectsOtherReshapeShape) {
  ExpectNoMatch<SwapExpandReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] W) => (float[3,4] Y) <int64[3] sh = {3, 1, 1}, int64[2] stat = {0, -1}> {
      e = Expand(W, sh)
      Y = Reshape(e, stat)
    })ONNX", "Y", "the shape of the Reshape is not the constant (0, 1, -1)");
}

TEST(SwapExpandReshapePattern, RejectsExpandOfAMiddleDimension) {
  ExpectNoMatch<SwapExpandReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,1,1] W) => (float[3,1,4] Y) <int64[3] sh = {3, 4, 1}, int64[3] stat = {0, 1, -1}> {
      e = Expand(W, sh)
      Y = Reshape(e, stat)
    })ONNX", "Y", "the target shape of the Expand is not (d, 1, 1)");
}

TEST(SwapExpandReshapePattern, RejectsRank4) {
  ExpectNoMatch<SwapExpandReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1,2] W) => (float[3,1,8] Y) <int64[4] sh = {3, 1, 1, 1}, int64[3] stat = {0, 1, -1}> {
      e = Expand(W, sh)
      Y = Reshape(e, stat)
    })ONNX", "Y", "the input of the Expand does not have rank 3");
}

TEST(SwapExpandReshapePattern, RejectsSharedExpand) {
  ExpectNoMatch<SwapExpandReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] W) => (float[3,1,4] Y, float[3,4,1] e) <int64[3] sh = {3, 1, 1}, int64[3] stat = {0, 1, -1}> {
      e = Expand(W, sh)
      Y = Reshape(e, stat)
    })ONNX", "Y", "the output of the Expand has other readers");
}

TEST(SwapExpandReshapePattern, RejectsAllowZero) {
  ExpectNoMatch<SwapExpandReshapePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] W) => (float[3,1,4] Y) <int64[3] sh = {3, 1, 1}, int64[3] stat = {3, 1, 4}> {
      e = Expand(W, sh)
      Y = Reshape<allowzero=1>(e, stat)
    })ONNX", "Y", "the Reshape has allowzero=1");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
