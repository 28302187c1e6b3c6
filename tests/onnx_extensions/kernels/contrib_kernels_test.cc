#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

const Tensor& Out(const core::eval::ValueMap& out, const std::string& name) {
  return core::eval::AsTensor(out.at(name), name);
}

std::string MsModel(const std::string& signature, const std::string& body) {
  return "<ir_version: 10, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\ng " + signature + " {\n" + body + "\n}";
}

TEST(FusedMatMulKernel, TransposesAndScales) {
  // alpha * A^T * B with A = [[1, 3], [2, 4]] (A^T = [[1, 2], [3, 4]]).
  auto y = RunOne(MsModel("(float[2,2] a, float[2,2] b) => (float[2,2] y)",
                          "y = com.microsoft.FusedMatMul <alpha = 2.0, transA = 1> (a, b)"),
                  {{"a", MakeTensor<float>({2, 2}, {1, 3, 2, 4})}, {"b", MakeTensor<float>({2, 2}, {5, 6, 7, 8})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2, 2}, {38, 44, 86, 100}));
  auto z = RunOne(MsModel("(float[2,2] a, float[2,2] b) => (float[2,2] y)",
                          "y = com.microsoft.FusedMatMul <transB = 1> (a, b)"),
                  {{"a", MakeTensor<float>({2, 2}, {1, 2, 3, 4})}, {"b", MakeTensor<float>({2, 2}, {5, 7, 6, 8})}});
  EXPECT_TENSOR(z, MakeTensor<float>({2, 2}, {19, 22, 43, 50}));
}

float GeluRef(float x) { return 0.5f * x * (1.0f + std::erf(x / std::sqrt(2.0f))); }
float FastGeluRef(float x) {
  return 0.5f * x * (1.0f + std::tanh(std::sqrt(2.0f / static_cast<float>(M_PI)) * (x + 0.044715f * x * x * x)));
}

TEST(GeluKernels, MatchTheirFormulas) {
  const Tensor x = MakeTensor<float>({1, 3}, {-1, 0.5f, 2});
  const Tensor b = MakeTensor<float>({3}, {1, 0, -1});
  EXPECT_TENSOR(RunOne(MsModel("(float[1,3] x) => (float[1,3] y)", "y = com.microsoft.Gelu (x)"), {{"x", x}}),
                MakeTensor<float>({1, 3}, {GeluRef(-1), GeluRef(0.5f), GeluRef(2)}));
  EXPECT_TENSOR(RunOne(MsModel("(float[1,3] x, float[3] b) => (float[1,3] y)", "y = com.microsoft.BiasGelu (x, b)"),
                       {{"x", x}, {"b", b}}),
                MakeTensor<float>({1, 3}, {GeluRef(0), GeluRef(0.5f), GeluRef(1)}));
  EXPECT_TENSOR(RunOne(MsModel("(float[1,3] x) => (float[1,3] y)", "y = com.microsoft.FastGelu (x)"), {{"x", x}}),
                MakeTensor<float>({1, 3}, {FastGeluRef(-1), FastGeluRef(0.5f), FastGeluRef(2)}));
  EXPECT_TENSOR(RunOne(MsModel("(float[1,3] x, float[3] b) => (float[1,3] y)", "y = com.microsoft.FastGelu (x, b)"),
                       {{"x", x}, {"b", b}}),
                MakeTensor<float>({1, 3}, {FastGeluRef(0), FastGeluRef(0.5f), FastGeluRef(1)}));
}

TEST(SkipLayerNormalizationKernel, AddsSkipAndBiasThenNormalizes) {
  auto out = RunText(
      MsModel("(float[1,1,2] x, float[1,1,2] s, float[2] g, float[2] be, float[2] bi) => "
              "(float[1,1,2] y, float[1,1,1] m, float[1,1,1] r, float[1,1,2] sum)",
              "y, m, r, sum = com.microsoft.SkipLayerNormalization <epsilon = 0.0> (x, s, g, be, bi)"),
      {{"x", MakeTensor<float>({1, 1, 2}, {1, 2})},
       {"s", MakeTensor<float>({1, 1, 2}, {0, 2})},
       {"g", MakeTensor<float>({2}, {1, 2})},
       {"be", MakeTensor<float>({2}, {0, 1})},
       {"bi", MakeTensor<float>({2}, {-1, 0})}});
  // sum = [0, 4]: mean 2, variance 4.
  EXPECT_TENSOR(Out(out, "sum"), MakeTensor<float>({1, 1, 2}, {0, 4}));
  EXPECT_TENSOR(Out(out, "y"), MakeTensor<float>({1, 1, 2}, {-1, 3}));
  EXPECT_TENSOR(Out(out, "m"), MakeTensor<float>({1, 1, 1}, {2}));
  EXPECT_TENSOR(Out(out, "r"), MakeTensor<float>({1, 1, 1}, {0.5f}));
}

TEST(SimplifiedLayerNormalizationKernel, RunsInBothDomains) {
  const Inputs in = {{"x", MakeTensor<float>({1, 2}, {3, 4})}, {"s", MakeTensor<float>({2}, {1, 2})}};
  const float rms = std::sqrt(12.5f);
  const Tensor expected = MakeTensor<float>({1, 2}, {3 / rms, 8 / rms});
  EXPECT_TENSOR(RunOne(MsModel("(float[1,2] x, float[2] s) => (float[1,2] y)",
                               "y = com.microsoft.SimplifiedLayerNormalization <epsilon = 0.0> (x, s)"),
                       in),
                expected);
  EXPECT_TENSOR(RunOne(MsModel("(float[1,2] x, float[2] s) => (float[1,2] y)",
                               "y = SimplifiedLayerNormalization <epsilon = 0.0> (x, s)"),
                       in),
                expected);
}

TEST(MsRotaryEmbeddingKernel, RotatesWithPositionOffsetAndInterleaving) {
  // hidden 4 = one head of 4; cache rows: position 0 angle 0, position 1 angle 90 degrees.
  const Tensor cos = MakeTensor<float>({2, 2}, {1, 1, 0, 0});
  const Tensor sin = MakeTensor<float>({2, 2}, {0, 0, 1, 1});
  const Tensor x = MakeTensor<float>({1, 1, 4}, {1, 2, 3, 4});
  const std::string sig = "(float[1,1,4] x, int64[1] p, float[2,2] c, float[2,2] s) => (float[1,1,4] y)";
  // Position 1: halves (1,2 | 3,4) -> (-3,-4 | 1,2).
  EXPECT_TENSOR(RunOne(MsModel(sig, "y = com.microsoft.RotaryEmbedding (x, p, c, s)"),
                       {{"x", x}, {"p", MakeTensor<std::int64_t>({1}, {1})}, {"c", cos}, {"s", sin}}),
                MakeTensor<float>({1, 1, 4}, {-3, -4, 1, 2}));
  // Interleaved pairs (1,2), (3,4) -> (-2,1), (-4,3).
  EXPECT_TENSOR(RunOne(MsModel(sig, "y = com.microsoft.RotaryEmbedding <interleaved = 1> (x, p, c, s)"),
                       {{"x", x}, {"p", MakeTensor<std::int64_t>({1}, {1})}, {"c", cos}, {"s", sin}}),
                MakeTensor<float>({1, 1, 4}, {-2, 1, -4, 3}));
  // Position 0: unchanged.
  EXPECT_TENSOR(RunOne(MsModel(sig, "y = com.microsoft.RotaryEmbedding (x, p, c, s)"),
                       {{"x", x}, {"p", MakeTensor<std::int64_t>({1}, {0})}, {"c", cos}, {"s", sin}}),
                x);
  // Neither one offset nor one position per (batch, sequence) pair.
  EXPECT_EQ(ModelErrorOf(MsModel("(float[1,3,4] x, int64[1,2] p, float[2,2] c, float[2,2] s) => (float[1,3,4] y)",
                                 "y = com.microsoft.RotaryEmbedding (x, p, c, s)"),
                         {{"x", MakeTensor<float>({1, 3, 4}, std::vector<float>(12, 1.0f))},
                          {"p", MakeTensor<std::int64_t>({1, 2}, {0, 1})},
                          {"c", cos},
                          {"s", sin}}),
            "node 'y' (RotaryEmbedding): RotaryEmbedding: position_ids must hold one offset or a position per (batch, "
            "sequence) pair (3), found 2");
}

TEST(QuickGeluKernel, MultipliesBySigmoid) {
  auto y = RunOne(MsModel("(float[2] x) => (float[2] y)", "y = com.microsoft.QuickGelu <alpha = 1.0> (x)"),
                  {{"x", MakeTensor<float>({2}, {0, 2})}});
  EXPECT_TENSOR(y, MakeTensor<float>({2}, {0, 2 / (1 + std::exp(-2.0f))}));
}

TEST(GemmFastGeluKernel, AppliesFastGeluToTheProduct) {
  auto y = RunOne(MsModel("(float[1,2] x, float[2,1] w, float[1] b) => (float[1,1] y)",
                          "y = com.microsoft.GemmFastGelu (x, w, b)"),
                  {{"x", MakeTensor<float>({1, 2}, {1, 2})}, {"w", MakeTensor<float>({2, 1}, {0.5f, 0.25f})}, {"b", MakeTensor<float>({1}, {-2})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1}, {FastGeluRef(-1)}));
}

TEST(BiasAddKernel, AddsBiasAndSkip) {
  auto y = RunOne(MsModel("(float[1,1,2] x, float[2] b, float[1,1,2] s) => (float[1,1,2] y)", "y = com.microsoft.BiasAdd (x, b, s)"),
                  {{"x", MakeTensor<float>({1, 1, 2}, {1, 2})}, {"b", MakeTensor<float>({2}, {10, 20})}, {"s", MakeTensor<float>({1, 1, 2}, {100, 200})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2}, {111, 222}));
}

}  // namespace
}  // namespace onnxopt::testing
