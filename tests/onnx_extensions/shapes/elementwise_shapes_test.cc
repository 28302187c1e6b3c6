#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/shapes/shape_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(ElementwiseShapes, UnaryKeepsTypeAndShape) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[batch,seq,64] x, int32[n] k) => (float[batch,seq,64] y) {
      a = Relu (x)
      b = Sigmoid (a)
      y = Mish (b)
      n = IsNaN (x)
      i = IsInf (x)
      l = LeakyRelu <alpha = 0.1> (x)
      h = HardSwish (x)
      bn = BitwiseNot (k)
      nt = Not (c)
      c = Less (x, x)
    })ONNX");
  EXPECT_EQ(s.Get("a"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("l"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("h"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("n"), "bool[batch,seq,64]");
  EXPECT_EQ(s.Get("i"), "bool[batch,seq,64]");
  EXPECT_EQ(s.Get("bn"), "int32[n]");
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

TEST(ElementwiseShapes, UnaryOfUnknownRankStaysUnknown) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[] x) => (float[] y) {
      y = Tanh (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float?");
}

TEST(ElementwiseShapes, BroadcastsSymbolicDims) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,1,64] a, float[seq,1] b, float[1,64] c, float[n] d, float[5] e) => (float[batch,seq,64] y) {
      y = Add (a, b)
      z = Mul (a, c)
      w = Sub (d, e)
      v = Div (c, d)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq,64]");
  EXPECT_EQ(s.Get("z"), "float[batch,1,64]");
  // n must be 1 or 5 in a valid model: both give 5.
  EXPECT_EQ(s.Get("w"), "float[5]");
  // 64 against n: 64 (n is 1 or 64).
  EXPECT_EQ(s.Get("v"), "float[1,64]");
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

TEST(ElementwiseShapes, BroadcastOfTwoDifferentSymbolsStaysUnknown) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[a,8] x, float[b,8] y, float[a,8] z, float[1,c] w) => (float[?,8] r) {
      r = Add (x, y)
      same = Add (x, z)
      u = Add (x, w)
    })ONNX");
  EXPECT_EQ(s.Get("r"), "float[?,8]");
  EXPECT_TRUE(s.SameDims("r", {"?", "8"}));
  EXPECT_EQ(s.Get("same"), "float[a,8]");
  EXPECT_EQ(s.Get("u"), "float[a,8]");
}

TEST(ElementwiseShapes, UnknownRankGivesUnknownRank) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[] x, float[3] y) => (float[] r) {
      r = Add (x, y)
    })ONNX");
  EXPECT_EQ(s.Get("r"), "float?");
}

TEST(ElementwiseShapes, DiagnosesIncompatibleBroadcast) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[2,3] x, float[4,3] y) => (float[?,3] r) {
      r = Add (x, y)
    })ONNX");
  EXPECT_EQ(s.Get("r"), "float[?,3]");
  EXPECT_THAT(s.Diagnostics(), ElementsAre(HasSubstr("incompatible broadcast")));
}

TEST(ElementwiseShapes, LegacyBroadcastKeepsFirstShape) {
  // Before opset 7, B broadcasts into A from `axis`: the output has A's shape.
  auto s = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[n,c,h,w] x, float[c] b) => (float[n,c,h,w] y) {
      y = Add <broadcast = 1, axis = 1> (x, b)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[n,c,h,w]");
  EXPECT_THAT(s.Diagnostics(), IsEmpty());
}

// ...and only then: without broadcast=1 the shapes are one, and B must be a run of A's dims.
TEST(ElementwiseShapes, LegacyBroadcastRefusesShapesThatDoNotFit) {
  auto refusal = [](const char* signature, const char* node) {
    return InferenceRefusal(std::string("<ir_version: 3, opset_import: [\"\" : 6]>\ng ") + signature + " {\n  " + node +
                            "\n}");
  };
  EXPECT_EQ(refusal("(double a, double[1,1,1,4] b) => (double[] y)", "y = Div (a, b)"),
            "node #0 (Div): Div-6 takes inputs of one shape without broadcast=1; found [] and [1,1,1,4]");
  EXPECT_EQ(refusal("(float[n,4] a, float[n,4] b) => (float[] y)", "y = Mul (a, b)"), "");
  EXPECT_EQ(refusal("(float[n,3,4] a, float[4] b) => (float[] y)", "y = Add <broadcast = 1, axis = 1> (a, b)"),
            "node #0 (Add): Add-6 with broadcast=1, takes a B whose dims are a run of A's at axis; found B [4] and A "
            "[n,3,4] at axis 1");
  EXPECT_EQ(refusal("(float[n,3,4] a, float[3] b) => (float[] y)", "y = Add <broadcast = 1, axis = 1> (a, b)"), "");
  EXPECT_EQ(refusal("(float[n,3,4] a, float[1] b) => (float[] y)", "y = Add <broadcast = 1> (a, b)"), "");
  EXPECT_EQ(refusal("(float[2] a, float[2,2] b) => (float[] y)", "y = Sub <broadcast = 1> (a, b)"),
            "node #0 (Sub): Sub-6 with broadcast=1, takes a B whose dims are a run of A's at axis; found B [2,2] and A [2] "
            "at axis -1");
}

TEST(ElementwiseShapes, ComparisonsAndLogicalOpsGiveBool) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (float[batch,1] x, float[1,seq] y, bool[batch,seq] m) => (bool[batch,seq] e) {
      e = Equal (x, y)
      l = LessOrEqual (x, y)
      g2 = Greater (x, y)
      a = And (e, m)
      o = Xor (m, e)
    })ONNX");
  EXPECT_EQ(s.Get("e"), "bool[batch,seq]");
  EXPECT_EQ(s.Get("l"), "bool[batch,seq]");
  EXPECT_EQ(s.Get("g2"), "bool[batch,seq]");
  EXPECT_EQ(s.Get("a"), "bool[batch,seq]");
  EXPECT_EQ(s.Get("o"), "bool[batch,seq]");
}

TEST(ElementwiseShapes, PowTakesTheBaseType) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[batch,seq] x, int64 p, uint64 u) => (float[batch,seq] y) {
      y = Pow (x, p)
      m = Mod <fmod = 1> (x, x)
      b = BitShift <direction = "LEFT"> (u, u)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq]");
  EXPECT_EQ(s.Get("m"), "float[batch,seq]");
  EXPECT_EQ(s.Get("b"), "uint64[]");
}

TEST(ElementwiseShapes, WhereBroadcastsThreeWaysWithTheTypeOfX) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (bool[1,1,seq,seq] c, float[batch,heads,seq,seq] x, float y) => (float[batch,heads,seq,seq] r) {
      r = Where (c, x, y)
    })ONNX");
  EXPECT_EQ(s.Get("r"), "float[batch,heads,seq,seq]");
}

TEST(ElementwiseShapes, VariadicOpsBroadcastAllInputs) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,1] a, float[1,seq] b, float[seq] c) => (float[batch,seq] r) {
      r = Sum (a, b, c)
      mx = Max (a, b)
      mn = Min (c)
      me = Mean (a, c)
    })ONNX");
  EXPECT_EQ(s.Get("r"), "float[batch,seq]");
  EXPECT_EQ(s.Get("mx"), "float[batch,seq]");
  EXPECT_EQ(s.Get("mn"), "float[seq]");
  EXPECT_EQ(s.Get("me"), "float[batch,seq]");
}

TEST(ElementwiseShapes, PReluHasTheShapeOfX) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (float[n,c,h,w] x, float[c,1,1] slope) => (float[n,c,h,w] y) {
      y = PRelu (x, slope)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[n,c,h,w]");
}

TEST(ElementwiseShapes, CastTakesTheTargetType) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 19]>
    g (float[batch,seq] x, float16[1] like) => (int32[batch,seq] y) {
      y = Cast <to = 6> (x)
      z = Cast <to = 1, saturate = 0> (x)
      w = CastLike (x, like)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int32[batch,seq]");
  EXPECT_EQ(s.Get("z"), "float[batch,seq]");
  EXPECT_EQ(s.Get("w"), "float16[batch,seq]");
}

// BitCast (opset 26): the input's shape, the type `to`; types of different widths refused.
TEST(ElementwiseShapes, BitCastTakesTheTargetTypeOfTheSameWidth) {
  auto s = InferText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 26]>
    g (float[batch,seq] x, uint8[n] u) => (int32[batch,seq] y) {
      y = BitCast <to = 6> (x)
      b = BitCast <to = 9> (u)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int32[batch,seq]");
  EXPECT_EQ(s.Get("b"), "bool[n]");
  EXPECT_EQ(InferenceRefusal(R"ONNX(
    <ir_version: 13, opset_import: ["" : 26]>
    g (float[batch,seq] x) => (double[batch,seq] y) {
      y = BitCast <to = 11> (x)
    })ONNX"),
            "node #0 (BitCast): BitCast-26 converts between element types of the same width; found FLOAT (32 bits) "
            "to DOUBLE (64 bits)");
}

TEST(ElementwiseShapes, CastVersion1TakesATypeName) {
  auto s = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 1]>
    g (float[batch,seq] x) => (int64[batch,seq] y) {
      y = Cast <to = "INT64"> (x)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[batch,seq]");
}

TEST(ElementwiseShapes, DropoutMaskTypeDependsOnVersion) {
  auto v7 = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 7]>
    g (float[batch,seq] x) => (float[batch,seq] y) {
      y, mask = Dropout <ratio = 0.1> (x)
    })ONNX");
  EXPECT_EQ(v7.Get("y"), "float[batch,seq]");
  EXPECT_EQ(v7.Get("mask"), "float[batch,seq]");
  auto v13 = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x, float r) => (float[batch,seq] y) {
      y, mask = Dropout (x, r)
    })ONNX");
  EXPECT_EQ(v13.Get("y"), "float[batch,seq]");
  EXPECT_EQ(v13.Get("mask"), "bool[batch,seq]");
}

TEST(ElementwiseShapes, ClipKeepsShapeInBothForms) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x, float lo) => (float[batch,seq] y) {
      y = Clip (x, lo)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "float[batch,seq]");
  auto v6 = InferText(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[batch,seq] x) => (float[batch,seq] y) {
      y = Clip <min = 0.0, max = 6.0> (x)
    })ONNX");
  EXPECT_EQ(v6.Get("y"), "float[batch,seq]");
}

// ---- Values of small integer tensors ----

TEST(ElementwiseValues, ArithmeticOnShapeValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq,64] x) => (int64[3] y) {
      shape = Shape (x)
      one = Constant <value_ints = [0, 1, 0]> ()
      two = Constant <value_int = 2> ()
      y = Add (shape, one)
      m = Mul (shape, two)
      d = Sub (m, shape)
      n = Neg (shape)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[3] = [batch,seq+1,64]");
  EXPECT_EQ(s.Get("m"), "int64[3] = [2*batch,2*seq,128]");
  EXPECT_EQ(s.Get("d"), "int64[3] = [batch,seq,64]");
  EXPECT_EQ(s.Get("n"), "int64[3] = [-batch,-seq,-64]");
}

TEST(ElementwiseValues, IntegerDivTruncatesTowardZero) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq] x) => (int64[4] q) {
      a = Constant <value_ints = [-7, 7, -7, 7]> ()
      b = Constant <value_ints = [2, 2, -2, -2]> ()
      q = Div (a, b)
      r = Mod (a, b)
      f = Mod <fmod = 1> (a, b)
      shape = Shape (x)
      two = Constant <value_int = 2> ()
      half = Div (shape, two)
      double = Mul (shape, two)
      back = Div (double, two)
      ratio = Div (shape, shape)
    })ONNX");
  EXPECT_EQ(s.Get("q"), "int64[4] = [-3,3,3,-3]");
  EXPECT_EQ(s.Get("r"), "int64[4] = [1,1,-1,-1]");
  EXPECT_EQ(s.Get("f"), "int64[4] = [-1,1,-1,1]");
  // Sizes are non-negative: truncation is floor division.
  EXPECT_EQ(s.Get("half"), "int64[2] = [batch//2,seq//2]");
  EXPECT_EQ(s.Get("back"), "int64[2] = [batch,seq]");
  EXPECT_EQ(s.Get("ratio"), "int64[2] = [1,1]");
}

TEST(ElementwiseValues, DivOfPossiblyNegativeSymbolsStaysUnknown) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq] x) => (int64[2] q) {
      shape = Shape (x)
      three = Constant <value_int = 3> ()
      minus = Sub (shape, three)
      two = Constant <value_int = 2> ()
      q = Div (minus, two)
      m = Mod <fmod = 1> (minus, two)
    })ONNX");
  EXPECT_EQ(s.Get("q"), "int64[2] = [?,?]");
  EXPECT_EQ(s.Get("m"), "int64[2] = [?,?]");
}

TEST(ElementwiseValues, ComparisonsDecideWhatTheyCan) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,8,64] x) => (bool[3] e) {
      shape = Shape (x)
      ref = Constant <value_ints = [1, 8, 32]> ()
      e = Equal (shape, ref)
      l = Less (shape, ref)
      ge = GreaterOrEqual (shape, ref)
      zero = Constant <value_int = 0> ()
      nonneg = GreaterOrEqual (shape, zero)
    })ONNX");
  EXPECT_EQ(s.Get("e"), "bool[3] = [?,1,0]");
  EXPECT_EQ(s.Get("l"), "bool[3] = [?,0,0]");
  EXPECT_EQ(s.Get("ge"), "bool[3] = [?,1,1]");
  EXPECT_EQ(s.Get("nonneg"), "bool[3] = [1,1,1]");
}

TEST(ElementwiseValues, WhereSelectsWhenTheConditionIsKnown) {
  // The exporters' "replace 0 by the input dim" pattern.
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq,64] x) => (int64[3] r) {
      shape = Shape (x)
      target = Constant <value_ints = [0, -1, 64]> ()
      zero = Constant <value_int = 0> ()
      is_zero = Equal (target, zero)
      r = Where (is_zero, shape, target)
      unknown = Equal (shape, zero)
      u = Where (unknown, target, shape)
    })ONNX");
  EXPECT_EQ(s.Get("r"), "int64[3] = [batch,-1,64]");
  EXPECT_EQ(s.Get("u"), "int64[3] = [?,?,64]");
}

TEST(ElementwiseValues, CastKeepsIntegerValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq] x) => (int32[2] i) {
      shape = Shape (x)
      i = Cast <to = 6> (shape)
      f = Cast <to = 1> (shape)
      c = Constant <value_ints = [0, 3, 300]> ()
      b = Cast <to = 9> (c)
      u = Cast <to = 2> (c)
      back = Cast <to = 7> (b)
    })ONNX");
  EXPECT_EQ(s.Get("i"), "int32[2] = [batch,seq]");
  EXPECT_EQ(s.Get("f"), "float[2]");
  EXPECT_EQ(s.Get("b"), "bool[3] = [0,1,1]");
  EXPECT_EQ(s.Get("u"), "uint8[3] = [0,3,44]");
  EXPECT_EQ(s.Get("back"), "int64[3] = [0,1,1]");
}

TEST(ElementwiseValues, MaxMinAbsAndIdentity) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17]>
    g (float[batch,seq] x) => (int64[2] mx) {
      shape = Shape (x)
      one = Constant <value_int = 1> ()
      zero = Constant <value_int = 0> ()
      mx = Max (shape, zero)
      mn = Min (shape, one)
      neg = Neg (shape)
      ab = Abs (neg)
      id = Identity (shape)
      c = Constant <value_ints = [-3, 4]> ()
      abc = Abs (c)
    })ONNX");
  EXPECT_EQ(s.Get("mx"), "int64[2] = [batch,seq]");
  // min(batch, 1) depends on whether batch is 0.
  EXPECT_EQ(s.Get("mn"), "int64[2] = [?,?]");
  EXPECT_EQ(s.Get("ab"), "int64[2] = [batch,seq]");
  EXPECT_EQ(s.Get("id"), "int64[2] = [batch,seq]");
  EXPECT_EQ(s.Get("abc"), "int64[2] = [3,4]");
}

TEST(ElementwiseValues, ClipOfIntegerValues) {
  auto s = InferText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[batch,seq] x) => (int64[3] y) {
      c = Constant <value_ints = [-5, 3, 100]> ()
      lo = Constant <value_int = 0> ()
      hi = Constant <value_int = 10> ()
      y = Clip (c, lo, hi)
    })ONNX");
  EXPECT_EQ(s.Get("y"), "int64[3] = [0,3,10]");
}

}  // namespace
}  // namespace onnxopt::testing
