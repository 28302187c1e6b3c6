#include "onnx_extensions/patterns/fusion/div_power_of_two_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(DivPowerOfTwoPattern, MultipliesByTheExactReciprocal) {
  ExpectRewrite<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) <float[3] c = {2.0, -0.25, 1024.0}> {
      Y = Div(X, c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) <float[3] r = {0.5, -4.0, 0.0009765625}> {
      Y = Mul(X, r)
    })ONNX");
}

TEST(DivPowerOfTwoPattern, KeepsDouble) {
  ExpectRewrite<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[N,3] X) => (double[N,3] Y) <double c = {8.0}> {
      Y = Div(X, c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (double[N,3] X) => (double[N,3] Y) <double r = {0.125}> {
      Y = Mul(X, r)
    })ONNX");
}

// 1/3 rounds: x * round(1/3) may differ from x / 3 by one ulp.
TEST(DivPowerOfTwoPattern, RejectsOtherDivisors) {
  ExpectNoMatch<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) <float c = {3.0}> {
      Y = Div(X, c)
    })ONNX", "Y", "an element of the divisor is not a power of two with an exact reciprocal");
}

// 2^127 is a float, but its reciprocal 2^-127 is subnormal there (the pattern takes normal
// reciprocals only).
TEST(DivPowerOfTwoPattern, RejectsReciprocalOutOfRange) {
  ExpectNoMatch<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X) => (float[N,3] Y) <float c = {1.7014118346046923e38}> {
      Y = Div(X, c)
    })ONNX", "Y", "an element of the divisor is not a power of two with an exact reciprocal");
}

// Integer Div truncates: x / 2 is not x * 0.5.
TEST(DivPowerOfTwoPattern, RejectsIntegers) {
  ExpectNoMatch<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[N,3] X) => (int64[N,3] Y) <int64 c = {2}> {
      Y = Div(X, c)
    })ONNX", "Y", "the divisor is not of a float type");
}

TEST(DivPowerOfTwoPattern, RejectsNonConstantDivisor) {
  ExpectNoMatch<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,3] X, float c) => (float[N,3] Y) {
      Y = Div(X, c)
    })ONNX", "Y", "the divisor is not a constant");
}

// Mul-6 broadcasts only with broadcast=1, which the new Mul does not carry: Mul(X, r) with r
// of shape (3,) would be invalid (an internal error, exit 3, before).
TEST(DivPowerOfTwoPattern, RejectsOpsetsBeforeMultidirectionalBroadcasting) {
  ExpectNoMatch<DivPowerOfTwoPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3] X) => (float[2,3] Y) <float[3] c = {2.0, 4.0, 0.5}> {
      Y = Div <broadcast = 1> (X, c)
    })ONNX", "Y", "the opset is older than 7");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
