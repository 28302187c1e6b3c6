#include "onnx_extensions/patterns/expand/expand_broadcast_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(ExpandBroadcastPattern, LetsTheMulBroadcast) {
  ExpectRewrite<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] X, float[2,4,6] Y) => (float[2,4,6] Z) <int64[3] s = {2, 4, 6}> {
      xe = Expand(X, s)
      Z = Mul(xe, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] X, float[2,4,6] Y) => (float[2,4,6] Z) {
      Z = Mul(X, Y)
    })ONNX");
}

TEST(ExpandBroadcastPattern, KeepsOperandOrderAndAttributes) {
  ExpectRewrite<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X, float[3,4] Y) => (float[3,4] Z) <int64[2] s = {3, 4}> {
      xe = Expand(X, s)
      Z = Mod<fmod=1>(Y, xe)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X, float[3,4] Y) => (float[3,4] Z) {
      Z = Mod<fmod=1>(Y, X)
    })ONNX");
}

TEST(ExpandBroadcastPattern, RejectsSmallerOtherOperand) {
  ExpectNoMatch<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] X, float[2,4,1] Y) => (float[2,4,6] Z) <int64[3] s = {2, 4, 6}> {
      xe = Expand(X, s)
      Z = Mul(xe, Y)
    })ONNX", "xe", "the other operand does not have the target shape");
}

TEST(ExpandBroadcastPattern, RejectsSymbolicInput) {
  ExpectNoMatch<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4,1] X, float[2,4,6] Y) => (float[2,4,6] Z) <int64[3] s = {2, 4, 6}> {
      xe = Expand(X, s)
      Z = Mul(xe, Y)
    })ONNX", "xe", "the shape of the input is not static");
}

TEST(ExpandBroadcastPattern, RejectsTwoReaders) {
  ExpectNoMatch<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4,1] X, float[2,4,6] Y) => (float[2,4,6] Z, float[2,4,6] W) <int64[3] s = {2, 4, 6}> {
      xe = Expand(X, s)
      Z = Mul(xe, Y)
      W = Add(xe, Y)
    })ONNX", "xe", "the output of the Expand is not read by one node alone");
}

TEST(ExpandBroadcastPattern, RejectsMatMul) {
  ExpectNoMatch<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X, float[4,4] Y) => (float[4,4] Z) <int64[2] s = {4, 4}> {
      xe = Expand(X, s)
      Z = MatMul(xe, Y)
    })ONNX", "xe", "the reader is not a binary elementwise node");
}

TEST(ExpandBroadcastPattern, RejectsExpandOnBothSides) {
  ExpectNoMatch<ExpandBroadcastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X) => (float[4,4] Z) <int64[2] s = {4, 4}> {
      xe = Expand(X, s)
      Z = Add(xe, xe)
    })ONNX", "xe", "the output of the Expand is not read by one node alone");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
