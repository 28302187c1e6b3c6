#include "onnx_extensions/patterns/canonicalization/cast_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

TEST(CastPattern, RemovesCastToTheSameType) {
  ExpectRewrite<CastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[B,S] X) => (float16[B,S] Y) {
      c = Cast<to=10>(X)
      Y = Tanh(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[B,S] X) => (float16[B,S] Y) {
      Y = Tanh(X)
    })ONNX");
}

TEST(CastPattern, RemovesCastOfAnInferredType) {
  ExpectRewrite<CastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[4] X) => (int64[4] Y) {
      n = Neg(X)
      c = Cast<to=7>(n)
      Y = Abs(c)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (int64[4] X) => (int64[4] Y) {
      n = Neg(X)
      Y = Abs(n)
    })ONNX");
}

TEST(CastPattern, RejectsRealConversion) {
  ExpectNoMatch<CastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X) => (float16[4] Y) {
      Y = Cast<to=10>(X)
    })ONNX", "Y", "the Cast changes the element type");
}

TEST(CastPattern, RejectsUnknownInputType) {
  ExpectNoMatch<CastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "custom" : 1]>
    g (float[4] X) => (float[4] Y) {
      c = custom.Unknown(X)
      Y = Cast<to=1>(c)
    })ONNX", "Y", "the element type of the input is unknown");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
