#include "onnx_extensions/patterns/canonicalization/cast_cast_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(CastCastPattern, RemovesExactWideningRoundTrip) {
  ExpectRewrite<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X) => (float16[N,8] Y) {
      up = Cast<to=1>(X)
      back = Cast<to=10>(up)
      Y = Neg(back)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,8] X) => (float16[N,8] Y) {
      Y = Neg(X)
    })ONNX");
}

TEST(CastCastPattern, KeepsTheFirstCastWhenItHasOtherReaders) {
  ExpectRewrite<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bfloat16[4] X) => (bfloat16[4] Y, float[4] Z) {
      up = Cast<to=1>(X)
      back = Cast<to=16>(up)
      Y = Neg(back)
      Z = Abs(up)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (bfloat16[4] X) => (bfloat16[4] Y, float[4] Z) {
      up = Cast<to=1>(X)
      Y = Neg(X)
      Z = Abs(up)
    })ONNX");
}

TEST(CastCastPattern, KeepsTheFirstConversionWhenTheSecondIsANoOp) {
  ExpectRewrite<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3] X) => (int64[3] Y) {
      a = Cast<to=7>(X)
      Y = Cast<to=7>(a)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[3] X) => (int64[3] Y) {
      Y = Cast<to=7>(X)
    })ONNX");
}

TEST(CastCastPattern, KeepsTheSecondConversionWithItsAttributesWhenTheFirstIsANoOp) {
  ExpectRewrite<CastCastPattern>(R"ONNX(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[3] X) => (float16[3] Y) {
      a = Cast<to=1>(X)
      Y = Cast<saturate=1, to=10>(a)
    })ONNX", R"ONNX(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[3] X) => (float16[3] Y) {
      Y = Cast<saturate=1, to=10>(X)
    })ONNX");
}

TEST(CastCastPattern, RejectsLossyRoundTrip) {
  ExpectNoMatch<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X) => (float[4] Y) {
      half = Cast<to=10>(X)
      Y = Cast<to=1>(half)
    })ONNX", "Y", "the round trip through the intermediate type is not exact");
}

TEST(CastCastPattern, RejectsTwoConversions) {
  ExpectNoMatch<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4] X) => (int64[4] Y) {
      f = Cast<to=1>(X)
      Y = Cast<to=7>(f)
    })ONNX", "Y", "both casts change the element type");
}

TEST(CastCastPattern, RejectsInputNotProducedByCast) {
  ExpectNoMatch<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X) => (float16[4] Y) {
      n = Neg(X)
      Y = Cast<to=10>(n)
    })ONNX", "Y", "the input is not produced by a Cast");
}

TEST(CastCastPattern, RejectsUnknownInputType) {
  ExpectNoMatch<CastCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float[4] X) => (float[4] Y) {
      c = custom.Unknown(X)
      f = Cast<to=1>(c)
      Y = Cast<to=1>(f)
    })ONNX", "Y", "the element type of the first Cast's input is unknown");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
