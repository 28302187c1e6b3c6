#include "onnx_extensions/patterns/canonicalization/cast_op_cast_pattern.h"

#include <gtest/gtest.h>

#include "tests/onnx_extensions/patterns/pattern_test_util.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// One or two float16 roundings of values below 8 in magnitude.
constexpr double kFloat16Tolerance = 5e-3;

TEST(CastOpCastPattern, RunsTheOperationInTheOutputType) {
  ExpectRewrite<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,16] X, float16[N,16] H) => (float16[N,16] Z) {
      hf = Cast<to=1>(H)
      s = Sub(X, hf)
      Z = Cast<to=10>(s)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,16] X, float16[N,16] H) => (float16[N,16] Z) {
      xh = Cast<to=10>(X)
      Z = Sub(xh, H)
    })ONNX", kFloat16Tolerance);
}

TEST(CastOpCastPattern, RemovesBothCastsAroundAUnaryOp) {
  ExpectRewrite<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,16] H) => (float16[N,16] Z) {
      hf = Cast<to=1>(H)
      n = Neg(hf)
      Z = Cast<to=10>(n)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[N,16] H) => (float16[N,16] Z) {
      Z = Neg(H)
    })ONNX");
}

TEST(CastOpCastPattern, RecreatesAnIntermediateGraphOutput) {
  ExpectRewrite<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4] H) => (float16[4] Z, float[4] n) {
      hf = Cast<to=1>(H)
      n = Neg(hf)
      Z = Cast<to=10>(n)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float16[4] H) => (float16[4] Z, float[4] n) {
      Z = Neg(H)
      n = Cast<to=1>(Z)
    })ONNX");
}

TEST(CastOpCastPattern, RejectsOperandsWithoutCast) {
  ExpectNoMatch<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float[4] Y) => (float16[4] Z) {
      zc = Add(X, Y)
      Z = Cast<to=10>(zc)
    })ONNX", "zc", "no input is produced by a Cast");
}

TEST(CastOpCastPattern, RejectsOutputWithTwoReaders) {
  ExpectNoMatch<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float16[4] H) => (float16[4] Z, float[4] W) {
      hf = Cast<to=1>(H)
      s = Add(X, hf)
      Z = Cast<to=10>(s)
      W = Relu(s)
    })ONNX", "s", "the output is not read by a single Cast");
}

TEST(CastOpCastPattern, RejectsSharedInputCast) {
  ExpectNoMatch<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, float16[4] H) => (float16[4] Z, float[4] W) {
      hf = Cast<to=1>(H)
      s = Add(X, hf)
      Z = Cast<to=10>(s)
      W = Relu(hf)
    })ONNX", "s", "a Cast output has another reader");
}

TEST(CastOpCastPattern, RejectsBypassedCastOfAnotherType) {
  // The new Add would read an int64 and a float16 tensor.
  ExpectNoMatch<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, int64[4] K) => (float16[4] Z) {
      kf = Cast<to=1>(K)
      s = Add(X, kf)
      Z = Cast<to=10>(s)
    })ONNX", "s", "a bypassed Cast's input is not of the output type");
}

TEST(CastOpCastPattern, RejectsIntegerOutputCast) {
  // Cast<to=INT64>(0.5 * 4) is 2, but 0 after truncating 0.5 first.
  ExpectNoMatch<CastOpCastPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[4] X, int64[4] K) => (int64[4] Z) {
      kf = Cast<to=1>(K)
      m = Mul(X, kf)
      Z = Cast<to=7>(m)
    })ONNX", "m", "the output Cast does not convert to a float type");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
