#include "onnx_extensions/patterns/reshape/reshape2_of3_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(Reshape2Of3Pattern, RemovesThreeReshapes) {
  ExpectRewrite<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y) => (float[2,3,4] Z) <int64[2] s1 = {6, 4}, int64[3] s2 = {2, 3, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      m = Mul(a, b)
      Z = Reshape(m, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y) => (float[2,3,4] Z) {
      Z = Mul(X, Y)
    })ONNX");
}

TEST(Reshape2Of3Pattern, MovesTwoInputReshapesToTheOutput) {
  ExpectRewrite<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4] X, float[N,3,4] Y) => (float[N,12] Z) <int64[2] sa = {0, -1}, int64[2] sb = {0, 12}> {
      a = Reshape(X, sa)
      b = Reshape(Y, sb)
      Z = Add(a, b)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3,4] X, float[N,3,4] Y) => (float[N,12] Z) <int64[2] sb = {0, 12}> {
      t = Add(X, Y)
      Z = Reshape(t, sb)
    })ONNX");
}

TEST(Reshape2Of3Pattern, ReshapesTheOtherInputInstead) {
  ExpectRewrite<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[6,4] B) => (float[2,3,4] Z) <int64[2] s1 = {6, 4}, int64[3] s2 = {2, 3, 4}> {
      a = Reshape(X, s1)
      m = Sub(a, B)
      Z = Reshape(m, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[6,4] B) => (float[2,3,4] Z) <int64[3] s2 = {2, 3, 4}> {
      r = Reshape(B, s2)
      Z = Sub(X, r)
    })ONNX");
}

// z is a graph output too: it is computed again from w. Mod keeps fmod.
TEST(Reshape2Of3Pattern, KeepsTheIntermediateGraphOutputAndTheAttributes) {
  ExpectRewrite<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,12] X, float[2,12] Y) => (float[2,12] W, float[6,4] m) <int64[2] sa = {6, 4}, int64[2] sw = {2, 12}> {
      a = Reshape(X, sa)
      b = Reshape(Y, sa)
      m = Mod<fmod=1>(a, b)
      W = Reshape(m, sw)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,12] X, float[2,12] Y) => (float[2,12] W, float[6,4] m) <int64[2] sa = {6, 4}> {
      W = Mod<fmod=1>(X, Y)
      m = Reshape(W, sa)
    })ONNX");
}

// The rewrite would give r = Reshape(A, sw); W = Mod(r, Y); m = Reshape(W, sb), on which
// it would fire again, back to the start.
TEST(Reshape2Of3Pattern, RejectsARewriteThatRemovesNoReshape) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[6,4] A, float[2,12] Y) => (float[2,12] W, float[6,4] m) <int64[2] sb = {6, 4}, int64[2] sw = {2, 12}> {
      b = Reshape(Y, sb)
      m = Mod<fmod=1>(A, b)
      W = Reshape(m, sw)
    })ONNX", "m", "the rewrite would add back as many Reshapes as it removes (the output is a graph output)");
}

// The left Reshape has another reader: it stays, and counts as absent.
TEST(Reshape2Of3Pattern, LeavesASharedInputReshapeInPlace) {
  ExpectRewrite<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,12] X, float[2,12] Y) => (float[2,12] Z, float[6,4] a) <int64[2] s1 = {6, 4}, int64[2] s2 = {2, 12}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      m = Div(a, b)
      Z = Reshape(m, s2)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,12] X, float[2,12] Y) => (float[2,12] Z, float[6,4] a) <int64[2] s1 = {6, 4}, int64[2] s2 = {2, 12}> {
      a = Reshape(X, s1)
      r = Reshape(a, s2)
      Z = Div(r, Y)
    })ONNX");
}

TEST(Reshape2Of3Pattern, RejectsASingleReshape) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[6,4] B) => (float[6,4] Z) <int64[2] s1 = {6, 4}> {
      a = Reshape(X, s1)
      Z = Add(a, B)
    })ONNX", "Z", "fewer than two of the inputs and the output go through a Reshape read there alone");
}

// Upstream checks the op type only: a Reshape of another domain counted as one.
TEST(Reshape2Of3Pattern, RejectsAReshapeOfAnotherDomain) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "com.example" : 1]>
    g (float[2,3,4] X, float[6,4] B) => (float[2,3,4] Z) <int64[2] s1 = {6, 4}, int64[3] s2 = {2, 3, 4}> {
      a = Reshape(X, s1)
      m = Add(a, B)
      Z = com.example.Reshape(m, s2)
    })ONNX", "m", "fewer than two of the inputs and the output go through a Reshape read there alone");
}

TEST(Reshape2Of3Pattern, RejectsBroadcasting) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4] Y) => (float[6,4] Z) <int64[2] s1 = {6, 4}, int64[2] s2 = {1, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s2)
      Z = Add(a, b)
    })ONNX", "Z", "the inputs and the output do not have the same shape (broadcasting)");
}

TEST(Reshape2Of3Pattern, RejectsDifferentShapesBeforeTheReshapes) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[4,6] Y) => (float[6,4] Z) <int64[2] s1 = {6, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      Z = Add(a, b)
    })ONNX", "Z", "the shapes on the other side of the Reshapes differ");
}

// Upstream fires with two known outer shapes out of three; w = Mul(x, y) would then assume
// that w has x's shape.
TEST(Reshape2Of3Pattern, RejectsAnUnknownShapeOnTheOtherSideOfAReshape) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y, int64[3] sw) => (float[?,?,?] W) <int64[2] s1 = {6, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      m = Mul(a, b)
      W = Reshape(m, sw)
    })ONNX", "m", "the shape on the other side of a Reshape is not known");
}

TEST(Reshape2Of3Pattern, RejectsThreeInputs) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y, float[6,4] C) => (float[6,4] Z) <int64[2] s1 = {6, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      Z = Sum(a, b, C)
    })ONNX", "Z", "the node is not a default-domain element-wise binary operator with two inputs");
}

TEST(Reshape2Of3Pattern, RejectsAnOutputWithTwoReaders) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y) => (float[6,4] P, float[6,4] Q) <int64[2] s1 = {6, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      m = Add(a, b)
      P = Neg(m)
      Q = Abs(m)
    })ONNX", "m", "the output of the binary operator has several readers");
}

TEST(Reshape2Of3Pattern, RejectsTheSameInputTwice) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X) => (float[2,3,4] Z) <int64[2] s1 = {6, 4}, int64[3] s2 = {2, 3, 4}> {
      a = Reshape(X, s1)
      m = Mul(a, a)
      Z = Reshape(m, s2)
    })ONNX", "m", "both inputs are the same value");
}

TEST(Reshape2Of3Pattern, RejectsAnUnusedOutput) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[2,3,4] X, float[2,3,4] Y) => (float[2,3,4] Z) <int64[2] s1 = {6, 4}> {
      a = Reshape(X, s1)
      b = Reshape(Y, s1)
      m = Mul(a, b)
      Z = Neg(X)
    })ONNX", "m", "the output of the binary operator is not used");
}

// Add-6's axis -2 is axis 0 of the two-dim inputs, axis 1 of the three-dim ones the rewrite
// would add (an invalid node, exit 3, before).
TEST(Reshape2Of3Pattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<Reshape2Of3Pattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3,2] x, float[2,3,2] y) => (float[2,6] z) <int64[2] s = {2, 6}> {
      a = Reshape(x, s)
      b = Reshape(y, s)
      z = Add <broadcast = 1, axis = -2> (a, b)
    })ONNX", "z", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
