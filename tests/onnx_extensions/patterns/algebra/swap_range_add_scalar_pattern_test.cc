#include "onnx_extensions/patterns/algebra/swap_range_add_scalar_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(SwapRangeAddScalarPattern, MovesTheOffsetToTheBounds) {
  ExpectRewrite<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[1] plus) => (int64[K] Y) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Add(r, plus)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[1] plus) => (int64[K] Y) <int64 one = {1}> {
      sc = Squeeze(plus)
      end2 = Add(end, sc)
      start2 = Add(start, sc)
      Y = Range(start2, end2, one)
    })ONNX");
}

// A constant start of 0 is replaced by the offset itself; the offset may be computed
// after the Range.
TEST(SwapRangeAddScalarPattern, StartsAtTheOffsetWhenTheStartIsZero) {
  ExpectRewrite<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32 end, int32[1] p) => (int32[K] Y) <int32 zero = {0}, int32 step = {2}> {
      r = Range(zero, end, step)
      plus = Neg(p)
      Y = Add(r, plus)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int32 end, int32[1] p) => (int32[K] Y) <int32 step = {2}> {
      plus = Neg(p)
      sc = Squeeze(plus)
      end2 = Add(end, sc)
      Y = Range(sc, end2, step)
    })ONNX");
}

TEST(SwapRangeAddScalarPattern, RejectsScalarOffset) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64 plus) => (int64[K] Y) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Add(r, plus)
    })ONNX", "r", "the second input of the Add does not have the shape (1,)");
}

TEST(SwapRangeAddScalarPattern, RejectsVectorOffset) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[4] plus) => (int64[4] Y) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Add(r, plus)
    })ONNX", "r", "the second input of the Add does not have the shape (1,)");
}

TEST(SwapRangeAddScalarPattern, RejectsSecondReader) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[1] plus) => (int64[K] Y, int64[K] W) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Add(r, plus)
      W = Neg(r)
    })ONNX", "r", "the output of the Range is not read by an Add alone");
}

// Upstream would delete the graph output r.
TEST(SwapRangeAddScalarPattern, RejectsRangeThatIsAGraphOutput) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[1] plus) => (int64[K] Y, int64[K] r) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Add(r, plus)
    })ONNX", "r", "the output of the Range is not read by an Add alone");
}

TEST(SwapRangeAddScalarPattern, RejectsMulReader) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[1] plus) => (int64[K] Y) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Mul(r, plus)
    })ONNX", "r", "the output of the Range is not read by an Add alone");
}

TEST(SwapRangeAddScalarPattern, RejectsRangeAsSecondOperand) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64 start, int64 end, int64[1] plus) => (int64[K] Y) <int64 one = {1}> {
      r = Range(start, end, one)
      Y = Add(plus, r)
    })ONNX", "r", "the Range is not the first input of the Add");
}

// In float, start + c and end + c round: even the element count may change.
TEST(SwapRangeAddScalarPattern, RejectsFloatRange) {
  ExpectNoMatch<SwapRangeAddScalarPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float start, float end, float[1] plus) => (float[K] Y) <float step = {0.1}> {
      r = Range(start, end, step)
      Y = Add(r, plus)
    })ONNX", "r", "the Range is not on int16, int32 or int64");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
