#include "onnx_extensions/patterns/elimination/neutral_operand_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(NeutralOperandPattern, RemovesMulByPerChannelOnes) {
  ExpectRewrite<NeutralOperandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,3] X) => (float[N,2,3,3] Y) <float[1,2,1,1] ones = {1.0, 1.0}> {
      m = Mul(X, ones)
      Y = Relu(m)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,3] X) => (float[N,2,3,3] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(NeutralOperandPattern, RemovesAddOfZerosOnTheLeft) {
  ExpectRewrite<NeutralOperandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[N,2,3] Y) <float[2,1] zeros = {0.0, 0.0}> {
      a = Add(zeros, X)
      Y = Relu(a)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[N,2,3] Y) {
      Y = Relu(X)
    })ONNX");
}

// Sub(0, x) is -x.
TEST(NeutralOperandPattern, RejectsZeroMinusX) {
  ExpectNoMatch<NeutralOperandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[N,2,3] Y) <float[2,1] zeros = {0.0, 0.0}> {
      Y = Sub(zeros, X)
    })ONNX", "Y", "no operand is a constant filled with the neutral element");
}

TEST(NeutralOperandPattern, RejectsBroadcastToALargerShape) {
  ExpectNoMatch<NeutralOperandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,1,3] X) => (float[N,2,3] Y) <float[2,1] ones = {1.0, 1.0}> {
      Y = Div(X, ones)
    })ONNX", "Y", "the constant broadcasts the other operand to a larger shape");
}

TEST(NeutralOperandPattern, LeavesScalarsToIdentityPattern) {
  ExpectNoMatch<NeutralOperandPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3] X) => (float[N,2,3] Y) <float one = {1.0}> {
      Y = Mul(X, one)
    })ONNX", "Y", "the constant has rank below 2 (IdentityPattern's case)");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
