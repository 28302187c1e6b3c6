#include "onnx_extensions/patterns/algebra/mul_mul_mul_scalar_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// Reassociated float products: a few units in the last place.
constexpr double kTolerance = 1e-5;

TEST(MulMulMulScalarPattern, DividesOnceByTheProductOfTwoDivisors) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float[1] c2 = {2.0}, float[1] c3 = {3.0}> {
      xc = Div(X, c2)
      yc = Div(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float[1] c6 = {6.0}> {
      t = Mul(X, Y)
      Z = Div(t, c6)
    })ONNX", kTolerance);
}

TEST(MulMulMulScalarPattern, MultipliesOnceByTheProductOfTwoFactors) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] Y) => (float[N,4] Z) <float c2 = {2.0}, float c3 = {3.0}> {
      xc = Mul(X, c2)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[4] Y) => (float[N,4] Z) <float c6 = {6.0}> {
      t = Mul(X, Y)
      Z = Mul(t, c6)
    })ONNX", kTolerance);
}

// The factor takes the shape (1,) when one constant has it, as broadcasting did.
TEST(MulMulMulScalarPattern, MultipliesByTheQuotientOfAFactorAndADivisor) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float c2 = {2.0}, float[1] c8 = {8.0}> {
      xc = Mul(X, c2)
      yc = Div(Y, c8)
      Z = Mul(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float[1] f = {0.25}> {
      t = Mul(X, Y)
      Z = Mul(t, f)
    })ONNX", kTolerance);
}

// Upstream multiplies by 6 here: (2X) / (3Y) is X/Y times 2/3.
TEST(MulMulMulScalarPattern, DivisionAnchorDividesTheFactors) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float[1] c2 = {2.0}, float[1] c4 = {4.0}> {
      xc = Mul(X, c2)
      yc = Mul(Y, c4)
      Z = Div(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float[1] f = {0.5}> {
      t = Div(X, Y)
      Z = Mul(t, f)
    })ONNX", kTolerance);
}

// Upstream divides by 6 here: (X/2) / (Y/3) is X/Y times 3/2.
TEST(MulMulMulScalarPattern, DivisionOfQuotientsMultipliesByTheInverseRatio) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float c2 = {2.0}, float c3 = {3.0}> {
      xc = Div(X, c2)
      yc = Div(Y, c3)
      Z = Div(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float f = {1.5}> {
      t = Div(X, Y)
      Z = Mul(t, f)
    })ONNX", kTolerance);
}

// (X/2) / (3Y) is X/Y divided by 6.
TEST(MulMulMulScalarPattern, DivisionByAProductDividesByBothConstants) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[N,4] X, double[N,4] Y) => (double[N,4] Z) <double c2 = {2.0}, double c3 = {3.0}> {
      xc = Div(X, c2)
      yc = Mul(Y, c3)
      Z = Div(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[N,4] X, double[N,4] Y) => (double[N,4] Z) <double c6 = {6.0}> {
      t = Div(X, Y)
      Z = Div(t, c6)
    })ONNX", kTolerance);
}

// Wrapping integer multiplication is associative: the values are equal.
TEST(MulMulMulScalarPattern, FoldsIntegerFactors) {
  ExpectRewrite<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,4] X, int64[N,4] Y) => (int64[N,4] Z) <int64[1] c5 = {5}, int64[1] c7 = {7}> {
      xc = Mul(X, c5)
      yc = Mul(Y, c7)
      Z = Mul(xc, yc)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,4] X, int64[N,4] Y) => (int64[N,4] Z) <int64[1] c35 = {35}> {
      t = Mul(X, Y)
      Z = Mul(t, c35)
    })ONNX");
}

TEST(MulMulMulScalarPattern, RejectsSharedInnerProduct) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z, float[N,4] W) <float c2 = {2.0}, float c3 = {3.0}> {
      xc = Mul(X, c2)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
      W = Neg(xc)
    })ONNX", "Z", "the output of an inner Mul or Div has other readers");
}

TEST(MulMulMulScalarPattern, RejectsInnerProductThatIsAGraphOutput) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z, float[N,4] xc) <float c2 = {2.0}, float c3 = {3.0}> {
      xc = Mul(X, c2)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", "Z", "the output of an inner Mul or Div has other readers");
}

TEST(MulMulMulScalarPattern, RejectsVectorConstant) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float[4] c = {1.0, 2.0, 3.0, 4.0}, float c3 = {3.0}> {
      xc = Mul(X, c)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", "Z", "the second input of an inner node is not a constant of shape () or (1,)");
}

// Upstream only looks at the second input.
TEST(MulMulMulScalarPattern, RejectsConstantInFirstPosition) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float c2 = {2.0}, float c3 = {3.0}> {
      xc = Mul(c2, X)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", "Z", "the second input of an inner node is not a constant of shape () or (1,)");
}

// Truncation does not commute: (5/2) * (5*3) = 30, but the factor 3/2 truncates to 1 and
// 5*5*1 = 25.
TEST(MulMulMulScalarPattern, RejectsIntegerDivision) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,4] X, int64[N,4] Y) => (int64[N,4] Z) <int64[1] c2 = {2}, int64[1] c3 = {3}> {
      xc = Div(X, c2)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", "Z", "a division on integers does not commute with the products");
}

TEST(MulMulMulScalarPattern, RejectsIntegerDivisionAnchor) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32[N,4] X, int32[N,4] Y) => (int32[N,4] Z) <int32 c2 = {2}, int32 c3 = {3}> {
      xc = Mul(X, c2)
      yc = Mul(Y, c3)
      Z = Div(xc, yc)
    })ONNX", "Z", "a division on integers does not commute with the products");
}

// 1e30 * 1e30 overflows float: X*1e30 * Y*1e30 is finite for small X and Y.
TEST(MulMulMulScalarPattern, RejectsFactorThatOverflows) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float big = {1e30}> {
      xc = Mul(X, big)
      yc = Mul(Y, big)
      Z = Mul(xc, yc)
    })ONNX", "Z", "the combined factor is not a normal number of the element type");
}

TEST(MulMulMulScalarPattern, RejectsZeroFactor) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X, float16[N,4] Y) => (float16[N,4] Z) <float zero = {0.0}, float c3 = {3.0}> {
      zero16 = Cast<to=10>(zero)
      three16 = Cast<to=10>(c3)
      xc = Mul(X, zero16)
      yc = Div(Y, three16)
      Z = Mul(xc, yc)
    })ONNX", "Z", "the combined factor is not a normal number of the element type");
}

// float16 X = Y = 300 scaled by 1/16 each: 18.75 * 18.75 = 351.6 before, 300 * 300 = inf
// (above 65504) after.
TEST(MulMulMulScalarPattern, RejectsFloat16Operands) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,4] X, float16[N,4] Y) => (float16[N,4] Z) <float q = {0.0625}> {
      q16 = Cast<to=10>(q)
      xc = Mul(X, q16)
      yc = Mul(Y, q16)
      Z = Mul(xc, yc)
    })ONNX", "Z", "Op(X, Y) of unscaled float16 operands can overflow where the original does not");
}

TEST(MulMulMulScalarPattern, RejectsProductOfAValueWithItself) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X) => (float[N,4] Z) <float c2 = {2.0}> {
      xc = Mul(X, c2)
      Z = Mul(xc, xc)
    })ONNX", "Z", "the node reads the same value twice");
}

TEST(MulMulMulScalarPattern, RejectsOtherInnerOperator) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,4] X, float[N,4] Y) => (float[N,4] Z) <float c2 = {2.0}, float c3 = {3.0}> {
      xc = Add(X, c2)
      yc = Mul(Y, c3)
      Z = Mul(xc, yc)
    })ONNX", "Z", "an input is not produced by a default-domain Mul or Div");
}

// Mul-6 broadcasts only with broadcast=1: the Mul by the folded factor of shape (1,) would be
// invalid (an internal error, exit 3, before).
TEST(MulMulMulScalarPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<MulMulMulScalarPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] X, float[2,3] Y) => (float[2,3] Z) <float[1] a = {2.0}, float[1] b = {3.0}> {
      L = Mul <broadcast = 1> (X, a)
      R = Mul <broadcast = 1> (Y, b)
      Z = Mul(L, R)
    })ONNX", "Z", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
