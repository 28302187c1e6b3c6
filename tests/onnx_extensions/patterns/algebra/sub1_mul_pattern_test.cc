#include "onnx_extensions/patterns/algebra/sub1_mul_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Another float rounding (no cancellation on the test's inputs in [-2, 2]).
constexpr double kTolerance = 1e-5;

TEST(Sub1MulPattern, ExpandsOneMinusXTimesY) {
  ExpectRewrite<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,6] Y) => (float[N,6] Z) <float[1] one = {1.0}> {
      i1 = Sub(one, X)
      Z = Mul(i1, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,6] Y) => (float[N,6] Z) {
      t = Mul(X, Y)
      Z = Sub(Y, t)
    })ONNX", kTolerance);
}

// The right form; a (6,) constant of ones is fine when X and Y already give the result its
// shape; Y may be computed after the Sub.
TEST(Sub1MulPattern, ExpandsYTimesOneMinusX) {
  ExpectRewrite<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[6] W) => (float[N,6] Z) <float[6] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      i1 = Sub(ones, X)
      Y = Neg(W)
      Z = Mul(Y, i1)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[6] W) => (float[N,6] Z) {
      Y = Neg(W)
      t = Mul(Y, X)
      Z = Sub(Y, t)
    })ONNX", kTolerance);
}

// Wrapping integer arithmetic: (1 - X) * Y = Y - X * Y exactly.
TEST(Sub1MulPattern, ExpandsOnIntegers) {
  ExpectRewrite<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,6] X, int64[N,6] Y) => (int64[N,6] Z) <int64 one = {1}> {
      i1 = Sub(one, X)
      Z = Mul(i1, Y)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,6] X, int64[N,6] Y) => (int64[N,6] Z) {
      t = Mul(X, Y)
      Z = Sub(Y, t)
    })ONNX");
}

TEST(Sub1MulPattern, RejectsTwo) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,6] Y) => (float[N,6] Z) <float[1] two = {2.0}> {
      i1 = Sub(two, X)
      Z = Mul(i1, Y)
    })ONNX", "Z", "the first input of the Sub is not a constant of ones");
}

TEST(Sub1MulPattern, RejectsXMinusOne) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,6] Y) => (float[N,6] Z) <float[1] one = {1.0}> {
      i1 = Sub(X, one)
      Z = Mul(i1, Y)
    })ONNX", "Z", "the first input of the Sub is not a constant of ones");
}

TEST(Sub1MulPattern, RejectsSharedSub) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,6] Y) => (float[N,6] Z, float[N,6] W) <float[1] one = {1.0}> {
      i1 = Sub(one, X)
      Z = Mul(i1, Y)
      W = Exp(i1)
    })ONNX", "Z", "the output of the Sub has other readers");
}

// Upstream rewrites this: the result would lose the first dimension the ones give.
TEST(Sub1MulPattern, RejectsOnesThatEnlargeTheResult) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[1,4] X, float[1,4] Y) => (float[2,4] Z) <float[2,4] ones = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      i1 = Sub(ones, X)
      Z = Mul(i1, Y)
    })ONNX", "Z", "the constant of ones enlarges the product");
}

TEST(Sub1MulPattern, RejectsUnknownShapes) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,?] X, float[N,6] Y) => (float[N,6] Z) <float[1] one = {1.0}> {
      i1 = Sub(one, X)
      Z = Mul(i1, Y)
    })ONNX", "Z", "the shape of X, of the other operand or of the product is not known");
}

TEST(Sub1MulPattern, RejectsSquareOfTheSub) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X) => (float[N,6] Z) <float[1] one = {1.0}> {
      i1 = Sub(one, X)
      Z = Mul(i1, i1)
    })ONNX", "Z", "the Mul reads the same value twice");
}

TEST(Sub1MulPattern, RejectsMulWithoutSub) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,6] X, float[N,6] Y) => (float[N,6] Z) {
      i1 = Add(X, Y)
      Z = Mul(i1, Y)
    })ONNX", "Z", "no input is produced by a default-domain Sub");
}

// Sub-6 broadcasts only its second input into its first: Sub(Y, X * Y) with Y of shape (3,)
// would be invalid (an internal error, exit 3, before).
TEST(Sub1MulPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<Sub1MulPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] X, float[3] Y) => (float[2,3] Z) <float[2,3] one = {1.0, 1.0, 1.0, 1.0, 1.0, 1.0}> {
      S = Sub(one, X)
      Z = Mul <broadcast = 1> (S, Y)
    })ONNX", "Z", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
