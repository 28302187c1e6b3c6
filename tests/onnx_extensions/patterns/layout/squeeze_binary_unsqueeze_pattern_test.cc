#include "onnx_extensions/patterns/layout/squeeze_binary_unsqueeze_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Unsqueeze(two, zero) has constant inputs: the rewrite's folding turns it into [2].
TEST(SqueezeBinaryUnsqueezePattern, ComputesInShapeOne) {
  ExpectRewrite<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] d) => (int64[1] e) <int64 two = {2}, int64[1] zero = {0}> {
      s = Squeeze(d)
      q = Div(s, two)
      e = Unsqueeze(q, zero)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] d) => (int64[1] e) <int64[1] t = {2}> {
      e = Div(d, t)
    })ONNX");
}

TEST(SqueezeBinaryUnsqueezePattern, UnsqueezesAComputedOperand) {
  ExpectRewrite<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] d, float c) => (float[1] e) <int64[1] a = {-1}, int64 zero = {0}> {
      s = Squeeze(d, a)
      q = Sub(s, c)
      e = Unsqueeze(q, zero)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] d, float c) => (float[1] e) <int64 zero = {0}> {
      t = Unsqueeze(c, zero)
      e = Sub(d, t)
    })ONNX");
}

TEST(SqueezeBinaryUnsqueezePattern, RejectsAxesOne) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[2,1] d, int64 c) => (int64[2,1] e) <int64[1] one = {1}> {
      s = Squeeze(d)
      q = Mul(s, c)
      e = Unsqueeze(q, one)
    })ONNX", "e", "the axes of the Unsqueeze are not the constant scalar 0 or -1");
}

TEST(SqueezeBinaryUnsqueezePattern, RejectsPow) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] d, float c) => (float[1] e) <int64[1] zero = {0}> {
      s = Squeeze(d)
      q = Pow(s, c)
      e = Unsqueeze(q, zero)
    })ONNX", "e", "the input is not produced by an Add, Sub, Mul or Div");
}

TEST(SqueezeBinaryUnsqueezePattern, RejectsASecondOperandOfShapeOne) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] d, float[1] c) => (float[1,1] e) <int64[1] zero = {0}> {
      s = Squeeze(d)
      q = Add(s, c)
      e = Unsqueeze(q, zero)
    })ONNX", "e", "the second input of the binary node does not have the known rank 0");
}

TEST(SqueezeBinaryUnsqueezePattern, RejectsASharedBinaryOutput) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1] d, float c) => (float[1] e, float f) <int64[1] zero = {0}> {
      s = Squeeze(d)
      q = Add(s, c)
      e = Unsqueeze(q, zero)
      f = Neg(q)
    })ONNX", "e", "the output of the binary node has other readers");
}

// Div(s, s): the rewrite replaces the first operand only, the second would read the removed
// Squeeze (an internal error, found by mutating ComputesInShapeOne).
TEST(SqueezeBinaryUnsqueezePattern, RejectsASqueezeReadAsBothOperands) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[1] d) => (int64[1] e) <int64[1] zero = {0}> {
      s = Squeeze(d)
      q = Div(s, s)
      e = Unsqueeze(q, zero)
    })ONNX", "e", "the first input of the binary node has other readers");
}

// Upstream accepts any one-input producer: the Neg would disappear.
TEST(SqueezeBinaryUnsqueezePattern, RejectsAProducerThatIsNotASqueeze) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float d, float c) => (float[1] e) <int64[1] zero = {0}> {
      s = Neg(d)
      q = Add(s, c)
      e = Unsqueeze(q, zero)
    })ONNX", "e", "the first input of the binary node is not produced by a Squeeze");
}

// Squeeze of (3,) changes nothing: e is (1,3), Add(d, [c]) would be (3,) (upstream).
TEST(SqueezeBinaryUnsqueezePattern, RejectsASqueezeOfMoreThanOneElement) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3] d, float c) => (float[1,3] e) <int64[1] zero = {0}> {
      s = Squeeze(d)
      q = Add(s, c)
      e = Unsqueeze(q, zero)
    })ONNX", "e", "the input of the Squeeze is not of shape (1,)");
}

TEST(SqueezeBinaryUnsqueezePattern, RejectsOpset12) {
  ExpectNoMatch<SqueezeBinaryUnsqueezePattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 12]>
    g (float[1] d, float c) => (float[1] e) {
      s = Squeeze(d)
      q = Add(s, c)
      e = Unsqueeze<axes=[0]>(q)
    })ONNX", "e", "the node is not a default-domain Unsqueeze with an axes input");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
