#include "onnx_extensions/patterns/expand/expand_swap_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ExpandSwapPattern, RunsExpOnTheSmallTensor) {
  ExpectRewrite<ExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,5,7] Z) <int64[3] s = {3, 1, 1}> {
      xe = Expand(X, s)
      Z = Exp(xe)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5,7] X) => (float[3,5,7] Z) <int64[3] s = {3, 1, 1}> {
      t = Exp(X)
      Z = Expand(t, s)
    })ONNX");
}

TEST(ExpandSwapPattern, KeepsTheExtraInputsOfPow) {
  ExpectRewrite<ExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5] X) => (float[3,5] Z) <int64[2] s = {3, 1}, float[5] P = {1.0, 2.0, 3.0, 2.0, 1.0}> {
      xe = Expand(X, s)
      Z = Pow(xe, P)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,5] X) => (float[3,5] Z) <int64[2] s = {3, 1}, float[5] P = {1.0, 2.0, 3.0, 2.0, 1.0}> {
      t = Pow(X, P)
      Z = Expand(t, s)
    })ONNX");
}

TEST(ExpandSwapPattern, RejectsSoftmax) {
  ExpectNoMatch<ExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1] X) => (float[N,4] Z) <int64[2] s = {1, 4}> {
      xe = Expand(X, s)
      Z = Softmax<axis=-1>(xe)
    })ONNX", "xe", "the reader is not a pointwise single-output op");
}

TEST(ExpandSwapPattern, RejectsAdd) {
  ExpectNoMatch<ExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X, float[3,4] Y) => (float[3,4] Z) <int64[2] s = {3, 1}> {
      xe = Expand(X, s)
      Z = Add(xe, Y)
    })ONNX", "xe", "the reader is not a pointwise single-output op");
}

TEST(ExpandSwapPattern, RejectsGraphOutput) {
  ExpectNoMatch<ExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X) => (float[3,4] Z, float[3,4] xe) <int64[2] s = {3, 1}> {
      xe = Expand(X, s)
      Z = Exp(xe)
    })ONNX", "xe", "the output of the Expand is not read by one node alone");
}

TEST(ExpandSwapPattern, RejectsExpandAsExponent) {
  ExpectNoMatch<ExpandSwapPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X, float[3,4] B) => (float[3,4] Z) <int64[2] s = {3, 1}> {
      xe = Expand(X, s)
      Z = Pow(B, xe)
    })ONNX", "xe", "the Expand is not the first input of the reader");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
