#include "onnx_extensions/patterns/elimination/dequantize_linear_quantize_linear_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The DequantizeLinear stays for its other reader (a residual branch in float).
TEST(DequantizeLinearQuantizeLinearPattern, RemovesTheRoundTripAndKeepsASharedDequantizeLinear) {
  ExpectRewrite<DequantizeLinearQuantizeLinearPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (uint8[2,3] q) => (uint8[2,3] y, float[2,3] x)
    <float s = {0.05}, uint8 z = {128}>
    {
      x = DequantizeLinear(q, s, z)
      y = QuantizeLinear(x, s, z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (uint8[2,3] q) => (uint8[2,3] y, float[2,3] x)
    <float s = {0.05}, uint8 z = {128}>
    {
      x = DequantizeLinear(q, s, z)
      y = Identity(q)
    })ONNX");
}

// Per axis, int16 data: the widest the round trip keeps (65535 * 1e-3 is still normal).
TEST(DequantizeLinearQuantizeLinearPattern, RemovesAPerAxisInt16RoundTrip) {
  ExpectRewrite<DequantizeLinearQuantizeLinearPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 21]>
    g (int16[2,3] q) => (float[2,3] y)
    <float[2] s = {0.001, 3.0}, int16[2] z = {-7, 300}>
    {
      x = DequantizeLinear<axis = 0>(q, s, z)
      r = QuantizeLinear<axis = 0>(x, s, z)
      y = DequantizeLinear<axis = 0>(r, s, z)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 21]>
    g (int16[2,3] q) => (float[2,3] y)
    <float[2] s = {0.001, 3.0}, int16[2] z = {-7, 300}>
    {
      y = DequantizeLinear<axis = 0>(q, s, z)
    })ONNX");
}

TEST(DequantizeLinearQuantizeLinearPattern, RejectsAnotherScale) {
  ExpectNoMatch<DequantizeLinearQuantizeLinearPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (uint8[4] q) => (uint8[4] y)
    <float s = {0.05}, float t = {0.1}, uint8 z = {128}>
    {
      x = DequantizeLinear(q, s, z)
      y = QuantizeLinear(x, t, z)
    })ONNX", "y", "the two nodes do not share their scale and zero point");
}

// int8 data without a zero point: the QuantizeLinear produces uint8, not the int8 read.
TEST(DequantizeLinearQuantizeLinearPattern, RejectsAQuantizeLinearOfAnotherType) {
  ExpectNoMatch<DequantizeLinearQuantizeLinearPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int8[4] q) => (uint8[4] y)
    <float s = {0.05}>
    {
      x = DequantizeLinear(q, s)
      y = QuantizeLinear(x, s)
    })ONNX", "y", "the QuantizeLinear does not produce the type the DequantizeLinear reads");
}

// A float16 scale (opset 19): the dequantized values are float16, which the rule does not
// vouch for (11 bits of mantissa cannot hold 16-bit data; it takes float32 scales only).
TEST(DequantizeLinearQuantizeLinearPattern, RejectsAFloat16Scale) {
  ExpectNoMatch<DequantizeLinearQuantizeLinearPattern>(R"ONNX(
    <ir_version: 9, opset_import: ["" : 19]>
    g (uint8[4] q) => (uint8[4] y)
    <float s32 = {0.05}, uint8 z = {128}>
    {
      s = Cast<to = 10>(s32)
      x = DequantizeLinear(q, s, z)
      y = QuantizeLinear(x, s, z)
    })ONNX", "y", "the round trip may change a value (the data or the scale is not of a type and range that keep it)");
}

// A zero scale makes QuantizeLinear divide by 0 (MatchVocabulary.
// QuantizationRoundTripsWhereTheRuleSays checks the other scales out of the normal range).
TEST(DequantizeLinearQuantizeLinearPattern, RejectsAZeroScale) {
  ExpectNoMatch<DequantizeLinearQuantizeLinearPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (uint8[4] q) => (uint8[4] y)
    <float s = {0.0}, uint8 z = {128}>
    {
      x = DequantizeLinear(q, s, z)
      y = QuantizeLinear(x, s, z)
    })ONNX", "y", "the round trip may change a value (the data or the scale is not of a type and range that keep it)");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
