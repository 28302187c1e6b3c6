#include "onnx_extensions/patterns/canonicalization/identity_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(IdentityPattern, RemovesMulByOneAndIdentityTranspose) {
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <float one = {1.0}> {
      m = Mul(X, one)
      t = Transpose<perm=[0, 1]>(m)
      Y = Relu(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(IdentityPattern, RemovesNeutralVectorMatchingTheLastDimension) {
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <float[4] zeros = {0.0, 0.0, 0.0, 0.0}> {
      a = Sub(X, zeros)
      Y = Relu(a)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(IdentityPattern, RemovesNeutralLeftOperand) {
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[N,4] X) => (bool[N,4] Y) <bool yes = {1}> {
      a = And(yes, X)
      Y = Not(a)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bool[N,4] X) => (bool[N,4] Y) {
      Y = Not(X)
    })ONNX");
}

TEST(IdentityPattern, KeepsTheOperandThatIsNotNeutralWhenBothAreConstant) {
  // Upstream keeps the right operand here because it tests the left one for a scalar.
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] X) => (float[2] Y) <float five = {5.0}, float zero = {0.0}> {
      s = Add(five, zero)
      Y = Mul(X, s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2] X) => (float[2] Y) <float five = {5.0}> {
      Y = Mul(X, five)
    })ONNX");
}

TEST(IdentityPattern, RemovesFullSliceZeroReshapeAndUnitExpand) {
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y)
      <int64[1] starts = {0}, int64[1] ends = {9223372036854775807}, int64[1] axes = {1},
       int64[2] zeros = {0, 0}, int64[2] ones = {1, 1}> {
      s = Slice(X, starts, ends, axes)
      r = Reshape(s, zeros)
      e = Expand(r, ones)
      Y = Relu(e)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(IdentityPattern, RemovesUnitBatchNormalizationInFloat16) {
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,2,3] X) => (float16[N,2,3] Y)
      <float[2] ones = {1.0, 1.0}, float[2] zeros = {0.0, 0.0}> {
      one = Cast<to=10>(ones)
      zero = Cast<to=10>(zeros)
      b = BatchNormalization(X, one, zero, zero, one)
      Y = Relu(b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,2,3] X) => (float16[N,2,3] Y) {
      Y = Relu(X)
    })ONNX");
}

// Before opset 14 a single output means inference mode.
TEST(IdentityPattern, RemovesUnitBatchNormalizationWithOneOutputBeforeOpset14) {
  ExpectRewrite<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float16[N,2,3] X) => (float16[N,2,3] Y)
      <float[2] ones = {1.0, 1.0}, float[2] zeros = {0.0, 0.0}> {
      one = Cast<to=10>(ones)
      zero = Cast<to=10>(zeros)
      b = BatchNormalization(X, one, zero, zero, one)
      Y = Relu(b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float16[N,2,3] X) => (float16[N,2,3] Y) {
      Y = Relu(X)
    })ONNX");
}

TEST(IdentityPattern, RejectsMulByTwo) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <float two = {2.0}> {
      Y = Mul(X, two)
    })ONNX", "Y", "the constant operand is not the neutral element");
}

TEST(IdentityPattern, RejectsSubFromZero) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Y) <float zero = {0.0}> {
      Y = Sub(zero, X)
    })ONNX", "Y", "the right operand is not constant");
}

TEST(IdentityPattern, RejectsVectorOverSymbolicLastDimension) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,M] X) => (float[N,3] Y) <float[3] zeros3 = {0.0, 0.0, 0.0}> {
      Y = Add(X, zeros3)
    })ONNX", "Y", "the last dimension of the other operand is not the constant's length");
}

TEST(IdentityPattern, RejectsOneElementVectorOverScalar) {
  // Add(x: float[], c: float[1]) has shape [1].
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float X) => (float[1] Y) <float[1] zero = {0.0}> {
      Y = Add(X, zero)
    })ONNX", "Y", "the other operand does not have a known rank of at least one");
}

TEST(IdentityPattern, RejectsReversingTranspose) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[3,2] Y) {
      Y = Transpose<perm=[1, 0]>(X)
    })ONNX", "Y", "the perm is not the identity");
}

TEST(IdentityPattern, RejectsReshapeOfAnotherRank) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3] Y) <int64[2] zeros = {0, 0}> {
      Y = Reshape(X, zeros)
    })ONNX", "Y", "the rank of the input is not the shape's length");
}

TEST(IdentityPattern, RejectsReshapeWithAllowZero) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3] X) => (float[0,0] Y) <int64[2] zeros = {0, 0}> {
      Y = Reshape<allowzero=1>(X, zeros)
    })ONNX", "Y", "the Reshape has allowzero set");
}

TEST(IdentityPattern, RejectsBatchNormalizationInFloat) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2] X) => (float[N,2] Y)
      <float[2] scale = {1.0, 1.0}, float[2] bias = {0.0, 0.0}, float[2] mean = {0.0, 0.0},
       float[2] var = {1.0, 1.0}> {
      Y = BatchNormalization(X, scale, bias, mean, var)
    })ONNX", "Y", "the input is not float16 or bfloat16");
}

// Before opset 14 the number of outputs gives the mode: with five outputs, unused, the
// batch statistics normalise (onnxruntime does), and the result is not X.
TEST(IdentityPattern, RejectsBatchNormalizationWithSeveralOutputsBeforeOpset14) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float16[N,2] X) => (float16[N,2] Y) <float[2] ones = {1.0, 1.0}, float[2] zeros = {0.0, 0.0}> {
      one = Cast<to=10>(ones)
      zero = Cast<to=10>(zeros)
      Y, rm, rv, sm, sv = BatchNormalization(X, one, zero, zero, one)
    })ONNX", "Y", "the BatchNormalization has more than one output before opset 14 (training mode)");
}

// epsilon -1: sqrt(var + epsilon) is 0 and the normalization divides by it (infinities where
// Identity gives X; found by mutating RemovesUnitBatchNormalizationInFloat16's graph).
TEST(IdentityPattern, RejectsANegativeEpsilon) {
  ExpectNoMatch<IdentityPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,2] X) => (float16[N,2] Y) <float[2] ones = {1.0, 1.0}, float[2] zeros = {0.0, 0.0}> {
      one = Cast<to=10>(ones)
      zero = Cast<to=10>(zeros)
      Y = BatchNormalization<epsilon = -1.0>(X, one, zero, zero, one)
    })ONNX", "Y", "epsilon is below -1e-5");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
