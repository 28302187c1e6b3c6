#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/undefined_results.h"
#include "onnx_core/eval/work_budget.h"
#include "onnx_core/ir/tensor_data.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using Shape = std::vector<std::int64_t>;

std::string Dims(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? "," : "") + std::to_string(s[i]);
  return out + "]";
}

const Tensor& Out(const core::eval::ValueMap& out, const std::string& name) {
  return core::eval::AsTensor(out.at(name), name);
}

std::int64_t Numel(const Shape& s) {
  std::int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

std::vector<float> RandomValues(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (auto& x : v) x = dist(gen);
  return v;
}

std::string Model(int opset, const std::string& signature, const std::string& body) {
  return "<ir_version: 10, opset_import: [\"\" : " + std::to_string(opset) + "]>\ng " + signature + " {\n" + body +
         "\n}";
}

// ---------------------------------------------------------------------------------
// MatMul / Gemm against naive loops

std::vector<float> NaiveMatMul(const std::vector<float>& a, const std::vector<float>& b, std::int64_t M,
                               std::int64_t K, std::int64_t N) {
  std::vector<float> c(static_cast<std::size_t>(M * N), 0.0f);
  for (std::int64_t i = 0; i < M; ++i)
    for (std::int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < K; ++k) s += static_cast<double>(a[i * K + k]) * b[k * N + j];
      c[i * N + j] = static_cast<float>(s);
    }
  return c;
}

TEST(MatMulKernel, MatchesNaiveOnOddSizes) {
  const std::vector<std::array<std::int64_t, 3>> sizes = {{1, 1, 1}, {3, 5, 7}, {17, 33, 15}, {5, 300, 37}, {65, 257, 1030}};
  unsigned seed = 1;
  for (auto [M, K, N] : sizes) {
    auto a = RandomValues(M * K, seed++), b = RandomValues(K * N, seed++);
    auto y = RunOne(Model(13, "(float" + Dims({M, K}) + " a, float" + Dims({K, N}) + " b) => (float" + Dims({M, N}) + " y)",
                          "y = MatMul (a, b)"),
                    {{"a", MakeTensor<float>({M, K}, a)}, {"b", MakeTensor<float>({K, N}, b)}});
    EXPECT_TRUE(SameTensor(y, MakeTensor<float>({M, N}, NaiveMatMul(a, b, M, K, N)), 1e-4, 1e-4))
        << M << "x" << K << "x" << N;
  }
}

TEST(MatMulKernel, BroadcastsBatchDimensions) {
  const Shape as{2, 1, 3, 4}, bs{5, 4, 6};
  auto a = RandomValues(Numel(as), 7), b = RandomValues(Numel(bs), 8);
  auto y = RunOne(Model(13, "(float[2,1,3,4] a, float[5,4,6] b) => (float[2,5,3,6] y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<float>(as, a)}, {"b", MakeTensor<float>(bs, b)}});
  std::vector<float> expected;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 5; ++j) {
      std::vector<float> ai(a.begin() + i * 12, a.begin() + (i + 1) * 12), bj(b.begin() + j * 24, b.begin() + (j + 1) * 24);
      auto c = NaiveMatMul(ai, bj, 3, 4, 6);
      expected.insert(expected.end(), c.begin(), c.end());
    }
  EXPECT_TRUE(SameTensor(y, MakeTensor<float>({2, 5, 3, 6}, expected), 1e-5, 1e-5));
}

TEST(MatMulKernel, FoldsBatchesSharingTheRightMatrix) {
  auto a = RandomValues(2 * 3 * 4, 61), b = RandomValues(4 * 5, 62);
  auto y = RunOne(Model(13, "(float[2,3,4] a, float[4,5] b) => (float[2,3,5] y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<float>({2, 3, 4}, a)}, {"b", MakeTensor<float>({4, 5}, b)}});
  EXPECT_TRUE(SameTensor(y, MakeTensor<float>({2, 3, 5}, NaiveMatMul(a, b, 6, 4, 5)), 1e-5, 1e-5));
}

TEST(MatMulKernel, PromotesOneDimensionalInputs) {
  auto y = RunOne(Model(13, "(float[3] a, float[3,2] b) => (float[2] y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<float>({3}, {1, 2, 3})}, {"b", MakeTensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2}, {22, 28}));
  auto z = RunOne(Model(13, "(float[2,3] a, float[3] b) => (float[2] y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", MakeTensor<float>({3}, {1, 0, -1})}});
  EXPECT_TENSOR(z, MakeTensor<float>({2}, {-2, -2}));
  auto s = RunOne(Model(13, "(float[3] a, float[3] b) => (float y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<float>({3}, {1, 2, 3})}, {"b", MakeTensor<float>({3}, {4, 5, 6})}});
  EXPECT_TENSOR(s, MakeScalar<float>(32));
}

// Integer products wrap around like Mul (graph fuzzer, UBSan: 2^40 * -2^31 overflowed
// int64 in the Gemm micro-kernel).
TEST(MatMulKernel, IntegerProductsWrapAround) {
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int64[1,2] a, int64[2,2] b) => (int64[1,2] y) { y = MatMul (a, b) })ONNX",
                  {{"a", MakeTensor<std::int64_t>({1, 2}, {std::numeric_limits<std::int64_t>::max(), 3})},
                   {"b", MakeTensor<std::int64_t>({2, 2}, {2, std::int64_t{1} << 40, 5, 0})}});
  // (2^63 - 1) * 2 = -2 mod 2^64, + 15 = 13; (2^63 - 1) * 2^40 = -2^40 mod 2^64.
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({1, 2}, {13, -(std::int64_t{1} << 40)}));
}

TEST(MatMulKernel, ComputesIntegersAndHalf) {
  auto y = RunOne(Model(13, "(int32[2,2] a, int32[2,2] b) => (int32[2,2] y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<std::int32_t>({2, 2}, {1, 2, 3, 4})}, {"b", MakeTensor<std::int32_t>({2, 2}, {5, 6, 7, 8})}});
  EXPECT_TENSOR(y, MakeTensor<std::int32_t>({2, 2}, {19, 22, 43, 50}));
  auto h = RunOne(Model(13, "(float16[2,2] a, float16[2,2] b) => (float16[2,2] y)", "y = MatMul (a, b)"),
                  {{"a", MakeHalf({2, 2}, {1, 2, 3, 4})}, {"b", MakeHalf({2, 2}, {5, 6, 7, 8})}});
  EXPECT_TENSOR(h, MakeHalf({2, 2}, {19, 22, 43, 50}));
}

// The float alpha and beta of an integer Gemm beyond int64 (found by graph_fuzzer with a
// NaN alpha: gemm-integer-nan-alpha-ubsan) saturate, as in the other integer conversions.
TEST(GemmKernel, IntegerScalesBeyondInt64Saturate) {
  const char* text = R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (int64[1,1] a, int64[1,1] b, int64[1,1] c) => (int64[1,1] y, int64[1,1] z) {
      y = Gemm <alpha = 1e30, beta = 0.25> (a, b, c)
      z = Gemm <alpha = 0.0, beta = -1e30> (a, b, c)
    })ONNX";
  const Inputs inputs = {{"a", MakeTensor<std::int64_t>({1, 1}, {1})},
                         {"b", MakeTensor<std::int64_t>({1, 1}, {1})},
                         {"c", MakeTensor<std::int64_t>({1, 1}, {2})}};
  // alpha saturates to INT64_MAX, times 1 * 1; beta * c = 0.5 truncates to 0.
  EXPECT_TENSOR(RunOne(text, inputs, "y"), MakeTensor<std::int64_t>({1, 1}, {std::numeric_limits<std::int64_t>::max()}));
  // beta * c = -2e30 saturates to INT64_MIN.
  EXPECT_TENSOR(RunOne(text, inputs, "z"), MakeTensor<std::int64_t>({1, 1}, {std::numeric_limits<std::int64_t>::min()}));
}

TEST(GemmKernel, MatchesNaiveWithTransposesAndBroadcastC) {
  const std::int64_t M = 19, K = 23, N = 37;
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      auto a = RandomValues(M * K, 10 + ta), b = RandomValues(K * N, 20 + tb), c = RandomValues(N, 30);
      std::vector<float> an(a.size()), bn(b.size());
      // a, b are given transposed when ta / tb; the naive product uses the plain layout.
      for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t k = 0; k < K; ++k) an[i * K + k] = ta ? a[k * M + i] : a[i * K + k];
      for (std::int64_t k = 0; k < K; ++k)
        for (std::int64_t j = 0; j < N; ++j) bn[k * N + j] = tb ? b[j * K + k] : b[k * N + j];
      auto ref = NaiveMatMul(an, bn, M, K, N);
      for (std::int64_t i = 0; i < M; ++i)
        for (std::int64_t j = 0; j < N; ++j) ref[i * N + j] = 0.5f * ref[i * N + j] + 2.0f * c[j];
      const Shape ash = ta ? Shape{K, M} : Shape{M, K}, bsh = tb ? Shape{N, K} : Shape{K, N};
      auto y = RunOne(Model(13, "(float" + Dims(ash) + " a, float" + Dims(bsh) + " b, float[37] c) => (float[19,37] y)",
                            "y = Gemm <alpha = 0.5, beta = 2.0, transA = " + std::to_string(ta) +
                                ", transB = " + std::to_string(tb) + "> (a, b, c)"),
                      {{"a", MakeTensor<float>(ash, a)}, {"b", MakeTensor<float>(bsh, b)}, {"c", MakeTensor<float>({N}, c)}});
      EXPECT_TRUE(SameTensor(y, MakeTensor<float>({M, N}, ref), 1e-5, 1e-5)) << "transA=" << ta << " transB=" << tb;
    }
}

TEST(GemmKernel, OmitsC) {
  auto y = RunOne(Model(13, "(float[1,2] a, float[2,1] b) => (float[1,1] y)", "y = Gemm (a, b)"),
                  {{"a", MakeTensor<float>({1, 2}, {1, 2})}, {"b", MakeTensor<float>({2, 1}, {3, 4})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1}, {11}));
}

// ---------------------------------------------------------------------------------
// Softmax family

TEST(SoftmaxKernel, NormalizesTheLastAxis) {
  auto y = RunOne(Model(13, "(float[2,2] x) => (float[2,2] y)", "y = Softmax (x)"),
                  {{"x", MakeTensor<float>({2, 2}, {0, std::log(3.0f), 1, 1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 2}, {0.25f, 0.75f, 0.5f, 0.5f}));
}

// An empty axis gives an empty output without touching the (null) data of the input
// (graph fuzzer, UBSan: offset applied to a null pointer).
TEST(SoftmaxKernel, EmptyAxisGivesAnEmptyOutput) {
  auto y = RunOne(Model(13, "(float[2,0,3] x) => (float[2,0,3] y)", "y = Softmax <axis = 1> (x)"),
                  {{"x", MakeTensor<float>({2, 0, 3}, {})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 0, 3}, {}));
}

TEST(LpNormalizationKernel, DividesByTheNormAlongTheAxis) {
  auto y = RunOne(Model(13, "(float[2,2] x) => (float[2,2] y)", "y = LpNormalization <axis = 0, p = 1> (x)"),
                  {{"x", MakeTensor<float>({2, 2}, {1, 0, 3, 0})}});
  // Column 1 has a norm of 0 and stays as it is.
  EXPECT_TENSOR(y, MakeTensor<float>({2, 2}, {0.25f, 0, 0.75f, 0}));
}

TEST(LpNormalizationKernel, EmptyAxisGivesAnEmptyOutput) {
  // The axis has no element but the others do: nothing to read (graph fuzzer, UBSan).
  auto y = RunOne(Model(13, "(float[2,0,3] x) => (float[2,0,3] y)", "y = LpNormalization <axis = 1> (x)"),
                  {{"x", MakeTensor<float>({2, 0, 3}, {})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 0, 3}, {}));
}

TEST(SoftmaxKernel, CoercesToTwoDimensionsBeforeOpset13) {
  // axis = 1 on [1,2,2]: one row of 4 elements.
  auto y = RunOne(Model(11, "(float[1,2,2] x) => (float[1,2,2] y)", "y = Softmax (x)"),
                  {{"x", MakeTensor<float>({1, 2, 2}, {0, 0, 0, 0})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2, 2}, {0.25f, 0.25f, 0.25f, 0.25f}));
  auto z = RunOne(Model(13, "(float[1,2,2] x) => (float[1,2,2] y)", "y = Softmax <axis = 1> (x)"),
                  {{"x", MakeTensor<float>({1, 2, 2}, {0, 0, 0, 0})}});
  EXPECT_TENSOR(z, MakeTensor<float>({1, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f}));
}

TEST(LogSoftmaxKernel, SubtractsLogSumExp) {
  auto y = RunOne(Model(13, "(float[2] x) => (float[2] y)", "y = LogSoftmax (x)"),
                  {{"x", MakeTensor<float>({2}, {1, 1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2}, {-std::log(2.0f), -std::log(2.0f)}));
}

// ---------------------------------------------------------------------------------
// Normalizations

TEST(LayerNormalizationKernel, ReturnsMeanAndInvStdDev) {
  auto out = RunText(Model(17, "(float[2,2] x, float[2] s, float[2] b) => (float[2,2] y, float[2,1] m, float[2,1] r)",
                           "y, m, r = LayerNormalization <epsilon = 0.0> (x, s, b)"),
                     {{"x", MakeTensor<float>({2, 2}, {1, 3, 0, 4})},
                      {"s", MakeTensor<float>({2}, {1, 2})},
                      {"b", MakeTensor<float>({2}, {0, 1})}});
  EXPECT_TENSOR(Out(out, ("y")), MakeTensor<float>({2, 2}, {-1, 3, -1, 3}));
  EXPECT_TENSOR(Out(out, ("m")), MakeTensor<float>({2, 1}, {2, 2}));
  EXPECT_TENSOR(Out(out, ("r")), MakeTensor<float>({2, 1}, {1, 0.5f}));
}

TEST(RMSNormalizationKernel, ScalesByRootMeanSquare) {
  auto y = RunOne(Model(23, "(float[1,2] x, float[2] s) => (float[1,2] y)", "y = RMSNormalization <epsilon = 0.0> (x, s)"),
                  {{"x", MakeTensor<float>({1, 2}, {3, 4})}, {"s", MakeTensor<float>({2}, {1, 2})}});
  const float rms = std::sqrt(12.5f);
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2}, {3 / rms, 8 / rms}));
}

TEST(BatchNormalizationKernel, AppliesRunningStatistics) {
  auto y = RunOne(Model(15, "(float[1,2,1,2] x, float[2] s, float[2] b, float[2] m, float[2] v) => (float[1,2,1,2] y)",
                        "y = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                  {{"x", MakeTensor<float>({1, 2, 1, 2}, {1, 2, 3, 4})},
                   {"s", MakeTensor<float>({2}, {1, 2})},
                   {"b", MakeTensor<float>({2}, {0, 1})},
                   {"m", MakeTensor<float>({2}, {1, 3})},
                   {"v", MakeTensor<float>({2}, {4, 1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2, 1, 2}, {0, 0.5f, 1, 3}));
}

// (X - mean) / sqrt(var + epsilon) * scale + B as the specification writes it: with an
// infinite scale, an infinity of the deviation's sign (0 for x == mean gives NaN). Folded
// into X * k + (B - mean * k) it gave inf - inf = NaN for x above the mean (found by
// mutating a pattern test's graph: the pattern's expansion, the formula, disagreed).
TEST(BatchNormalizationKernel, FollowsTheFormulaOfTheSpecification) {
  const float inf = std::numeric_limits<float>::infinity();
  auto y = RunOne(Model(15, "(float[1,1,1,3] x, float[1] s, float[1] b, float[1] m, float[1] v) => (float[1,1,1,3] y)",
                        "y = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                  {{"x", MakeTensor<float>({1, 1, 1, 3}, {1, 3, 5})},
                   {"s", MakeTensor<float>({1}, {inf})},
                   {"b", MakeTensor<float>({1}, {1})},
                   {"m", MakeTensor<float>({1}, {3})},
                   {"v", MakeTensor<float>({1}, {4})}});
  const std::vector<double> values = y.ToDoubleVector();
  EXPECT_EQ(values[0], -inf);
  EXPECT_TRUE(std::isnan(values[1]));
  EXPECT_EQ(values[2], inf);
}

// N=2, C=2, two positions: channel 0 holds {0, 4, 4, 0} (mean 2, population variance 4;
// the sample variance, 16/3, would give other values), channel 1 {2, 2, 4, 4} (mean 3,
// variance 1).
Inputs BatchNormalizationInputs() {
  return {{"x", MakeTensor<float>({2, 2, 2}, {0, 4, 2, 2, 4, 0, 4, 4})},
          {"s", MakeTensor<float>({2}, {1, 2})},
          {"b", MakeTensor<float>({2}, {0, 1})},
          {"m", MakeTensor<float>({2}, {0, 10})},
          {"v", MakeTensor<float>({2}, {1, 4})}};
}
constexpr const char* kBatchNormalizationInputs = "(float[2,2,2] x, float[2] s, float[2] b, float[2] m, float[2] v)";
// Y with the batch statistics: (x - 2) / 2 in channel 0, (x - 3) * 2 + 1 in channel 1.
Tensor BatchNormalizedY() { return MakeTensor<float>({2, 2, 2}, {-1, 1, -1, -1, 1, -1, 3, 3}); }
// Y with the running statistics m, v: x in channel 0, (x - 10) / 2 * 2 + 1 in channel 1.
Tensor RunningNormalizedY() { return MakeTensor<float>({2, 2, 2}, {0, 4, -7, -7, 4, 0, -5, -5}); }
// The running statistics updated with the default momentum 0.9: m * 0.9 + batch mean * 0.1.
Tensor UpdatedMean() { return MakeTensor<float>({2}, {0.2f, 9.3f}); }
Tensor UpdatedVar() { return MakeTensor<float>({2}, {1.3f, 3.7f}); }

// Before opset 14 the outputs give the mode: "Output case #1: Y, mean, var, saved_mean,
// saved_var (training mode)". saved_mean and saved_var are the batch's statistics.
TEST(BatchNormalizationKernel, TrainsWithFiveOutputsAtOpset9) {
  auto out = RunText(Model(9, std::string(kBatchNormalizationInputs) +
                                  " => (float[2,2,2] y, float[2] rm, float[2] rv, float[2] sm, float[2] sv)",
                           "y, rm, rv, sm, sv = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                     BatchNormalizationInputs());
  EXPECT_TENSOR(Out(out, "y"), BatchNormalizedY());
  EXPECT_TENSOR(Out(out, "rm"), UpdatedMean());
  EXPECT_TENSOR(Out(out, "rv"), UpdatedVar());
  EXPECT_TENSOR(Out(out, "sm"), MakeTensor<float>({2}, {2, 3}));
  EXPECT_TENSOR(Out(out, "sv"), MakeTensor<float>({2}, {4, 1}));
}

TEST(BatchNormalizationKernel, AppliesRunningStatisticsWithOneOutputAtOpset9) {
  auto y = RunOne(Model(9, std::string(kBatchNormalizationInputs) + " => (float[2,2,2] y)",
                        "y = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                  BatchNormalizationInputs());
  EXPECT_TENSOR(y, RunningNormalizedY());
}

// Optional outputs left out with "" still count (onnxruntime counts the declared outputs):
// the node trains and fills the named ones.
TEST(BatchNormalizationKernel, CountsOutputsGivenAsEmptyNames) {
  auto out = RunText(Model(7, std::string(kBatchNormalizationInputs) + " => (float[2,2,2] y, float[2] sv)",
                           "y, , , , sv = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                     BatchNormalizationInputs());
  EXPECT_TENSOR(Out(out, "y"), BatchNormalizedY());
  EXPECT_TENSOR(Out(out, "sv"), MakeTensor<float>({2}, {4, 1}));
  out = RunText(Model(13, std::string(kBatchNormalizationInputs) + " => (float[2,2,2] y, float[2] rm)",
                      "y, rm, , , = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                BatchNormalizationInputs());
  EXPECT_TENSOR(Out(out, "y"), BatchNormalizedY());
  EXPECT_TENSOR(Out(out, "rm"), UpdatedMean());
}

// From opset 14 training_mode alone gives the mode, whatever the outputs.
TEST(BatchNormalizationKernel, TrainsByTrainingModeFromOpset14) {
  const std::string signature =
      std::string(kBatchNormalizationInputs) + " => (float[2,2,2] y, float[2] rm, float[2] rv)";
  auto out = RunText(
      Model(14, signature, "y, rm, rv = BatchNormalization <epsilon = 0.0, training_mode = 1> (x, s, b, m, v)"),
      BatchNormalizationInputs());
  EXPECT_TENSOR(Out(out, "y"), BatchNormalizedY());
  EXPECT_TENSOR(Out(out, "rm"), UpdatedMean());
  EXPECT_TENSOR(Out(out, "rv"), UpdatedVar());
  out = RunText(Model(15, signature, "y, rm, rv = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                BatchNormalizationInputs());
  EXPECT_TENSOR(Out(out, "y"), RunningNormalizedY());
  EXPECT_TENSOR(Out(out, "rm"), MakeTensor<float>({2}, {0, 10}));
  EXPECT_TENSOR(Out(out, "rv"), MakeTensor<float>({2}, {1, 4}));
}

// Versions 1 and 6 say the mode with is_test, 0 (training) by default, whatever the outputs.
TEST(BatchNormalizationKernel, TrainsByIsTestAtOpset6) {
  auto y = RunOne(Model(6, std::string(kBatchNormalizationInputs) + " => (float[2,2,2] y)",
                        "y = BatchNormalization <epsilon = 0.0> (x, s, b, m, v)"),
                  BatchNormalizationInputs());
  EXPECT_TENSOR(y, BatchNormalizedY());
  auto out = RunText(Model(6, std::string(kBatchNormalizationInputs) +
                                  " => (float[2,2,2] y, float[2] rm, float[2] rv, float[2] sm, float[2] sv)",
                           "y, rm, rv, sm, sv = BatchNormalization <epsilon = 0.0, is_test = 1> (x, s, b, m, v)"),
                     BatchNormalizationInputs());
  EXPECT_TENSOR(Out(out, "y"), RunningNormalizedY());
  EXPECT_TENSOR(Out(out, "rm"), MakeTensor<float>({2}, {0, 10}));
  EXPECT_TENSOR(Out(out, "sv"), MakeTensor<float>({2}, {1, 4}));
}

// spatial=0 before opset 9: statistics and parameters per feature (channel and position),
// of shape C x D1 x ... x Dn. Feature 0 holds {0, 4} (mean 2, variance 4), feature 1
// {2, 4} (mean 3, variance 1).
TEST(BatchNormalizationKernel, NormalizesPerFeatureWithSpatial0) {
  const Inputs inputs = {{"x", MakeTensor<float>({2, 1, 2}, {0, 2, 4, 4})},
                         {"s", MakeTensor<float>({1, 2}, {1, 2})},
                         {"b", MakeTensor<float>({1, 2}, {0, 1})},
                         {"m", MakeTensor<float>({1, 2}, {0, 1})},
                         {"v", MakeTensor<float>({1, 2}, {16, 0.25f})}};
  const std::string signature = "(float[2,1,2] x, float[1,2] s, float[1,2] b, float[1,2] m, float[1,2] v)";
  auto y = RunOne(Model(7, signature + " => (float[2,1,2] y)",
                        "y = BatchNormalization <epsilon = 0.0, spatial = 0> (x, s, b, m, v)"),
                  inputs);
  EXPECT_TENSOR(y, MakeTensor<float>({2, 1, 2}, {0, 5, 1, 13}));
  auto out = RunText(Model(8, signature + " => (float[2,1,2] y, float[1,2] rm, float[1,2] rv, float[1,2] sm, float[1,2] sv)",
                           "y, rm, rv, sm, sv = BatchNormalization <epsilon = 0.0, momentum = 0.5, spatial = 0> "
                           "(x, s, b, m, v)"),
                     inputs);
  EXPECT_TENSOR(Out(out, "y"), MakeTensor<float>({2, 1, 2}, {-1, -1, 1, 3}));
  EXPECT_TENSOR(Out(out, "rm"), MakeTensor<float>({1, 2}, {1, 2}));
  EXPECT_TENSOR(Out(out, "rv"), MakeTensor<float>({1, 2}, {10, 0.625f}));
  EXPECT_TENSOR(Out(out, "sm"), MakeTensor<float>({1, 2}, {2, 3}));
  EXPECT_TENSOR(Out(out, "sv"), MakeTensor<float>({1, 2}, {4, 1}));
}

// Versions 1 and 6 give the parameters C elements: their test mode normalizes per channel
// whatever spatial says; training with spatial=0 needs per-feature ones.
TEST(BatchNormalizationKernel, Opset6Spatial0NeedsPerFeatureParametersToTrain) {
  const std::string signature = std::string(kBatchNormalizationInputs) + " => (float[2,2,2] y)";
  auto body = [](const std::string& is_test) {
    return "y = BatchNormalization <epsilon = 0.0, spatial = 0, is_test = " + is_test + "> (x, s, b, m, v)";
  };
  EXPECT_TENSOR(RunOne(Model(6, signature, body("1")), BatchNormalizationInputs()), RunningNormalizedY());
  EXPECT_THAT(ModelErrorOf(Model(6, signature, body("0")), BatchNormalizationInputs()),
              ::testing::HasSubstr("with spatial=0, scale, B, mean and var must have one element per feature"));
}

TEST(InstanceNormalizationKernel, NormalizesEachChannel) {
  auto y = RunOne(Model(6, "(float[1,1,2] x, float[1] s, float[1] b) => (float[1,1,2] y)",
                        "y = InstanceNormalization <epsilon = 0.0> (x, s, b)"),
                  {{"x", MakeTensor<float>({1, 1, 2}, {1, 3})}, {"s", MakeTensor<float>({1}, {2})}, {"b", MakeTensor<float>({1}, {1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2}, {-1, 3}));
}

TEST(GroupNormalizationKernel, NormalizesEachGroup) {
  auto y = RunOne(Model(21, "(float[1,2,2] x, float[2] s, float[2] b) => (float[1,2,2] y)",
                        "y = GroupNormalization <epsilon = 0.0, num_groups = 1> (x, s, b)"),
                  {{"x", MakeTensor<float>({1, 2, 2}, {1, 1, 3, 3})}, {"s", MakeTensor<float>({2}, {1, 2})}, {"b", MakeTensor<float>({2}, {0, 0})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2, 2}, {-1, -1, 2, 2}));
}

// ---------------------------------------------------------------------------------
// Conv against a naive direct convolution

struct ConvCase {
  Shape x, w;
  std::int64_t group;
  Shape strides, dilations, pads;
};

std::vector<float> NaiveConv2d(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b,
                               const ConvCase& c, Shape& out_shape) {
  const std::int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3], M = c.w[0], KH = c.w[2], KW = c.w[3];
  const std::int64_t cg = C / c.group, mg = M / c.group;
  const std::int64_t OH = (H + c.pads[0] + c.pads[2] - ((KH - 1) * c.dilations[0] + 1)) / c.strides[0] + 1;
  const std::int64_t OW = (W + c.pads[1] + c.pads[3] - ((KW - 1) * c.dilations[1] + 1)) / c.strides[1] + 1;
  out_shape = {N, M, OH, OW};
  std::vector<float> y(static_cast<std::size_t>(N * M * OH * OW));
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t m = 0; m < M; ++m)
      for (std::int64_t oh = 0; oh < OH; ++oh)
        for (std::int64_t ow = 0; ow < OW; ++ow) {
          double s = b[m];
          const std::int64_t g = m / mg;
          for (std::int64_t c2 = 0; c2 < cg; ++c2)
            for (std::int64_t kh = 0; kh < KH; ++kh)
              for (std::int64_t kw = 0; kw < KW; ++kw) {
                const std::int64_t ih = oh * c.strides[0] - c.pads[0] + kh * c.dilations[0];
                const std::int64_t iw = ow * c.strides[1] - c.pads[1] + kw * c.dilations[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                s += static_cast<double>(x[((n * C + g * cg + c2) * H + ih) * W + iw]) *
                     w[((m * cg + c2) * KH + kh) * KW + kw];
              }
          y[((n * M + m) * OH + oh) * OW + ow] = static_cast<float>(s);
        }
  return y;
}

std::string Ints(const Shape& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

TEST(ConvKernel, MatchesNaiveConvolution) {
  const std::vector<ConvCase> cases = {
      {{1, 1, 5, 5}, {1, 1, 3, 3}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}},
      {{2, 3, 7, 9}, {4, 3, 3, 2}, 1, {2, 1}, {1, 2}, {1, 0, 2, 1}},
      {{1, 4, 6, 6}, {6, 2, 3, 3}, 2, {1, 2}, {1, 1}, {1, 1, 1, 1}},
      {{1, 3, 10, 11}, {3, 1, 3, 3}, 3, {1, 1}, {2, 2}, {2, 2, 2, 2}},
      {{1, 8, 4, 4}, {5, 8, 1, 1}, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}},
  };
  unsigned seed = 100;
  for (const auto& c : cases) {
    auto x = RandomValues(Numel(c.x), seed++), w = RandomValues(Numel(c.w), seed++), b = RandomValues(c.w[0], seed++);
    Shape out_shape;
    auto ref = NaiveConv2d(x, w, b, c, out_shape);
    auto y = RunOne(Model(11, "(float" + Dims(c.x) + " x, float" + Dims(c.w) + " w, float[" + std::to_string(c.w[0]) +
                                  "] b) => (float" + Dims(out_shape) + " y)",
                          "y = Conv <group = " + std::to_string(c.group) + ", strides = " + Ints(c.strides) +
                              ", dilations = " + Ints(c.dilations) + ", pads = " + Ints(c.pads) + "> (x, w, b)"),
                    {{"x", MakeTensor<float>(c.x, x)}, {"w", MakeTensor<float>(c.w, w)}, {"b", MakeTensor<float>({c.w[0]}, b)}});
    EXPECT_TRUE(SameTensor(y, MakeTensor<float>(out_shape, ref), 1e-5, 1e-4)) << Dims(c.x) << " * " << Dims(c.w);
  }
}

TEST(ConvKernel, SamePaddingKeepsSize) {
  auto y = RunOne(Model(11, "(float[1,1,3,3] x, float[1,1,3,3] w) => (float[1,1,3,3] y)",
                        "y = Conv <auto_pad = \"SAME_UPPER\"> (x, w)"),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})},
                   {"w", MakeTensor<float>({1, 1, 3, 3}, {1, 1, 1, 1, 1, 1, 1, 1, 1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 3, 3}, {4, 6, 4, 6, 9, 6, 4, 6, 4}));
}

// CausalConvWithState (opset 27): channel 0 takes only its oldest tap (it reads the carried
// state first), channel 1 the taps 1, 2, 3 over [past 7, 8, then 4, 5, 6]: 7 + 16 + 12 = 35,
// 8 + 8 + 15 = 31, 4 + 10 + 18 = 32, less the bias 1; present_state holds the last k - 1 = 2
// positions. Without a past the padding is zeros; 'silu' applies y * sigmoid(y).
TEST(CausalConvWithStateKernel, ConvolvesTheCarriedStateAndTheInput) {
  const Inputs inputs{{"x", MakeTensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                      {"w", MakeTensor<float>({2, 1, 3}, {1, 0, 0, 1, 2, 3})},
                      {"b", MakeTensor<float>({2}, {0.5f, -1})},
                      {"past", MakeTensor<float>({1, 2, 2}, {10, 20, 7, 8})}};
  auto out = RunText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 27]>
    g (float[1,2,3] x, float[2,1,3] w, float[2] b, float[1,2,2] past) => (float[1,2,3] y, float[1,2,2] s, float[1,2,3] z, float[1,2,3] a) {
      y, s = CausalConvWithState (x, w, b, past)
      z = CausalConvWithState (x, w)
      a = CausalConvWithState <activation = "silu"> (x, w, b, past)
    })ONNX",
                     inputs);
  EXPECT_TENSOR(OutputTensor(out, "y"), MakeTensor<float>({1, 2, 3}, {10.5f, 20.5f, 1.5f, 34, 30, 31}));
  EXPECT_TENSOR(OutputTensor(out, "s"), MakeTensor<float>({1, 2, 2}, {2, 3, 5, 6}));
  EXPECT_TENSOR(OutputTensor(out, "z"), MakeTensor<float>({1, 2, 3}, {0, 0, 1, 12, 23, 32}));
  std::vector<float> silu;
  for (float v : {10.5f, 20.5f, 1.5f, 34.0f, 30.0f, 31.0f}) silu.push_back(v / (1 + std::exp(-v)));
  EXPECT_TENSOR(OutputTensor(out, "a"), MakeTensor<float>({1, 2, 3}, silu));
}

TEST(CausalConvWithStateKernel, RefusesAWeightThatIsNotDepthwiseAndAnUnknownActivation) {
  const Inputs inputs{{"x", MakeTensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                      {"w", MakeTensor<float>({1, 2, 3}, {1, 0, 0, 1, 2, 3})}};
  EXPECT_THAT(ModelErrorOf(GraphText(27, "(float[1,2,3] x, float[1,2,3] w) => (float[1,2,3] y)",
                                     "y = CausalConvWithState (x, w)"),
                           inputs),
              ::testing::HasSubstr("must be [channels, 1, k] with k >= 1"));
  const Inputs depthwise{{"x", MakeTensor<float>({1, 2, 3}, {1, 2, 3, 4, 5, 6})},
                         {"w", MakeTensor<float>({2, 1, 3}, {1, 0, 0, 1, 2, 3})}};
  EXPECT_THAT(ModelErrorOf(GraphText(27, "(float[1,2,3] x, float[2,1,3] w) => (float[1,2,3] y)",
                                     "y = CausalConvWithState <activation = \"gelu\"> (x, w)"),
                           depthwise),
              ::testing::HasSubstr("attribute activation is 'gelu', expected 'silu', 'swish' or 'none'"));
}

// LinearAttention (opset 27), one key/value head, dk = dv = 2, scale 1, q = k = [1, 0] then
// [1, 1], v = [1, 2] then [3, 4]; worked by hand from the recurrences of Operators.md:
//   linear       S1 = [[1,2],[0,0]], o1 = [1,2]; S2 = S1 + k2 v2^T = [[4,6],[3,4]], o2 = [7,10]
//   gated        (decay per head, ln 0.5) S2 = 0.5 S1 + k2 v2^T = [[3.5,5],[3,4]], o2 = [6.5,9]
//   delta        (beta 0.5 shared, past I) S1 = [[1,1],[0,1]], o1 = [1,1]; recall [1,2],
//                u = [2,2], S2 = [[2,2],[1,2]], o2 = [3,4]
//   gated_delta  (decay per key dimension [ln 0.5, 0], beta 1) S1 = [[1,2],[0,0]]; decayed
//                [[0.5,1],[0,0]], recall [0.5,1], u = [2.5,3], S2 = [[3,4],[2.5,3]], o2 = [5.5,7]
TEST(LinearAttentionKernel, FollowsEachUpdateRule) {
  const Inputs inputs{{"q", MakeTensor<float>({1, 2, 2}, {1, 0, 1, 1})},
                      {"k", MakeTensor<float>({1, 2, 2}, {1, 0, 1, 1})},
                      {"v", MakeTensor<float>({1, 2, 2}, {1, 2, 3, 4})},
                      {"past", MakeTensor<float>({1, 1, 2, 2}, {1, 0, 0, 1})},
                      {"head_decay", MakeTensor<float>({1, 2, 1}, {-0.693147181f, -0.693147181f})},
                      {"key_decay", MakeTensor<float>({1, 2, 2}, {-0.693147181f, 0, -0.693147181f, 0})},
                      {"half", MakeTensor<float>({1, 2, 1}, {0.5f, 0.5f})},
                      {"one", MakeTensor<float>({1, 2, 1}, {1, 1})}};
  auto out = RunText(R"ONNX(
    <ir_version: 13, opset_import: ["" : 27]>
    g (float[1,2,2] q, float[1,2,2] k, float[1,2,2] v, float[1,1,2,2] past, float[1,2,1] head_decay,
       float[1,2,2] key_decay, float[1,2,1] half, float[1,2,1] one)
      => (float[1,2,2] linear, float[1,1,2,2] linear_state, float[1,2,2] gated, float[1,1,2,2] gated_state,
          float[1,2,2] delta, float[1,1,2,2] delta_state, float[1,2,2] gated_delta, float[1,1,2,2] gated_delta_state) {
      linear, linear_state = LinearAttention <q_num_heads = 1, kv_num_heads = 1, scale = 1.0, update_rule = "linear"> (q, k, v)
      gated, gated_state = LinearAttention <q_num_heads = 1, kv_num_heads = 1, scale = 1.0, update_rule = "gated"> (q, k, v, , head_decay)
      delta, delta_state = LinearAttention <q_num_heads = 1, kv_num_heads = 1, scale = 1.0, update_rule = "delta"> (q, k, v, past, , half)
      gated_delta, gated_delta_state = LinearAttention <q_num_heads = 1, kv_num_heads = 1, scale = 1.0> (q, k, v, , key_decay, one)
    })ONNX",
                     inputs);
  EXPECT_TENSOR(OutputTensor(out, "linear"), MakeTensor<float>({1, 2, 2}, {1, 2, 7, 10}));
  EXPECT_TENSOR(OutputTensor(out, "linear_state"), MakeTensor<float>({1, 1, 2, 2}, {4, 6, 3, 4}));
  EXPECT_TENSOR(OutputTensor(out, "gated"), MakeTensor<float>({1, 2, 2}, {1, 2, 6.5f, 9}));
  EXPECT_TENSOR(OutputTensor(out, "gated_state"), MakeTensor<float>({1, 1, 2, 2}, {3.5f, 5, 3, 4}));
  EXPECT_TENSOR(OutputTensor(out, "delta"), MakeTensor<float>({1, 2, 2}, {1, 1, 3, 4}));
  EXPECT_TENSOR(OutputTensor(out, "delta_state"), MakeTensor<float>({1, 1, 2, 2}, {2, 2, 1, 2}));
  EXPECT_TENSOR(OutputTensor(out, "gated_delta"), MakeTensor<float>({1, 2, 2}, {1, 2, 5.5f, 7}));
  EXPECT_TENSOR(OutputTensor(out, "gated_delta_state"), MakeTensor<float>({1, 1, 2, 2}, {3, 4, 2.5f, 3}));
}

// Two query heads share the key/value head (GQA): head 0 reads row 0 of the state, head 1
// row 1. The default scale is 1 / sqrt(dk).
TEST(LinearAttentionKernel, QueryHeadsShareTheirKeyValueHeadAndTheScaleDefaultsToOneOverSqrtDk) {
  const float r = 1 / std::sqrt(2.0f);
  auto y = RunOne(R"ONNX(
    <ir_version: 13, opset_import: ["" : 27]>
    g (float[1,2,4] q, float[1,2,2] k, float[1,2,2] v) => (float[1,2,4] y) {
      y = LinearAttention <q_num_heads = 2, kv_num_heads = 1, update_rule = "linear"> (q, k, v)
    })ONNX",
                  {{"q", MakeTensor<float>({1, 2, 4}, {1, 0, 0, 1, 1, 0, 0, 1})},
                   {"k", MakeTensor<float>({1, 2, 2}, {1, 0, 1, 1})},
                   {"v", MakeTensor<float>({1, 2, 2}, {1, 2, 3, 4})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2, 4}, {r, 2 * r, 0, 0, 4 * r, 6 * r, 3 * r, 4 * r}));
}

TEST(LinearAttentionKernel, RefusesMissingGatesAndHeadsThatDoNotDivide) {
  const Inputs inputs{{"q", MakeTensor<float>({1, 1, 2}, {1, 0})},
                      {"k", MakeTensor<float>({1, 1, 2}, {1, 0})},
                      {"v", MakeTensor<float>({1, 1, 2}, {1, 2})}};
  const std::string signature = "(float[1,1,2] q, float[1,1,2] k, float[1,1,2] v) => (float[1,1,2] y)";
  EXPECT_THAT(ModelErrorOf(GraphText(27, signature, "y = LinearAttention <q_num_heads = 1, kv_num_heads = 1> (q, k, v)"),
                           inputs),
              ::testing::HasSubstr("update_rule 'gated_delta' needs the input decay"));
  EXPECT_THAT(ModelErrorOf(GraphText(27, signature,
                                     "y = LinearAttention <q_num_heads = 1, kv_num_heads = 2, update_rule = \"linear\"> "
                                     "(q, k, v)"),
                           inputs),
              ::testing::HasSubstr("q_num_heads 1 must be a positive multiple of kv_num_heads 2"));
}

// The heads are attributes: with empty inputs (dk = dv = 0) nothing else bounds them, and
// 2^62 heads would loop for ever over empty states. The work of their loops is charged.
// CausalConvWithState's state comes from the weight, not from the input.
TEST(LinearAttentionKernel, HugeHeadCountsAndStatesOverEmptyInputsAreRefused) {
  const Inputs empty{{"q", MakeTensor<float>({1, 1, 0}, {})},
                     {"k", MakeTensor<float>({1, 1, 0}, {})},
                     {"v", MakeTensor<float>({1, 1, 0}, {})}};
  EXPECT_THAT(ModelErrorOf(GraphText(27, "(float[1,1,0] q, float[1,1,0] k, float[1,1,0] v) => (float[1,1,0] y)",
                                     "y = LinearAttention <q_num_heads = 4611686018427387904, "
                                     "kv_num_heads = 4611686018427387904, update_rule = \"linear\"> (q, k, v)"),
                           empty),
              ::testing::HasSubstr("LinearAttention's state updates"));
  // An empty input of 6e9 rows (as many as the limit on tensor sizes lets an empty tensor
  // have) still has a state of k - 1 = 7 positions per row, refused before it is allocated.
  EXPECT_THAT(ModelErrorOf(GraphText(27, "(float[6000000000,1,0] x, float[1,1,8] w) => (float[6000000000,1,0] y)",
                                     "y = CausalConvWithState (x, w)"),
                           {{"x", MakeTensor<float>({6000000000, 1, 0}, {})},
                            {"w", MakeTensor<float>({1, 1, 8}, {1, 1, 1, 1, 1, 1, 1, 1})}}),
              ::testing::HasSubstr("present_state [6000000000,1,7] needs 336000000000 bytes"));
}

TEST(ConvTransposeKernel, MatchesSpecExample) {
  // ConvTranspose example from the spec (convtranspose): 3x3 ones kernel, 2 output channels.
  auto y = RunOne(Model(11, "(float[1,1,3,3] x, float[1,2,3,3] w) => (float[1,2,5,5] y)", "y = ConvTranspose (x, w)"),
                  {{"x", MakeTensor<float>({1, 1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})},
                   {"w", MakeTensor<float>({1, 2, 3, 3}, std::vector<float>(18, 1.0f))}});
  const std::vector<float> plane = {0, 1, 3, 3, 2, 3, 8, 15, 12, 7, 9, 21, 36, 27, 15, 9, 20, 33, 24, 13, 6, 13, 21, 15, 8};
  std::vector<float> expected = plane;
  expected.insert(expected.end(), plane.begin(), plane.end());
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2, 5, 5}, expected));
}

// ---------------------------------------------------------------------------------
// Pooling

TEST(MaxPoolKernel, ReturnsValuesAndIndices) {
  auto out = RunText(Model(12, "(float[1,1,3,3] x) => (float[1,1,2,2] y, int64[1,1,2,2] i)",
                           "y, i = MaxPool <kernel_shape = [2, 2]> (x)"),
                     {{"x", MakeTensor<float>({1, 1, 3, 3}, {1, 9, 2, 3, 4, 5, 8, 7, 6})}});
  EXPECT_TENSOR(Out(out, ("y")), MakeTensor<float>({1, 1, 2, 2}, {9, 9, 8, 7}));
  EXPECT_TENSOR(Out(out, ("i")), MakeTensor<std::int64_t>({1, 1, 2, 2}, {1, 1, 6, 7}));
}

TEST(MaxPoolKernel, CeilModeAddsPartialWindows) {
  auto y = RunOne(Model(12, "(float[1,1,4,4] x) => (float[1,1,2,2] y)",
                        "y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], ceil_mode = 1> (x)"),
                  {{"x", MakeTensor<float>({1, 1, 4, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2, 2}, {11, 12, 15, 16}));
}

TEST(AveragePoolKernel, CountsPaddingOnlyWhenAsked) {
  const std::string sig = "(float[1,1,2,2] x) => (float[1,1,2,2] y)";
  const Inputs in = {{"x", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}};
  auto y = RunOne(Model(11, sig, "y = AveragePool <kernel_shape = [2, 2], pads = [1, 1, 0, 0]> (x)"), in);
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2, 2}, {1, 1.5f, 2, 2.5f}));
  auto z = RunOne(Model(11, sig, "y = AveragePool <kernel_shape = [2, 2], pads = [1, 1, 0, 0], count_include_pad = 1> (x)"), in);
  EXPECT_TENSOR(z, MakeTensor<float>({1, 1, 2, 2}, {0.25f, 0.75f, 1, 2.5f}));
}

TEST(GlobalPoolKernels, ReduceSpatialDimensions) {
  const Inputs in = {{"x", MakeTensor<float>({1, 2, 2}, {1, 3, -2, 6})}};
  EXPECT_TENSOR(RunOne(Model(11, "(float[1,2,2] x) => (float[1,2,1] y)", "y = GlobalAveragePool (x)"), in),
                MakeTensor<float>({1, 2, 1}, {2, 2}));
  EXPECT_TENSOR(RunOne(Model(11, "(float[1,2,2] x) => (float[1,2,1] y)", "y = GlobalMaxPool (x)"), in),
                MakeTensor<float>({1, 2, 1}, {3, 6}));
}

// ---------------------------------------------------------------------------------
// Resize

TEST(ResizeKernel, NearestUpsamplesWithScales) {
  auto y = RunOne(Model(13, "(float[1,1,1,2] x, float[4] s) => (float[1,1,2,4] y)",
                        "y = Resize <mode = \"nearest\"> (x, , s)"),
                  {{"x", MakeTensor<float>({1, 1, 1, 2}, {1, 2})}, {"s", MakeTensor<float>({4}, {1, 1, 2, 2})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2, 4}, {1, 1, 2, 2, 1, 1, 2, 2}));
}

TEST(ResizeKernel, LinearCoordinateModes) {
  const Inputs in = {{"x", MakeTensor<float>({1, 1, 1, 2}, {1, 3})}, {"s", MakeTensor<std::int64_t>({4}, {1, 1, 1, 4})}};
  const std::string sig = "(float[1,1,1,2] x, int64[4] s) => (float[1,1,1,4] y)";
  EXPECT_TENSOR(RunOne(Model(13, sig, "y = Resize <mode = \"linear\"> (x, , , s)"), in),
                MakeTensor<float>({1, 1, 1, 4}, {1, 1.5f, 2.5f, 3}));
  EXPECT_TENSOR(RunOne(Model(13, sig, "y = Resize <mode = \"linear\", coordinate_transformation_mode = \"align_corners\"> (x, , , s)"), in),
                MakeTensor<float>({1, 1, 1, 4}, {1, 1 + 2.0f / 3, 1 + 4.0f / 3, 3}));
  EXPECT_TENSOR(RunOne(Model(13, sig, "y = Resize <mode = \"linear\", coordinate_transformation_mode = \"asymmetric\"> (x, , , s)"), in),
                MakeTensor<float>({1, 1, 1, 4}, {1, 2, 3, 3}));
}

TEST(ResizeKernel, IntegerOutputsTakeNaNAsZeroAndSaturateAndNoteIt) {
  // tf_crop_and_resize with roi [0, 4] on the last axis of 2 elements reads the second
  // output element at 4, outside the input: there the value is extrapolation_value. NaN
  // was converted to uint8 with a plain cast (undefined behaviour); -1e30 saturates. The
  // spec gives no value to either, so the kernel notes them (folding leaves such a node).
  onnx_kernels::RegisterKernels();
  struct Case {
    float extrapolation;
    std::uint8_t expected;
    bool undefined;
  };
  for (const Case& c : {Case{std::numeric_limits<float>::quiet_NaN(), 0, true}, Case{-1e30f, 0, true},
                        Case{1e30f, 255, true}, Case{9.7f, 9, false}}) {
    ModelProto model = ParseText(Model(19, "(uint8[1,2] x, float[4] roi, int64[2] s) => (uint8[1,2] y)",
                                       "y = Resize <mode = \"linear\", coordinate_transformation_mode = "
                                       "\"tf_crop_and_resize\", extrapolation_value = 0.0> (x, roi, , s)"));
    AttributeProto& attribute = *model.mutable_graph()->mutable_node(0)->mutable_attribute(2);
    ASSERT_EQ(attribute.name(), "extrapolation_value");
    attribute.set_f(c.extrapolation);
    const core::eval::ValueMap inputs = {{"x", MakeTensor<std::uint8_t>({1, 2}, {5, 7})},
                                         {"roi", MakeTensor<float>({4}, {0, 0, 1, 4})},
                                         {"s", MakeTensor<std::int64_t>({2}, {1, 2})}};
    core::eval::ScopedUndefinedResults scope;
    EXPECT_TENSOR(OutputTensor(core::eval::Run(model, inputs), "y"), MakeTensor<std::uint8_t>({1, 2}, {5, c.expected}))
        << c.extrapolation;
    EXPECT_EQ(scope.first().has_value(), c.undefined) << c.extrapolation;
  }
}

TEST(ResizeKernel, NearestCopiesIntegersBeyondDoublePrecision) {
  // Interpolated in double, 2^53 + 1 became 2^53; uint64 was refused.
  onnx_kernels::RegisterKernels();
  const std::int64_t big = (std::int64_t{1} << 53) + 1, max = std::numeric_limits<std::int64_t>::max();
  // half_pixel, round_prefer_floor, twice as long: each input element twice.
  EXPECT_TENSOR(RunOne(Model(19, "(int64[1,2] x, int64[2] s) => (int64[1,4] y)",
                             "y = Resize <mode = \"nearest\"> (x, , , s)"),
                       {{"x", MakeTensor<std::int64_t>({1, 2}, {big, max})}, {"s", MakeTensor<std::int64_t>({2}, {1, 4})}}),
                MakeTensor<std::int64_t>({1, 4}, {big, big, max, max}));
  const std::uint64_t huge = std::numeric_limits<std::uint64_t>::max() - 2;
  EXPECT_TENSOR(RunOne(Model(19, "(uint64[2,1] x, int64[2] s) => (uint64[4,1] y)",
                             "y = Resize <mode = \"nearest\"> (x, , , s)"),
                       {{"x", MakeTensor<std::uint64_t>({2, 1}, {huge, 7})}, {"s", MakeTensor<std::int64_t>({2}, {4, 1})}}),
                MakeTensor<std::uint64_t>({4, 1}, {huge, huge, 7, 7}));
}

TEST(ResizeKernel, NearestExtrapolatesIntegersAndNotesAValueTheTypeDoesNotHold) {
  onnx_kernels::RegisterKernels();
  // tf_crop_and_resize with roi [0, 4] on an axis of 2: the second output reads outside.
  for (const auto& [extrapolation, expected, undefined] :
       {std::tuple{9.7f, std::int64_t{9}, false}, std::tuple{std::numeric_limits<float>::quiet_NaN(), std::int64_t{0}, true}}) {
    ModelProto model = ParseText(Model(19, "(int64[1,2] x, float[4] roi, int64[2] s) => (int64[1,2] y)",
                                       "y = Resize <mode = \"nearest\", coordinate_transformation_mode = "
                                       "\"tf_crop_and_resize\", extrapolation_value = 0.0> (x, roi, , s)"));
    AttributeProto& attribute = *model.mutable_graph()->mutable_node(0)->mutable_attribute(2);
    ASSERT_EQ(attribute.name(), "extrapolation_value");
    attribute.set_f(extrapolation);
    const core::eval::ValueMap inputs = {{"x", MakeTensor<std::int64_t>({1, 2}, {-5, 7})},
                                         {"roi", MakeTensor<float>({4}, {0, 0, 1, 4})},
                                         {"s", MakeTensor<std::int64_t>({2}, {1, 2})}};
    core::eval::ScopedUndefinedResults scope;
    EXPECT_TENSOR(OutputTensor(core::eval::Run(model, inputs), "y"), MakeTensor<std::int64_t>({1, 2}, {-5, expected}))
        << extrapolation;
    EXPECT_EQ(scope.first().has_value(), undefined) << extrapolation;
  }
}

TEST(ResizeKernel, InterpolatesUnsignedSixtyFourBitIntegers) {
  onnx_kernels::RegisterKernels();
  // half_pixel, linear, twice as long: 10, 12.5, 17.5, 20, truncated.
  EXPECT_TENSOR(RunOne(Model(19, "(uint64[1,2] x, int64[2] s) => (uint64[1,4] y)",
                             "y = Resize <mode = \"linear\"> (x, , , s)"),
                       {{"x", MakeTensor<std::uint64_t>({1, 2}, {10, 20})}, {"s", MakeTensor<std::int64_t>({2}, {1, 4})}}),
                MakeTensor<std::uint64_t>({1, 4}, {10, 12, 17, 20}));
}

TEST(ResizeKernel, ShrinksAxesBeforeGrowingOthers) {
  // [1,1,1,1000] to [20,20,20,1]: growing the first three axes first held 8*10^6 doubles
  // (64 MB) before the last axis shrank; shrinking it first holds at most 8000 (the output),
  // within a 1 MB limit.
  const core::ir::ScopedTensorLimit limit(1 << 20, "the test's limit");
  std::vector<float> x(1000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  // half_pixel, one output element on the last axis: the input at 499.5.
  EXPECT_TENSOR(RunOne(Model(13, "(float[1,1,1,1000] x, int64[4] s) => (float[20,20,20,1] y)",
                             "y = Resize <mode = \"linear\"> (x, , , s)"),
                       {{"x", MakeTensor<float>({1, 1, 1, 1000}, x)}, {"s", MakeTensor<std::int64_t>({4}, {20, 20, 20, 1})}}),
                MakeTensor<float>({20, 20, 20, 1}, std::vector<float>(8000, 499.5f)));
}

TEST(ResizeKernel, EmptyOutputNeedsNoSampling) {
  // An axis resized to 0 empties the output: the other axis's 2^29 positions (allowed, as
  // the rows of an empty tensor, by a limit of 1 GiB) were given sampling tables of
  // gigabytes.
  const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 30, "the test's limit");
  const std::int64_t rows = std::int64_t{1} << 29;
  auto y = RunOne(Model(13, "(float[2,2] x, int64[2] s) => (float[0,536870912] y)",
                        "y = Resize <mode = \"linear\"> (x, , , s)"),
                  {{"x", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}, {"s", MakeTensor<std::int64_t>({2}, {0, rows})}});
  EXPECT_EQ(y.shape(), (Shape{0, rows}));
}

// ---------------------------------------------------------------------------------
// Quantization

TEST(QuantizeLinearKernel, RoundsHalfToEvenAndSaturates) {
  auto y = RunOne(Model(13, "(float[5] x, float s, uint8 z) => (uint8[5] y)", "y = QuantizeLinear (x, s, z)"),
                  {{"x", MakeTensor<float>({5}, {0, 1, 3, 1000, -1000})}, {"s", MakeScalar<float>(2)}, {"z", MakeScalar<std::uint8_t>(128)}});
  EXPECT_TENSOR(y, MakeTensor<std::uint8_t>({5}, {128, 128, 130, 255, 0}));
}

TEST(DequantizeLinearKernel, AppliesPerAxisScales) {
  auto y = RunOne(Model(13, "(int8[2,2] x, float[2] s, int8[2] z) => (float[2,2] y)", "y = DequantizeLinear <axis = 0> (x, s, z)"),
                  {{"x", MakeTensor<std::int8_t>({2, 2}, {1, 2, 3, 4})},
                   {"s", MakeTensor<float>({2}, {1, 0.5f})},
                   {"z", MakeTensor<std::int8_t>({2}, {0, 2})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 2}, {1, 2, 0.5f, 1}));
}

// `text` with the element type of its graph inputs and outputs named in `types` replaced:
// the ONNX text parser of the system's onnx library predates float4e2m1 and float8e8m0,
// so the text declares uint8 there.
ModelProto WithElemTypes(std::string_view text, const std::map<std::string, int>& types) {
  ModelProto model = ParseText(text);
  for (auto* values : {model.mutable_graph()->mutable_input(), model.mutable_graph()->mutable_output()})
    for (ValueInfoProto& value : *values)
      if (auto it = types.find(value.name()); it != types.end())
        value.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
  return model;
}

// From opset 23 the division takes the scale's type (or the precision attribute): with a
// float16 scale, 3.4997 becomes 3.5 in float16 and rounds half to even to 4, where float32
// gives 3. Before opset 23 (and with a float scale) it is float32; int32 data (opset 19) too.
TEST(QuantizeLinearKernel, DividesInTheScalesTypeFromOpset23) {
  const auto quantize = [](int opset, const std::string& signature, const std::string& attributes, Tensor x,
                           Tensor s) {
    return RunOne(Model(opset, signature, "y = QuantizeLinear " + attributes + "(x, s, z)"),
                  {{"x", std::move(x)}, {"s", std::move(s)}, {"z", MakeScalar<std::int8_t>(0)}});
  };
  const Tensor x = MakeTensor<float>({3}, {3.4997f, 2.4997f, 1.4999f});
  const std::string mixed = "(float[3] x, float16 s, int8 z) => (int8[3] y)";
  EXPECT_TENSOR(quantize(23, mixed, "", x, MakeHalf({}, {1})), MakeTensor<std::int8_t>({3}, {4, 2, 2}));
  EXPECT_TENSOR(quantize(23, mixed, "<precision = 1> ", x, MakeHalf({}, {1})), MakeTensor<std::int8_t>({3}, {3, 2, 1}));
  EXPECT_TENSOR(quantize(23, "(float[3] x, float s, int8 z) => (int8[3] y)", "", x, MakeScalar<float>(1)),
                MakeTensor<std::int8_t>({3}, {3, 2, 1}));
  EXPECT_TENSOR(quantize(21, "(float16[3] x, float16 s, int8 z) => (int8[3] y)", "", MakeHalf({3}, {3.5f, 2.5f, 1.5f}),
                         MakeHalf({}, {1})),
                MakeTensor<std::int8_t>({3}, {4, 2, 2}));
  EXPECT_TENSOR(quantize(19, "(int32[3] x, float s, int8 z) => (int8[3] y)", "",
                         MakeTensor<std::int32_t>({3}, {7, -7, 1000}), MakeScalar<float>(2)),
                MakeTensor<std::int8_t>({3}, {4, -4, 127}));
}

// The MX formats (opset 24): float4e2m1 weights in blocks of 2 along axis 1, one
// float8e8m0 scale a block (codes 126, 128, 129, 127: 0.5, 2, 4, 1). float4e2m1 codes 1, 3,
// 6, 0xA, 0xF, 2, 4 are 0.5, 1.5, 4, -1, -6, 1, 2.
TEST(DequantizeLinearKernel, ScalesFloat4BlocksByPowersOfTwo) {
  onnx_kernels::RegisterKernels();
  const core::eval::ValueMap inputs = {
      {"w", MakeCodes(core::eval::kFloat4E2M1, {2, 4}, {1, 3, 6, 0xA, 0xF, 0, 2, 4})},
      {"s", MakeCodes(core::eval::kFloat8E8M0, {2, 2}, {126, 128, 129, 127})}};
  const std::map<std::string, int> types = {{"w", core::eval::kFloat4E2M1}, {"s", core::eval::kFloat8E8M0}};
  const ModelProto model = WithElemTypes(Model(24, "(uint8[2,4] w, uint8[2,2] s) => (float[2,4] y)",
                                               "y = DequantizeLinear <axis = 1, block_size = 2, output_dtype = 1> (w, s)"),
                                         types);
  EXPECT_TENSOR(OutputTensor(core::eval::Run(model, inputs), "y"),
                MakeTensor<float>({2, 4}, {0.25f, 0.75f, 8, -2, -24, 0, 1, 2}));
  // Without output_dtype the output would be float8e8m0, which no output may be.
  const ModelProto without = WithElemTypes(
      Model(24, "(uint8[2,4] w, uint8[2,2] s) => (float[2,4] y)", "y = DequantizeLinear <axis = 1, block_size = 2> (w, s)"),
      types);
  EXPECT_THAT([&] { core::eval::Run(without, inputs); },
              ::testing::ThrowsMessage<onnxopt::ModelError>(::testing::HasSubstr("a FLOAT8E8M0 scale needs the attribute output_dtype")));
}

// Per tensor, the scale and the zero point may each be a scalar or hold one value in a
// vector (the spec's examples pair a scalar scale with a zero point of shape (1,);
// onnxruntime accepts both); per axis, the zero point must have the scale's shape.
TEST(DequantizeLinearKernel, TakesAOneValueZeroPointBesideAScalarScale) {
  const Tensor x = MakeTensor<std::int8_t>({3}, {0, 5, -1});
  EXPECT_TENSOR(RunOne(Model(21, "(int8[3] x, float s, int8[1] z) => (float[3] y)", "y = DequantizeLinear (x, s, z)"),
                       {{"x", x}, {"s", MakeScalar<float>(2)}, {"z", MakeTensor<std::int8_t>({1}, {1})}}),
                MakeTensor<float>({3}, {-2, 8, -4}));
  EXPECT_TENSOR(RunOne(Model(21, "(int8[3] x, float[1] s, int8 z) => (float[3] y)", "y = DequantizeLinear (x, s, z)"),
                       {{"x", x}, {"s", MakeTensor<float>({1}, {2})}, {"z", MakeScalar<std::int8_t>(1)}}),
                MakeTensor<float>({3}, {-2, 8, -4}));
  EXPECT_THAT(
      [&] {
        RunOne(Model(21, "(int8[2,3] x, float[2] s, int8[1] z) => (float[2,3] y)", "y = DequantizeLinear <axis = 0> (x, s, z)"),
               {{"x", MakeTensor<std::int8_t>({2, 3}, {0, 1, 2, 3, 4, 5})},
                {"s", MakeTensor<float>({2}, {1, 2})},
                {"z", MakeTensor<std::int8_t>({1}, {1})}});
      },
      ::testing::ThrowsMessage<onnxopt::ModelError>(::testing::HasSubstr("must have the shape of the scale float[2]")));
}

// The spec's examples for the 2-bit types (opset 25), and quantizing to them saturates at
// their ranges ([-2, 1], [0, 3]). A Tensor holds them a byte each (int8 for INT2).
Tensor TwoBit(int type, std::vector<std::int64_t> shape, const std::vector<int>& values) {
  Tensor t(type, std::move(shape));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (type == core::eval::kInt2)
      t.MutableData<std::int8_t>()[i] = static_cast<std::int8_t>(values[i]);
    else
      t.MutableData<std::uint8_t>()[i] = static_cast<std::uint8_t>(values[i]);
  }
  return t;
}

TEST(DequantizeLinearKernel, DequantizesTwoBitTypes) {
  onnx_kernels::RegisterKernels();
  const auto dequantize = [](int type, const std::vector<int>& x, int zero_point) {
    const ModelProto model =
        WithElemTypes(Model(25, "(int8[4] x, float s, int8[1] z) => (float[4] y)", "y = DequantizeLinear <axis = 0> (x, s, z)"),
                      {{"x", type}, {"z", type}});
    return OutputTensor(core::eval::Run(model, {{"x", TwoBit(type, {4}, x)},
                                                {"s", MakeScalar<float>(2)},
                                                {"z", TwoBit(type, {1}, {zero_point})}}),
                        "y");
  };
  EXPECT_TENSOR(dequantize(core::eval::kInt2, {0, 1, -1, -2}, 1), MakeTensor<float>({4}, {-2, 0, -4, -6}));
  EXPECT_TENSOR(dequantize(core::eval::kUint2, {0, 1, 2, 3}, 1), MakeTensor<float>({4}, {-2, 0, 2, 4}));
}

TEST(QuantizeLinearKernel, SaturatesAtTheTwoBitRanges) {
  onnx_kernels::RegisterKernels();
  const auto quantize = [](int type, int zero_point) {
    const ModelProto model = WithElemTypes(
        Model(25, "(float[6] x, float s, int8 z) => (int8[6] y)", "y = QuantizeLinear (x, s, z)"), {{"z", type}, {"y", type}});
    return OutputTensor(core::eval::Run(model, {{"x", MakeTensor<float>({6}, {-9, -2.5f, -1, 0.5f, 1.5f, 4})},
                                                {"s", MakeScalar<float>(1)},
                                                {"z", TwoBit(type, {}, {zero_point})}}),
                        "y");
  };
  EXPECT_TENSOR(quantize(core::eval::kInt2, 0), TwoBit(core::eval::kInt2, {6}, {-2, -2, -1, 0, 1, 1}));
  EXPECT_TENSOR(quantize(core::eval::kUint2, 1), TwoBit(core::eval::kUint2, {6}, {0, 0, 0, 1, 3, 3}));
}

// x / scale (a power of two) rounded to float4e2m1: to nearest even, saturating at 6.
TEST(QuantizeLinearKernel, QuantizesToFloat4WithAPowerOfTwoScale) {
  onnx_kernels::RegisterKernels();
  const ModelProto model = WithElemTypes(Model(24, "(float[6] x, uint8 s, uint8 z) => (uint8[6] y)", "y = QuantizeLinear (x, s, z)"),
                                         {{"s", core::eval::kFloat8E8M0}, {"z", core::eval::kFloat4E2M1}, {"y", core::eval::kFloat4E2M1}});
  const core::eval::ValueMap inputs = {{"x", MakeTensor<float>({6}, {0.25f, 0.6f, 1.25f, -1.5f, 2.5f, 100})},
                                       {"s", MakeCodes(core::eval::kFloat8E8M0, {}, {126})},  // 0.5
                                       {"z", MakeCodes(core::eval::kFloat4E2M1, {}, {0})}};
  EXPECT_TENSOR(OutputTensor(core::eval::Run(model, inputs), "y"),
                MakeCodes(core::eval::kFloat4E2M1, {6}, {1, 2, 4, 0xD, 6, 7}));
}

// ---------------------------------------------------------------------------------
// Einsum

TEST(EinsumKernel, ContractsTransposesAndTakesDiagonals) {
  const Tensor a = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  const Tensor b = MakeTensor<float>({2, 2}, {5, 6, 7, 8});
  EXPECT_TENSOR(RunOne(Model(12, "(float[2,2] a, float[2,2] b) => (float[2,2] y)", "y = Einsum <equation = \"ij,jk->ik\"> (a, b)"),
                       {{"a", a}, {"b", b}}),
                MakeTensor<float>({2, 2}, {19, 22, 43, 50}));
  EXPECT_TENSOR(RunOne(Model(12, "(float[2,2] a) => (float[2,2] y)", "y = Einsum <equation = \"ij->ji\"> (a)"), {{"a", a}}),
                MakeTensor<float>({2, 2}, {1, 3, 2, 4}));
  EXPECT_TENSOR(RunOne(Model(12, "(float[2,2] a) => (float y)", "y = Einsum <equation = \"ii\"> (a)"), {{"a", a}}),
                MakeScalar<float>(5));
  EXPECT_TENSOR(RunOne(Model(12, "(float[2,2] a) => (float[2] y)", "y = Einsum <equation = \"ii->i\"> (a)"), {{"a", a}}),
                MakeTensor<float>({2}, {1, 4}));
  EXPECT_TENSOR(RunOne(Model(12, "(float[2,2] a) => (float[2] y)", "y = Einsum <equation = \"ij->i\"> (a)"), {{"a", a}}),
                MakeTensor<float>({2}, {3, 7}));
}

// Integer Einsum sums exactly and wraps around like MatMul (graph fuzzer, UBSan: a sum
// of 1.8e19 computed in double was converted to int64).
TEST(EinsumKernel, IntegerSumsAreExactAndWrapAround) {
  auto y = RunOne(Model(12, "(int64[2,2] a, int64[2] b) => (int64[2] y)", "y = Einsum <equation = \"ij,j->i\"> (a, b)"),
                  {{"a", MakeTensor<std::int64_t>({2, 2}, {std::int64_t{1} << 62, 3, (std::int64_t{1} << 53) + 1, 0})},
                   {"b", MakeTensor<std::int64_t>({2}, {4, 5})}});
  // 2^62 * 4 + 15 = 2^64 + 15 = 15 mod 2^64; (2^53 + 1) * 4 exactly (a double gives 2^55).
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({2}, {15, ((std::int64_t{1} << 53) + 1) * 4}));
}

TEST(EinsumKernel, BroadcastsEllipsis) {
  auto y = RunOne(Model(12, "(float[2,1,2] a, float[2,1] b) => (float[2,1,1] y)", "y = Einsum <equation = \"...ij,jk->...ik\"> (a, b)"),
                  {{"a", MakeTensor<float>({2, 1, 2}, {1, 2, 3, 4})}, {"b", MakeTensor<float>({2, 1}, {1, 1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 1, 1}, {3, 7}));
}

// ---------------------------------------------------------------------------------
// Attention and RotaryEmbedding (opset 23)

TEST(AttentionKernel, AveragesValuesForEqualScores) {
  // Q orthogonal to both keys: uniform weights, Y = mean of V rows.
  auto y = RunOne(Model(23, "(float[1,1,1,2] q, float[1,1,2,2] k, float[1,1,2,2] v) => (float[1,1,1,2] y)",
                        "y = Attention (q, k, v)"),
                  {{"q", MakeTensor<float>({1, 1, 1, 2}, {0, 0})},
                   {"k", MakeTensor<float>({1, 1, 2, 2}, {1, 0, 0, 1})},
                   {"v", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 1, 2}, {2, 3}));
}

TEST(AttentionKernel, AppliesCausalMask) {
  auto y = RunOne(Model(23, "(float[1,1,2,1] q, float[1,1,2,1] k, float[1,1,2,1] v) => (float[1,1,2,1] y)",
                        "y = Attention <is_causal = 1> (q, k, v)"),
                  {{"q", MakeTensor<float>({1, 1, 2, 1}, {0, 0})},
                   {"k", MakeTensor<float>({1, 1, 2, 1}, {0, 0})},
                   {"v", MakeTensor<float>({1, 1, 2, 1}, {2, 4})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2, 1}, {2, 3}));
}

TEST(RotaryEmbeddingKernel, RotatesHalves) {
  // One head of size 2, angle 90 degrees: (x1, x2) -> (-x2, x1).
  auto y = RunOne(Model(23, "(float[1,1,1,2] x, float[1,1] c, float[1,1] s, int64[1,1] p) => (float[1,1,1,2] y)",
                        "y = RotaryEmbedding (x, c, s, p)"),
                  {{"x", MakeTensor<float>({1, 1, 1, 2}, {1, 2})},
                   {"c", MakeTensor<float>({1, 1}, {0})},
                   {"s", MakeTensor<float>({1, 1}, {1})},
                   {"p", MakeTensor<std::int64_t>({1, 1}, {0})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 1, 2}, {-2, 1}));
}

// ---------------------------------------------------------------------------------
// Recurrent networks: one hidden unit, every weight equal, two steps.

float Sig(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TEST(LstmKernel, MatchesTheGateEquationsInBothDirections) {
  const float w = 0.5f, r = -0.3f;
  auto step = [&](float x, float h, float c, float& h_out, float& c_out) {
    const float pre = w * x + r * h;
    const float i = Sig(pre), f = Sig(pre), o = Sig(pre), g = std::tanh(pre);
    c_out = f * c + i * g;
    h_out = o * std::tanh(c_out);
  };
  float h1, c1, h2, c2, rh1, rc1, rh2, rc2;
  step(1, 0, 0, h1, c1);
  step(2, h1, c1, h2, c2);
  step(2, 0, 0, rh1, rc1);  // reverse: x = 2 first
  step(1, rh1, rc1, rh2, rc2);
  auto out = RunText(Model(14, "(float[2,1,1] x, float[2,4,1] w, float[2,4,1] r) => (float[2,2,1,1] y, float[2,1,1] yh, float[2,1,1] yc)",
                           "y, yh, yc = LSTM <hidden_size = 1, direction = \"bidirectional\"> (x, w, r)"),
                     {{"x", MakeTensor<float>({2, 1, 1}, {1, 2})},
                      {"w", MakeTensor<float>({2, 4, 1}, std::vector<float>(8, w))},
                      {"r", MakeTensor<float>({2, 4, 1}, std::vector<float>(8, r))}});
  EXPECT_TENSOR(Out(out, "y"), MakeTensor<float>({2, 2, 1, 1}, {h1, rh2, h2, rh1}));
  EXPECT_TENSOR(Out(out, "yh"), MakeTensor<float>({2, 1, 1}, {h2, rh2}));
  EXPECT_TENSOR(Out(out, "yc"), MakeTensor<float>({2, 1, 1}, {c2, rc2}));
}

TEST(GruKernel, MatchesTheGateEquations) {
  const float w = 0.4f, r = 0.2f;
  for (int lbr = 0; lbr < 2; ++lbr) {
    auto step = [&](float x, float h) {
      const float z = Sig(w * x + r * h), rr = Sig(w * x + r * h);
      const float hh = lbr ? std::tanh(w * x + rr * (r * h)) : std::tanh(w * x + r * (rr * h));
      return (1 - z) * hh + z * h;
    };
    const float h1 = step(1, 0), h2 = step(-2, h1);
    auto out = RunText(Model(14, "(float[2,1,1] x, float[1,3,1] w, float[1,3,1] r) => (float[2,1,1,1] y, float[1,1,1] yh)",
                             "y, yh = GRU <hidden_size = 1, linear_before_reset = " + std::to_string(lbr) + "> (x, w, r)"),
                       {{"x", MakeTensor<float>({2, 1, 1}, {1, -2})},
                        {"w", MakeTensor<float>({1, 3, 1}, {w, w, w})},
                        {"r", MakeTensor<float>({1, 3, 1}, {r, r, r})}});
    EXPECT_TENSOR(Out(out, "y"), MakeTensor<float>({2, 1, 1, 1}, {h1, h2}));
    EXPECT_TENSOR(Out(out, "yh"), MakeTensor<float>({1, 1, 1}, {h2}));
  }
}

TEST(RnnKernel, AppliesTanhByDefault) {
  auto y = RunOne(Model(14, "(float[1,1,1] x, float[1,1,1] w, float[1,1,1] r, float[1,2] b) => (float[1,1,1,1] y)",
                        "y = RNN <hidden_size = 1> (x, w, r, b)"),
                  {{"x", MakeTensor<float>({1, 1, 1}, {1})},
                   {"w", MakeTensor<float>({1, 1, 1}, {0.5f})},
                   {"r", MakeTensor<float>({1, 1, 1}, {3})},
                   {"b", MakeTensor<float>({1, 2}, {0.25f, 0.25f})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 1, 1}, {std::tanh(1.0f)}));
}

// Large shapes go through the blocked GEMM; sampled entries are checked against dot products.
TEST(MatMulKernel, RunsLargeShapes) {
  const std::int64_t M = 64, K = 2048, N = 2048;
  auto a = RandomValues(M * K, 41), b = RandomValues(K * N, 42);
  auto y = RunOne(Model(13, "(float[64,2048] a, float[2048,2048] b) => (float[64,2048] y)", "y = MatMul (a, b)"),
                  {{"a", MakeTensor<float>({M, K}, a)}, {"b", MakeTensor<float>({K, N}, b)}});
  const float* p = y.Data<float>();
  for (std::int64_t i = 0; i < M; i += 13)
    for (std::int64_t j = 0; j < N; j += 97) {
      double s = 0;
      for (std::int64_t k = 0; k < K; ++k) s += static_cast<double>(a[i * K + k]) * b[k * N + j];
      EXPECT_NEAR(p[i * N + j], s, 1e-3) << i << "," << j;
    }
}

TEST(ConvKernel, RunsLargeShapes) {
  const ConvCase c{{1, 32, 64, 64}, {32, 32, 3, 3}, 1, {1, 1}, {1, 1}, {1, 1, 1, 1}};
  auto x = RandomValues(Numel(c.x), 51), w = RandomValues(Numel(c.w), 52), b = RandomValues(32, 53);
  Shape out_shape;
  auto ref = NaiveConv2d(x, w, b, c, out_shape);
  auto y = RunOne(Model(11, "(float[1,32,64,64] x, float[32,32,3,3] w, float[32] b) => (float[1,32,64,64] y)",
                        "y = Conv <pads = [1, 1, 1, 1]> (x, w, b)"),
                  {{"x", MakeTensor<float>(c.x, x)}, {"w", MakeTensor<float>(c.w, w)}, {"b", MakeTensor<float>({32}, b)}});
  EXPECT_TRUE(SameTensor(y, MakeTensor<float>(out_shape, ref), 1e-4, 1e-4));
}

// ---------------------------------------------------------------------------------
// Work bounds: kernels whose work is not bounded by their inputs and outputs

TEST(PoolKernel, ChargesTheTapsOfItsWindowsFirst) {
  // A 20 x 20 kernel with pads of 19 on a 20 x 20 image: 39 x 39 windows of up to 400
  // taps each (4 * 10^6 windows of 10^6 taps for a 1000 x 1000 image).
  const std::string body = "y = MaxPool <kernel_shape = [20, 20], pads = [19, 19, 19, 19]> (x)";
  const std::string sig = "(float[1,1,20,20] x) => (float[1,1,39,39] y)";
  const Inputs in = {{"x", MakeTensor<float>({1, 1, 20, 20}, RandomValues(400, 3))}};
  core::eval::WorkBudget enough(39 * 39 * 400, "the test's budget");
  {
    const core::eval::ScopedWorkBudget scope(enough);
    EXPECT_EQ(RunOne(Model(12, sig, body), in).shape(), (Shape{1, 1, 39, 39}));
  }
  EXPECT_EQ(enough.spent(), 39u * 39u * 400u);
  core::eval::WorkBudget small(100000, "the test's budget");
  const core::eval::ScopedWorkBudget scope(small);
  EXPECT_THAT(ModelErrorOf(Model(12, sig, body), in), ::testing::HasSubstr("MaxPool's windows"));
  EXPECT_THAT(ModelErrorOf(Model(12, sig, "y = AveragePool <kernel_shape = [20, 20], pads = [19, 19, 19, 19]> (x)"), in),
              ::testing::HasSubstr("AveragePool's windows"));
}

TEST(ConvTransposeKernel, ChargesItsScatterWithoutInputChannels) {
  // X [1, 0, 50] and W [0, 1, 50] hold nothing, so the products are free, but the scatter
  // still visits 50 taps for each of the 50 input positions.
  const Inputs in = {{"x", Tensor(TensorProto::FLOAT, {1, 0, 50})}, {"w", Tensor(TensorProto::FLOAT, {0, 1, 50})}};
  core::eval::WorkBudget budget(1000, "the test's budget");
  const core::eval::ScopedWorkBudget scope(budget);
  EXPECT_THAT(ModelErrorOf(Model(11, "(float[1,0,50] x, float[0,1,50] w) => (float[1,1,99] y)",
                                 "y = ConvTranspose (x, w)"),
                           in),
              ::testing::HasSubstr("ConvTranspose's scatter"));
}

TEST(ConvKernel, EmptyOutputSkipsTheGroups) {
  // No input or output channel: every group divides them, and 2^40 groups of nothing
  // were looped over one by one.
  const Inputs in = {{"x", Tensor(TensorProto::FLOAT, {1, 0, 1})}, {"w", Tensor(TensorProto::FLOAT, {0, 0, 1})}};
  for (const char* op : {"Conv", "ConvTranspose"}) {
    const Tensor y = RunOne(Model(11, "(float[1,0,1] x, float[0,0,1] w) => (float y)",
                                  std::string("y = ") + op + " <group = 1099511627776> (x, w)"),
                            in);
    EXPECT_EQ(y.size(), 0) << op;
  }
}

TEST(SoftmaxKernel, EmptyInputOfManyRowsIsNotLoopedOver) {
  // [2^29, 0] (its rows allowed by a limit of 1 GiB): 2^29 rows of nothing, once visited
  // one by one.
  const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 30, "the test's limit");
  const std::int64_t rows = std::int64_t{1} << 29;
  const Tensor y = RunOne(Model(13, "(float[536870912,0] x) => (float[536870912,0] y)", "y = Softmax (x)"),
                          {{"x", Tensor(TensorProto::FLOAT, {rows, 0})}});
  EXPECT_EQ(y.shape(), (Shape{rows, 0}));
}

TEST(LayerNormalizationKernel, RefusesStatisticsBeyondTheLimit) {
  // [2^28, 0] normalized over its last axis: 2^28 means and deviations (2 GiB of doubles,
  // above the limit of 1 GiB), once allocated as plain vectors.
  const core::ir::ScopedTensorLimit limit(std::uint64_t{1} << 30, "the test's limit");
  const std::int64_t rows = std::int64_t{1} << 28;
  const Inputs in = {{"x", Tensor(TensorProto::FLOAT, {rows, 0})}, {"s", Tensor(TensorProto::FLOAT, {0})}};
  EXPECT_THAT(ModelErrorOf(Model(17, "(float[268435456,0] x, float[0] s) => (float y)",
                                 "y = LayerNormalization (x, s)"),
                           in),
              ::testing::HasSubstr("the statistics"));
}

}  // namespace
}  // namespace onnxopt::testing
