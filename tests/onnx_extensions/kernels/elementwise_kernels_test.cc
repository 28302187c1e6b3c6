#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/undefined_results.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(ElementwiseKernels, AddBroadcastsBothWays) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2,1] a, float[3] b) => (float[2,3] y) { y = Add (a, b) })ONNX",
                  {{"a", MakeTensor<float>({2, 1}, {1, 2})}, {"b", MakeTensor<float>({3}, {10, 20, 30})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 3}, {11, 21, 31, 12, 22, 32}));
}

TEST(ElementwiseKernels, IncompatibleBroadcastIsModelError) {
  EXPECT_THROW(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[2] a, float[3] b) => (float[] y) { y = Mul (a, b) })ONNX",
                      {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({3}, {1, 2, 3})}}),
               ModelError);
}

// Before opset 7 B goes into A only with broadcast=1, at `axis` (where numpy would align
// B [3] with A's last dim, 4, and fail), or at the end without it; and a B that does not fit
// is refused where numpy broadcasting would widen the output (a graph_fuzzer finding: the
// shape function said A's shape, [], the kernel computed [1,1,1,4], and Size folded to 1
// gave another result than the evaluator's 4).
TEST(ElementwiseKernels, LegacyBroadcastPutsBIntoAAtTheAxis) {
  auto at_axis = RunOne(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,3,4] a, float[3] b) => (float[2,3,4] y) { y = Add <broadcast = 1, axis = 1> (a, b) })ONNX",
                        {{"a", MakeTensor<float>({2, 3, 4}, std::vector<float>(24, 0))},
                         {"b", MakeTensor<float>({3}, {1, 2, 3})}});
  EXPECT_TENSOR(at_axis, MakeTensor<float>({2, 3, 4}, {1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3,
                                                       1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  auto suffix = RunOne(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[2,2] a, float[2] b) => (float[2,2] y) { y = Sub <broadcast = 1> (a, b) })ONNX",
                       {{"a", MakeTensor<float>({2, 2}, {10, 20, 30, 40})}, {"b", MakeTensor<float>({2}, {1, 2})}});
  EXPECT_TENSOR(suffix, MakeTensor<float>({2, 2}, {9, 18, 29, 38}));
  EXPECT_THAT([] {
    RunOne(R"ONNX(
      <ir_version: 3, opset_import: ["" : 1]>
      g (double a, double[1,1,1,4] b) => (double[] y) { y = Div (a, b) })ONNX",
           {{"a", MakeTensor<double>({}, {1})}, {"b", MakeTensor<double>({1, 1, 1, 4}, {1, 2, 3, 4})}});
  }, ThrowsMessage<ModelError>(HasSubstr("without broadcast=1 (opset 1) the inputs have one shape; found [] and [1,1,1,4]")));
  EXPECT_THAT([] {
    RunOne(R"ONNX(
      <ir_version: 3, opset_import: ["" : 6]>
      g (float[2] a, float[2,2] b) => (float[] y) { y = Mul <broadcast = 1> (a, b) })ONNX",
           {{"a", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}});
  }, ThrowsMessage<ModelError>(HasSubstr("with broadcast=1, B [2,2] is not a run of the dims of A [2] at axis -1")));
}

TEST(ElementwiseKernels, IntegerDivTruncatesAndModFollowsDivisor) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int32[4] a, int32[4] b) => (int32[4] d, int32[4] m, int32[4] f) {
      d = Div (a, b)
      m = Mod (a, b)
      f = Mod <fmod = 1> (a, b)
    })ONNX",
                     {{"a", MakeTensor<std::int32_t>({4}, {7, -7, 7, -7})},
                      {"b", MakeTensor<std::int32_t>({4}, {2, 2, -2, -2})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("d")), MakeTensor<std::int32_t>({4}, {3, -3, -3, 3}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("m")), MakeTensor<std::int32_t>({4}, {1, 1, -1, -1}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("f")), MakeTensor<std::int32_t>({4}, {1, -1, 1, -1}));
}

TEST(ElementwiseKernels, PowWithMixedTypes) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (float[3] a, int64[3] b) => (float[3] y) { y = Pow (a, b) })ONNX",
                  {{"a", MakeTensor<float>({3}, {1, 2, 3})}, {"b", MakeTensor<std::int64_t>({3}, {4, 5, 6})}});
  EXPECT_TENSOR(y, MakeTensor<float>({3}, {1, 32, 729}));
}

// Integer arithmetic wraps around in two's complement, without C++ undefined behaviour
// (found by fuzz/graph_fuzzer.cc under UBSan; build-asan's kernel_tests fail without the
// fix).
TEST(ElementwiseKernels, IntegerArithmeticWrapsAround) {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int64[2] a, int64[2] b, uint16[1] u, int8[2] c, int32[2] i) => (int64[2] s, int64[2] d, int64[2] p, int64[2] n, uint16[1] q,
                                                         int8[2] m, int64[2] t, int32[2] r) {
      s = Add (a, b)
      d = Sub (a, b)
      p = Mul (a, a)
      n = Neg (a)
      q = Mul (u, u)
      m = Abs (c)
      t = Sum (a, b, b)
      r = PRelu (i, i)
    })ONNX",
                     {{"a", MakeTensor<std::int64_t>({2}, {kMax, kMin})},
                      {"b", MakeTensor<std::int64_t>({2}, {1, -1})},
                      {"u", MakeTensor<std::uint16_t>({1}, {65535})},
                      {"c", MakeTensor<std::int8_t>({2}, {-128, -5})},
                      {"i", MakeTensor<std::int32_t>({2}, {std::numeric_limits<std::int32_t>::min(), -5})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("s")), MakeTensor<std::int64_t>({2}, {kMin, kMax}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("d")), MakeTensor<std::int64_t>({2}, {kMax - 1, kMin + 1}));
  // (2^63 - 1)^2 = 2^126 - 2^64 + 1 = 1 mod 2^64; (-2^63)^2 = 2^126 = 0 mod 2^64.
  EXPECT_TENSOR(std::get<Tensor>(out.at("p")), MakeTensor<std::int64_t>({2}, {1, 0}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("n")), MakeTensor<std::int64_t>({2}, {-kMax, kMin}));
  // 65535^2 = 4294836225 = 65536 * 65534 + 1.
  EXPECT_TENSOR(std::get<Tensor>(out.at("q")), MakeTensor<std::uint16_t>({1}, {1}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("m")), MakeTensor<std::int8_t>({2}, {-128, 5}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("t")), MakeTensor<std::int64_t>({2}, {kMin + 1, kMax - 1}));
  // PRelu of a negative x is slope * x: (-2^31)^2 = 2^62 = 0 mod 2^32, (-5)^2 = 25.
  EXPECT_TENSOR(std::get<Tensor>(out.at("r")), MakeTensor<std::int32_t>({2}, {0, 25}));
}

// An integer base to an infinite or huge float exponent: every double >= 2^64 is a
// multiple of 2^64, so the wrapped power is 0 for an even base and 1 for an odd one.
TEST(ElementwiseKernels, IntegerPowerOfHugeExponentWraps) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (int64[3] a, float[3] b) => (int64[3] y) { y = Pow (a, b) })ONNX",
                  {{"a", MakeTensor<std::int64_t>({3}, {2, 3, -1})},
                   {"b", MakeTensor<float>({3}, {std::numeric_limits<float>::infinity(), 1e30f, 1e20f})}});
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({3}, {0, 1, 1}));
}

// An integer power beyond its type's range, or a non-integer one (NaN for a negative base),
// has no value in the spec: the kernel's is noted as undefined, so that folding leaves it.
TEST(ElementwiseKernels, IntegerPowerOutOfRangeIsNotedAsUndefined) {
  const auto undefined = [](std::int64_t a, float b) {
    core::eval::ScopedUndefinedResults scope;
    RunOne(R"ONNX(
      <ir_version: 8, opset_import: ["" : 15]>
      g (int64[1] a, float[1] b) => (int64[1] y) { y = Pow (a, b) })ONNX",
           {{"a", MakeTensor<std::int64_t>({1}, {a})}, {"b", MakeTensor<float>({1}, {b})}});
    return scope.first().has_value();
  };
  EXPECT_FALSE(undefined(2, 62));
  EXPECT_FALSE(undefined(-2, 3));
  EXPECT_FALSE(undefined(4, 0.5f));
  EXPECT_TRUE(undefined(2, 63));
  EXPECT_TRUE(undefined(3, 1e30f));
  EXPECT_TRUE(undefined(-4, 0.5f));
}

// The smallest integer divided by -1 has no value in its type (onnxruntime stops with
// SIGFPE): noted, so that folding leaves it. Its remainder, 0, is defined.
TEST(ElementwiseKernels, IntegerQuotientOutOfRangeIsNotedAsUndefined) {
  const auto undefined = [](std::string_view op, std::int32_t a, std::int32_t b) {
    core::eval::ScopedUndefinedResults scope;
    RunOne("<ir_version: 8, opset_import: [\"\" : 18]>\n"
           "g (int32[1] a, int32[1] b) => (int32[1] y) { y = " + std::string(op) + " (a, b) }",
           {{"a", MakeTensor<std::int32_t>({1}, {a})}, {"b", MakeTensor<std::int32_t>({1}, {b})}});
    return scope.first().has_value();
  };
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  EXPECT_TRUE(undefined("Div", kMin, -1));
  EXPECT_FALSE(undefined("Div", kMin, 1));
  EXPECT_FALSE(undefined("Div", kMin + 1, -1));
  EXPECT_FALSE(undefined("Mod", kMin, -1));
}

// Shrink's float attributes can take an integer result out of range: it saturates like
// Cast (graph fuzzer, UBSan: 3.4e38 converted to uint64).
TEST(ElementwiseKernels, IntegerShrinkSaturates) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (int8[3] x) => (int8[3] y) { y = Shrink <bias = -1000.0, lambd = 0.5> (x) })ONNX",
                  {{"x", MakeTensor<std::int8_t>({3}, {100, -100, 0})}});
  // 100 - (-1000) = 1100 -> 127; -100 + (-1000) = -1100 -> -128.
  EXPECT_TENSOR(y, MakeTensor<std::int8_t>({3}, {127, -128, 0}));
}

TEST(ElementwiseKernels, RoundHalfToEven) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float[6] x) => (float[6] y) { y = Round (x) })ONNX",
                  {{"x", MakeTensor<float>({6}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f})}});
  EXPECT_TENSOR(y, MakeTensor<float>({6}, {0, 2, 2, -0.0f, -2, 2}));
}

TEST(ElementwiseKernels, ActivationsMatchTheSpecFormulas) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 20]>
    g (float[3] x) => (float[3] r, float[3] l, float[3] e, float[3] h, float[3] s, float[3] g, float[3] t) {
      r = Relu (x)
      l = LeakyRelu <alpha = 0.1> (x)
      e = Elu <alpha = 2.0> (x)
      h = HardSigmoid (x)
      s = Sigmoid (x)
      g = Gelu (x)
      t = Gelu <approximate = "tanh"> (x)
    })ONNX",
                     {{"x", MakeTensor<float>({3}, {-1, 0, 1})}});
  auto get = [&](const char* n) { return std::get<Tensor>(out.at(n)); };
  EXPECT_TENSOR(get("r"), MakeTensor<float>({3}, {0, 0, 1}));
  EXPECT_TENSOR(get("l"), MakeTensor<float>({3}, {-0.1f, 0, 1}));
  EXPECT_TENSOR(get("e"), MakeTensor<float>({3}, {2 * (std::exp(-1.0f) - 1), 0, 1}));
  EXPECT_TENSOR(get("h"), MakeTensor<float>({3}, {0.3f, 0.5f, 0.7f}));
  EXPECT_TENSOR(get("s"), MakeTensor<float>({3}, {1 / (1 + std::exp(1.0f)), 0.5f, 1 / (1 + std::exp(-1.0f))}));
  EXPECT_TENSOR(get("g"), MakeTensor<float>({3}, {-0.15865525f, 0, 0.8413447f}));
  EXPECT_TENSOR_NEAR(get("t"), MakeTensor<float>({3}, {-0.15880801f, 0, 0.841192f}), 1e-5);
}

TEST(ElementwiseKernels, ClipUsesAttributesBefore11AndInputsSince) {
  auto a = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 6]>
    g (float[3] x) => (float[3] y) { y = Clip <min = -1.0, max = 1.0> (x) })ONNX",
                  {{"x", MakeTensor<float>({3}, {-2, 0, 2})}});
  EXPECT_TENSOR(a, MakeTensor<float>({3}, {-1, 0, 1}));
  auto b = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int32[3] x, int32 lo) => (int32[3] y) { y = Clip (x, lo, ) })ONNX",
                  {{"x", MakeTensor<std::int32_t>({3}, {-2, 0, 2})}, {"lo", MakeScalar<std::int32_t>(-1)}});
  EXPECT_TENSOR(b, MakeTensor<std::int32_t>({3}, {-1, 0, 2}));
}

// int64 bounds are used as they are (found by graph_fuzzer: clip-int64-max-bound-ubsan):
// INT64_MAX read through a double became 2^63, undefined as an int64, and a bound beyond
// 2^53 lost its low bits.
TEST(ElementwiseKernels, ClipTakesInt64BoundsExactly) {
  const std::int64_t big = (std::int64_t{1} << 53) + 1;
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int64[3] x, int64 lo, int64 hi) => (int64[3] y) { y = Clip (x, lo, hi) })ONNX",
                  {{"x", MakeTensor<std::int64_t>({3}, {0, big + 1, std::numeric_limits<std::int64_t>::max()})},
                   {"lo", MakeScalar<std::int64_t>(big)},
                   {"hi", MakeScalar<std::int64_t>(std::numeric_limits<std::int64_t>::max())}});
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({3}, {big, big + 1, std::numeric_limits<std::int64_t>::max()}));
}

TEST(ElementwiseKernels, VariadicMaxAndMeanBroadcast) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[3] a, float[1] b, float[3] c) => (float[3] mx, float[3] mean) {
      mx = Max (a, b, c)
      mean = Mean (a, b, c)
    })ONNX",
                     {{"a", MakeTensor<float>({3}, {3, 2, 1})},
                      {"b", MakeTensor<float>({1}, {2})},
                      {"c", MakeTensor<float>({3}, {1, 3, 4})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("mx")), MakeTensor<float>({3}, {3, 3, 4}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("mean")), MakeTensor<float>({3}, {2, 7.0f / 3, 7.0f / 3}));
}

TEST(ElementwiseKernels, ComparisonsAndLogic) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (int64[3] a, int64[3] b) => (bool[3] lt, bool[3] ge, bool[3] x, bool[3] n) {
      lt = Less (a, b)
      ge = GreaterOrEqual (a, b)
      x = Xor (lt, ge)
      n = Not (lt)
    })ONNX",
                     {{"a", MakeTensor<std::int64_t>({3}, {1, 2, 3})}, {"b", MakeTensor<std::int64_t>({3}, {2, 2, 2})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("lt")), MakeTensor<bool>({3}, {true, false, false}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("ge")), MakeTensor<bool>({3}, {false, true, true}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("x")), MakeTensor<bool>({3}, {true, true, true}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("n")), MakeTensor<bool>({3}, {false, true, true}));
}

TEST(ElementwiseKernels, BitwiseAndBitShift) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (uint8[3] a, uint8[3] b) => (uint8[3] x, uint8[3] l, uint8[3] n) {
      x = BitwiseXor (a, b)
      l = BitShift <direction = "LEFT"> (a, b)
      n = BitwiseNot (a)
    })ONNX",
                     {{"a", MakeTensor<std::uint8_t>({3}, {16, 4, 1})}, {"b", MakeTensor<std::uint8_t>({3}, {1, 2, 3})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("x")), MakeTensor<std::uint8_t>({3}, {17, 6, 2}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("l")), MakeTensor<std::uint8_t>({3}, {32, 16, 8}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("n")), MakeTensor<std::uint8_t>({3}, {239, 251, 254}));
}

TEST(ElementwiseKernels, WhereBroadcastsThreeInputs) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (bool[2,1] c, float[2] a, float b) => (float[2,2] y) { y = Where (c, a, b) })ONNX",
                  {{"c", MakeTensor<bool>({2, 1}, {true, false})},
                   {"a", MakeTensor<float>({2}, {1, 2})},
                   {"b", MakeScalar<float>(9)}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 2}, {1, 2, 9, 9}));
}

TEST(ElementwiseKernels, IsNaNAndIsInf) {
  const float inf = std::numeric_limits<float>::infinity();
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 20]>
    g (float[4] x) => (bool[4] n, bool[4] i) {
      n = IsNaN (x)
      i = IsInf <detect_negative = 0> (x)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {1, std::nanf(""), inf, -inf})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("n")), MakeTensor<bool>({4}, {false, true, false, false}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("i")), MakeTensor<bool>({4}, {false, false, true, false}));
}

// `x` cast to the element type `to` and back to float, at `opset`.
Tensor CastThereAndBack(int to, int opset, const std::vector<float>& x) {
  const std::string n = std::to_string(x.size());
  return RunOne("<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) + "]>\n" +
                    "g (float[" + n + "] x) => (float[" + n + "] y) {\n" +
                    "  q = Cast <to = " + std::to_string(to) + "> (x)\n  y = Cast <to = 1> (q)\n}",
                {{"x", MakeTensor<float>({static_cast<std::int64_t>(x.size())}, x)}});
}

TEST(ElementwiseKernels, Float16ComputesThroughFloat) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 14]>
    g (float16[2] a, float16[2] b) => (float16[2] y) { y = Add (a, b) })ONNX",
                  {{"a", MakeHalf({2}, {1.5f, 2})}, {"b", MakeHalf({2}, {0.25f, -4})}});
  EXPECT_TENSOR(y, MakeHalf({2}, {1.75f, -2}));
}

TEST(ElementwiseKernels, CastBetweenNumbersBoolAndStrings) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] x, string[2] s) => (int32[4] i, bool[4] b, float[2] f, float16[4] h) {
      i = Cast <to = 6> (x)
      b = Cast <to = 9> (x)
      f = Cast <to = 1> (s)
      h = Cast <to = 10> (x)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {1.7f, -1.7f, 0, 3})},
                      {"s", MakeTensor<std::string>({2}, {"3.5", "-INF"})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("i")), MakeTensor<std::int32_t>({4}, {1, -1, 0, 3}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("b")), MakeTensor<bool>({4}, {true, true, false, true}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("f")), MakeTensor<float>({2}, {3.5f, -std::numeric_limits<float>::infinity()}));
  EXPECT_TENSOR_NEAR(std::get<Tensor>(out.at("h")), MakeHalf({4}, {1.7f, -1.7f, 0, 3}), 1e-3);
}

// Swish (opset 24): x * sigmoid(alpha * x); alpha 1 by default (SiLU).
TEST(ElementwiseKernels, SwishScalesTheSigmoidsInput) {
  auto out = RunText(R"ONNX(
    <ir_version: 12, opset_import: ["" : 24]>
    g (float[4] x) => (float[4] y, float[4] z) {
      y = Swish (x)
      z = Swish <alpha = 2.0> (x)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {-2, 0, 1, 30})}});
  auto swish = [](float x, float alpha) { return x / (1 + std::exp(-alpha * x)); };
  EXPECT_TENSOR(OutputTensor(out, "y"), MakeTensor<float>({4}, {swish(-2, 1), 0, swish(1, 1), 30}));
  EXPECT_TENSOR(OutputTensor(out, "z"), MakeTensor<float>({4}, {swish(-2, 2), 0, swish(1, 2), 30}));
}

// BitCast (opset 26) keeps the bits: 1.0f is 0x3f800000, -2.0f 0xc0000000, int8 -1 is
// uint8 255; the float comes back unchanged.
TEST(ElementwiseKernels, BitCastKeepsTheBits) {
  auto out = RunText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 26]>
    g (float[3] x, int8[3] s, uint8[3] u, float16[2] h) => (int32[3] i, float[3] back, uint8[3] su, bool[3] b, int16[2] hi) {
      i = BitCast <to = 6> (x)
      back = BitCast <to = 1> (i)
      su = BitCast <to = 2> (s)
      b = BitCast <to = 9> (u)
      hi = BitCast <to = 5> (h)
    })ONNX",
                     {{"x", MakeTensor<float>({3}, {1.0f, -2.0f, 0.5f})},
                      {"s", MakeTensor<std::int8_t>({3}, {-1, -128, 5})},
                      {"u", MakeTensor<std::uint8_t>({3}, {0, 1, 1})},
                      {"h", MakeHalf({2}, {1.0f, -0.0f})}});
  EXPECT_TENSOR(OutputTensor(out, "i"), MakeTensor<std::int32_t>({3}, {0x3f800000, -0x40000000, 0x3f000000}));
  EXPECT_TENSOR(OutputTensor(out, "back"), MakeTensor<float>({3}, {1.0f, -2.0f, 0.5f}));
  EXPECT_TENSOR(OutputTensor(out, "su"), MakeTensor<std::uint8_t>({3}, {255, 128, 5}));
  EXPECT_TENSOR(OutputTensor(out, "b"), MakeTensor<bool>({3}, {false, true, true}));
  EXPECT_TENSOR(OutputTensor(out, "hi"), MakeTensor<std::int16_t>({2}, {0x3c00, -0x8000}));
}

// The 2- and 4-bit types: the low bits of each element, sign-extended into the signed
// integers (uint4 15 is int4 -1; int4 -1, 2, 7, 1 are the float4e2m1 codes of -6, 1, 6, 0.5).
TEST(ElementwiseKernels, BitCastBetweenPackedTypesReadsTheLowBits) {
  auto out = RunText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 26]>
    g (uint8[4] u4, uint8[4] u2, int8[4] i4) => (int8[4] signed4, int8[4] signed2, float[4] f4) {
      a = Cast <to = 21> (u4)
      b = BitCast <to = 22> (a)
      signed4 = Cast <to = 3> (b)
      c = Cast <to = 25> (u2)
      d = BitCast <to = 26> (c)
      signed2 = Cast <to = 3> (d)
      e = Cast <to = 22> (i4)
      f = BitCast <to = 23> (e)
      f4 = Cast <to = 1> (f)
    })ONNX",
                     {{"u4", MakeTensor<std::uint8_t>({4}, {15, 8, 7, 0})},
                      {"u2", MakeTensor<std::uint8_t>({4}, {3, 2, 1, 0})},
                      {"i4", MakeTensor<std::int8_t>({4}, {-1, 2, 7, 1})}});
  EXPECT_TENSOR(OutputTensor(out, "signed4"), MakeTensor<std::int8_t>({4}, {-1, -8, 7, 0}));
  EXPECT_TENSOR(OutputTensor(out, "signed2"), MakeTensor<std::int8_t>({4}, {-1, -2, 1, 0}));
  EXPECT_TENSOR(OutputTensor(out, "f4"), MakeTensor<float>({4}, {-6, 1, 6, 0.5f}));
}

// Types of different widths are refused, and a byte that is no bool is not read as one.
TEST(ElementwiseKernels, BitCastRefusesOtherWidthsAndBytesThatAreNoBool) {
  EXPECT_THAT(ModelErrorOf(GraphText(26, "(float[2] x) => (int64[2] y)", "y = BitCast <to = 7> (x)"),
                           {{"x", MakeTensor<float>({2}, {1, 2})}}),
              HasSubstr("BitCast from FLOAT (32 bits) to INT64 (64 bits): the widths differ"));
  EXPECT_THAT(ModelErrorOf(GraphText(26, "(uint8[3] x) => (bool[3] y)", "y = BitCast <to = 9> (x)"),
                           {{"x", MakeTensor<std::uint8_t>({3}, {1, 0, 2})}}),
              HasSubstr("BitCast to bool: element 2 has the byte 2, which is no bool (0 or 1)"));
}

TEST(ElementwiseKernels, CastToFloat8SaturatesByDefault) {
  // E4M3FN: max 448 (0x7E); 1.0 is 0x38; NaN is 0x7F.
  auto out = RunText(R"ONNX(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[4] x) => (float[4] y, float[4] z) {
      e = Cast <to = 17> (x)
      y = Cast <to = 1> (e)
      u = Cast <to = 17, saturate = 0> (x)
      z = Cast <to = 1> (u)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {1, 1000, -1000, 0.3f})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("y")), MakeTensor<float>({4}, {1, 448, -448, 0.3125f}));
  const float nan = std::nanf("");
  EXPECT_TENSOR(std::get<Tensor>(out.at("z")), MakeTensor<float>({4}, {1, nan, nan, 0.3125f}));
}

// float4.md: round to nearest even (ties to an even mantissa), beyond +-6 and infinities
// saturate, NaN gives 6; float4 reads back exactly.
TEST(ElementwiseKernels, CastToFloat4E2M1RoundsToNearestEvenAndSaturates) {
  EXPECT_TENSOR(CastThereAndBack(23, 23, {0.25f, 0.75f, 1.25f, 1.75f, 2.5f, 3.5f, 5, 7, -INFINITY, NAN}),
                MakeTensor<float>({10}, {0, 1, 1, 2, 2, 4, 4, 6, -6, 6}));
}

// Cast from a float to an integer type is undefined out of the type's range (the spec); the
// kernel saturates (NaN gives 0) and notes it, so that folding leaves such a Cast to the
// runtime (onnxruntime on x86 gives the type's minimum). Truncation toward zero decides:
// -2147483648.9 is int32's minimum, 2147483648 is beyond its maximum, -0.5 is uint8's 0.
TEST(ElementwiseKernels, CastOutOfAnIntegerRangeIsNotedAsUndefined) {
  struct Target {
    std::string name;
    int code;
  };
  const auto undefined = [](const Target& to, std::vector<double> values) {
    core::eval::ScopedUndefinedResults scope;
    const std::string n = std::to_string(values.size());
    RunOne("<ir_version: 8, opset_import: [\"\" : 18]>\n"
           "g (double[" + n + "] x) => (" + to.name + "[" + n + "] y) { y = Cast <to = " + std::to_string(to.code) +
               "> (x) }",
           {{"x", MakeTensor<double>({static_cast<std::int64_t>(values.size())}, values)}});
    return scope.first().has_value();
  };
  const Target kInt32{"int32", 6}, kInt64{"int64", 7}, kUint8{"uint8", 2};
  EXPECT_FALSE(undefined(kInt32, {3.5, -2147483648.9, 2147483647.9, -1e-300}));
  EXPECT_TRUE(undefined(kInt32, {2147483648.0}));
  EXPECT_TRUE(undefined(kInt32, {-2147483649.0}));
  EXPECT_TRUE(undefined(kInt32, {NAN}));
  EXPECT_TRUE(undefined(kInt32, {INFINITY}));
  EXPECT_FALSE(undefined(kInt64, {-0x1p63, 0x1.fffffffffffffp62}));
  EXPECT_TRUE(undefined(kInt64, {0x1p63}));
  EXPECT_FALSE(undefined(kUint8, {-0.5, 255.5}));
  EXPECT_TRUE(undefined(kUint8, {-1.0}));
  EXPECT_TRUE(undefined(kUint8, {256.0}));
}

// Cast to float8e8m0 (opset 24) picks a power of two by round_mode: "up" (the default) the
// one above, "down" the one below, "nearest" the nearer (1.5 * 2^k goes up). Beyond 2^127 it
// saturates or gives NaN (saturate = 0); NaN stays NaN.
TEST(ElementwiseKernels, CastToFloat8E8M0RoundsByRoundMode) {
  const auto cast = [](const std::string& attributes, const std::vector<float>& x) {
    const std::string n = std::to_string(x.size());
    return RunOne("<ir_version: 10, opset_import: [\"\" : 24]>\ng (float[" + n + "] x) => (float[" + n +
                      "] y) {\n  q = Cast <to = 24" + attributes + "> (x)\n  y = Cast <to = 1> (q)\n}",
                  {{"x", MakeTensor<float>({static_cast<std::int64_t>(x.size())}, x)}});
  };
  const float nan = std::nanf(""), big = 0x1.8p127f;  // 1.5 * 2^127: above the largest code, 2^127
  const std::vector<float> x = {1, 1.4f, 1.5f, 3, 0.3f, 0x1p-126f, big, nan};
  EXPECT_TENSOR(cast("", x), MakeTensor<float>({8}, {1, 2, 2, 4, 0.5f, 0x1p-126f, 0x1p127f, nan}));
  EXPECT_TENSOR(cast(", round_mode = \"down\"", x), MakeTensor<float>({8}, {1, 1, 1, 2, 0.25f, 0x1p-126f, 0x1p127f, nan}));
  EXPECT_TENSOR(cast(", round_mode = \"nearest\"", x),
                MakeTensor<float>({8}, {1, 1, 2, 4, 0.25f, 0x1p-126f, 0x1p127f, nan}));
  EXPECT_TENSOR(cast(", saturate = 0", {big, 0x1p127f}), MakeTensor<float>({2}, {nan, 0x1p127f}));
  EXPECT_TENSOR(cast(", round_mode = \"down\", saturate = 0", {big}), MakeTensor<float>({1}, {0x1p127f}));
}

// Negative values (unspecified), infinities, zero and values below 2^-126 (where the ONNX
// reference, which rounds the float32 exponent field, departs from Cast's table) are noted,
// so that folding leaves such a Cast to the runtime.
TEST(ElementwiseKernels, CastToFloat8E8M0NotesWhatTheSpecLeavesOpen) {
  const auto noted = [](float value) {
    core::eval::ScopedUndefinedResults scope;
    CastThereAndBack(24, 24, {value});
    return scope.first().has_value();
  };
  for (const float value : {1.0f, 0x1p-126f, 0x1.fffffep127f, std::nanf("")}) EXPECT_FALSE(noted(value)) << value;
  for (const float value : {-2.0f, -0.0f, 0.0f, 0x1p-127f, INFINITY}) EXPECT_TRUE(noted(value)) << value;
  EXPECT_TENSOR(CastThereAndBack(24, 24, {-2.0f, 0.0f, INFINITY}), MakeTensor<float>({3}, {2, 0x1p-127f, 0x1p127f}));
}

TEST(ElementwiseKernels, CastLikeAndDropoutPassThrough) {
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 15]>
    g (int64[2] x, double[2] f, double[1] like) => (double[2] y, double[2] d, bool[2] m) {
      y = CastLike (x, like)
      d, m = Dropout (f)
    })ONNX",
                     {{"x", MakeTensor<std::int64_t>({2}, {3, -4})}, {"f", MakeTensor<double>({2}, {3, -4})},
                      {"like", MakeTensor<double>({1}, {0})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("y")), MakeTensor<double>({2}, {3, -4}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("d")), MakeTensor<double>({2}, {3, -4}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("m")), MakeTensor<bool>({2}, {true, true}));
}

TEST(ElementwiseKernels, PReluBroadcastsSlope) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 16]>
    g (float[2,2] x, float[2] s) => (float[2,2] y) { y = PRelu (x, s) })ONNX",
                  {{"x", MakeTensor<float>({2, 2}, {-1, 2, -3, 4})}, {"s", MakeTensor<float>({2}, {0.5f, 0.25f})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 2}, {-0.5f, 2, -1.5f, 4}));
}

}  // namespace
}  // namespace onnxopt::testing

namespace onnxopt::testing {
namespace {

TEST(ElementwiseKernels, CastToBFloat16TruncatesBefore19AndRoundsSince) {
  // 0.48033667f is 0x3EF5EFF5: truncation keeps 0x3EF5, rounding gives 0x3EF6.
  const char* text = R"ONNX(
    <ir_version: 9, opset_import: ["" : %d]>
    g (float[1] x) => (bfloat16[1] y) { y = Cast <to = 16> (x) })ONNX";
  char buf[256];
  std::snprintf(buf, sizeof buf, text, 13);
  auto old = RunOne(buf, {{"x", MakeTensor<float>({1}, {0.48033667f})}});
  EXPECT_EQ(old.Data<std::uint16_t>()[0], 0x3EF5);
  std::snprintf(buf, sizeof buf, text, 19);
  auto now = RunOne(buf, {{"x", MakeTensor<float>({1}, {0.48033667f})}});
  EXPECT_EQ(now.Data<std::uint16_t>()[0], 0x3EF6);
}

TEST(ElementwiseKernels, CastFloatToStringUsesShortestForm) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] x) => (string[4] y) { y = Cast <to = 8> (x) })ONNX",
                  {{"x", MakeTensor<float>({4}, {0.9767611f, 0.039187793f, std::nanf(""), -std::numeric_limits<float>::infinity()})}});
  EXPECT_TENSOR(y, MakeTensor<std::string>({4}, {"0.9767611", "0.039187793", "NaN", "-INF"}));
}

TEST(ElementwiseKernels, CastStringToFloatAcceptsInfinityForms) {
  const float inf = std::numeric_limits<float>::infinity();
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (string[4] x) => (float[4] y) { y = Cast <to = 1> (x) })ONNX",
                  {{"x", MakeTensor<std::string>({4}, {"1e-5", "INF", "+INF", "-inf"})}});
  EXPECT_TENSOR(y, MakeTensor<float>({4}, {1e-5f, inf, inf, -inf}));
}

// int4.md: round to nearest even, then keep the low 4 bits (out-of-range values wrap).
TEST(ElementwiseKernels, CastToInt4RoundsAndWraps) {
  EXPECT_TENSOR(CastThereAndBack(22, 21, {-20, 2.5f, 9}), MakeTensor<float>({3}, {-4, 2, -7}));
}

// The 2-bit types (opset 25) likewise keep the low 2 bits: Cast's test data, -3 to 3.
TEST(ElementwiseKernels, CastToTwoBitTypesRoundsAndWraps) {
  const std::vector<float> x = {-3, -2, -1, 0, 1, 2, 3, 1.5f, 2.5f};
  EXPECT_TENSOR(CastThereAndBack(26, 25, x), MakeTensor<float>({9}, {1, -2, -1, 0, 1, -2, -1, -2, -2}));
  EXPECT_TENSOR(CastThereAndBack(25, 25, x), MakeTensor<float>({9}, {1, 2, 3, 0, 1, 2, 3, 2, 2}));
}

}  // namespace
}  // namespace onnxopt::testing

namespace onnxopt::testing {
namespace {

TEST(ElementwiseKernels, CastToOtherFloat8Formats) {
  // E5M2 keeps infinities without saturation; the FNUZ formats have a single NaN and no -0.
  const float inf = std::numeric_limits<float>::infinity();
  auto out = RunText(R"ONNX(
    <ir_version: 9, opset_import: ["" : 19]>
    g (float[4] x) => (float[4] a, float[4] b, float[4] c) {
      e = Cast <to = 19, saturate = 0> (x)
      a = Cast <to = 1> (e)
      f = Cast <to = 19> (x)
      b = Cast <to = 1> (f)
      u = Cast <to = 18> (x)
      c = Cast <to = 1> (u)
    })ONNX",
                     {{"x", MakeTensor<float>({4}, {1e6f, -0.0f, 3, 0.1f})}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("a")), MakeTensor<float>({4}, {inf, -0.0f, 3, 0.09375f}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("b")), MakeTensor<float>({4}, {57344, -0.0f, 3, 0.09375f}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("c")), MakeTensor<float>({4}, {240, 0, 3, 0.1015625f}));
}

}  // namespace
}  // namespace onnxopt::testing

namespace onnxopt::testing {
namespace {

TEST(ElementwiseKernels, SeededTrainingDropoutMatchesNumPyStream) {
  // np.random.seed(0); np.random.uniform(0, 1, 4) = [0.549, 0.715, 0.603, 0.545].
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[4] x, float r, bool t) => (float[4] y, bool[4] m) { y, m = Dropout <seed = 0> (x, r, t) })ONNX",
                     {{"x", MakeTensor<float>({4}, {1, 2, 3, 4})}, {"r", MakeScalar<float>(0.6f)}, {"t", MakeScalar<bool>(true)}});
  EXPECT_TENSOR(std::get<Tensor>(out.at("m")), MakeTensor<bool>({4}, {false, true, true, false}));
  EXPECT_TENSOR(std::get<Tensor>(out.at("y")), MakeTensor<float>({4}, {0, 5, 7.5f, 0}));
}

}  // namespace
}  // namespace onnxopt::testing
