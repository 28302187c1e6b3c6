// Optimizers of ai.onnx.preview.training: one update computed by hand from the spec's
// pseudo code.

#include <cmath>
#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::string TrainingModel(const std::string& signature, const std::string& body) {
  return "<ir_version: 8, opset_import: [\"\" : 17, \"ai.onnx.preview.training\" : 1]>\ng " + signature + " {\n" +
         body + "\n}";
}

TEST(AdagradKernel, DecaysTheRateAndAccumulatesSquaredGradients) {
  // r = 1 / (1 + 2 * 0.5) = 0.5; g_reg = 0.5 * [2, 0] + [1, 3] = [2, 3]; h = [1, 0] + [4, 9];
  // x = [2 - 0.5 * 2 / (sqrt 5 + 1), 0 - 0.5 * 3 / (3 + 1)].
  auto out = RunText(TrainingModel("(float r, int64 t, float[2] x, float[2] g, float[2] h) => (float[2] xn, float[2] hn)",
                                   "xn, hn = ai.onnx.preview.training.Adagrad <decay_factor = 0.5, epsilon = 1.0, "
                                   "norm_coefficient = 0.5> (r, t, x, g, h)"),
                     {{"r", MakeScalar<float>(1)}, {"t", MakeScalar<std::int64_t>(2)},
                      {"x", MakeTensor<float>({2}, {2, 0})}, {"g", MakeTensor<float>({2}, {1, 3})},
                      {"h", MakeTensor<float>({2}, {1, 0})}});
  EXPECT_TENSOR(OutputTensor(out, "hn"), MakeTensor<float>({2}, {5, 9}));
  EXPECT_TENSOR(OutputTensor(out, "xn"), MakeTensor<float>({2}, {2 - 1 / (std::sqrt(5.0f) + 1), -0.375f}));
}

TEST(AdamKernel, CorrectsTheBiasAfterTheFirstStep) {
  // alpha 0.5, beta 0.75, t = 1: g = [2]; v = 0.5 * 2 + 0.5 * 2 = 2; h = 0.75 * 4 + 0.25 * 4 = 4;
  // rate = 0.1 * sqrt(1 - 0.75) / (1 - 0.5) = 0.1; x = (1 - 0.5) * (3 - 0.1 * 2 / (2 + 0)).
  const std::string model =
      TrainingModel("(double r, int64 t, double[1] x, double[1] g, double[1] v, double[1] h) => "
                    "(double[1] xn, double[1] vn, double[1] hn)",
                    "xn, vn, hn = ai.onnx.preview.training.Adam <alpha = 0.5, beta = 0.75, "
                    "norm_coefficient_post = 0.5> (r, t, x, g, v, h)");
  const auto inputs = [](std::int64_t t) {
    return Inputs{{"r", MakeScalar<double>(0.1)}, {"t", MakeScalar<std::int64_t>(t)},
                  {"x", MakeTensor<double>({1}, {3})}, {"g", MakeTensor<double>({1}, {2})},
                  {"v", MakeTensor<double>({1}, {2})}, {"h", MakeTensor<double>({1}, {4})}};
  };
  auto out = RunText(model, inputs(1));
  EXPECT_TENSOR(OutputTensor(out, "vn"), MakeTensor<double>({1}, {2}));
  EXPECT_TENSOR(OutputTensor(out, "hn"), MakeTensor<double>({1}, {4}));
  EXPECT_TENSOR(OutputTensor(out, "xn"), MakeTensor<double>({1}, {0.5 * (3 - 0.1)}));
  // t = 0: no correction, the same numbers here (sqrt(0.25) / 0.5 = 1).
  EXPECT_TENSOR(OutputTensor(RunText(model, inputs(0)), "xn"), MakeTensor<double>({1}, {0.5 * (3 - 0.1)}));
  // t = 2: rate 0.1 * sqrt(1 - 0.5625) / (1 - 0.25).
  EXPECT_TENSOR(OutputTensor(RunText(model, inputs(2)), "xn"),
                MakeTensor<double>({1}, {0.5 * (3 - 0.1 * std::sqrt(0.4375) / 0.75)}));
}

TEST(MomentumKernel, RunsStandardAndNesterovOverSeveralTensors) {
  const std::string signature =
      "(float r, int64 t, float[1] x1, float[2] x2, float[1] g1, float[2] g2, float[1] v1, float[2] v2) => "
      "(float[1] x1n, float[2] x2n, float[1] v1n, float[2] v2n)";
  const Inputs inputs{{"r", MakeScalar<float>(0.5f)},          {"t", MakeScalar<std::int64_t>(1)},
                      {"x1", MakeTensor<float>({1}, {1})},     {"x2", MakeTensor<float>({2}, {2, 4})},
                      {"g1", MakeTensor<float>({1}, {1})},     {"g2", MakeTensor<float>({2}, {-1, 0})},
                      {"v1", MakeTensor<float>({1}, {2})},     {"v2", MakeTensor<float>({2}, {0, 4})}};
  // alpha 0.5, beta 2, no regularization: v = 0.5 * v + 2 * g.
  auto standard = RunText(TrainingModel(signature, "x1n, x2n, v1n, v2n = ai.onnx.preview.training.Momentum <alpha = 0.5, "
                                                   "beta = 2.0, mode = \"standard\", norm_coefficient = 0.0> "
                                                   "(r, t, x1, x2, g1, g2, v1, v2)"),
                          inputs);
  EXPECT_TENSOR(OutputTensor(standard, "v1n"), MakeTensor<float>({1}, {3}));
  EXPECT_TENSOR(OutputTensor(standard, "v2n"), MakeTensor<float>({2}, {-2, 2}));
  EXPECT_TENSOR(OutputTensor(standard, "x1n"), MakeTensor<float>({1}, {1 - 1.5f}));
  EXPECT_TENSOR(OutputTensor(standard, "x2n"), MakeTensor<float>({2}, {3, 3}));
  // Nesterov: x = x - r * (g + alpha * v_new).
  auto nesterov = RunText(TrainingModel(signature, "x1n, x2n, v1n, v2n = ai.onnx.preview.training.Momentum <alpha = 0.5, "
                                                   "beta = 2.0, mode = \"nesterov\", norm_coefficient = 0.0> "
                                                   "(r, t, x1, x2, g1, g2, v1, v2)"),
                          inputs);
  EXPECT_TENSOR(OutputTensor(nesterov, "x1n"), MakeTensor<float>({1}, {1 - 0.5f * (1 + 1.5f)}));
  EXPECT_TENSOR(OutputTensor(nesterov, "x2n"), MakeTensor<float>({2}, {2 - 0.5f * (-1 - 1), 4 - 0.5f * 1}));
}

TEST(MomentumKernel, UsesBetaOneAtTheFirstUpdate) {
  auto out = RunText(TrainingModel("(float r, int64 t, float[1] x, float[1] g, float[1] v) => (float[1] xn, float[1] vn)",
                                   "xn, vn = ai.onnx.preview.training.Momentum <alpha = 0.5, beta = 2.0, "
                                   "mode = \"standard\", norm_coefficient = 1.0> (r, t, x, g, v)"),
                     {{"r", MakeScalar<float>(1)}, {"t", MakeScalar<std::int64_t>(0)},
                      {"x", MakeTensor<float>({1}, {2})}, {"g", MakeTensor<float>({1}, {1})},
                      {"v", MakeTensor<float>({1}, {4})}});
  // g_reg = 1 * 2 + 1 = 3; v = 0.5 * 4 + 1 * 3 = 5; x = 2 - 5.
  EXPECT_TENSOR(OutputTensor(out, "vn"), MakeTensor<float>({1}, {5}));
  EXPECT_TENSOR(OutputTensor(out, "xn"), MakeTensor<float>({1}, {-3}));
}

TEST(TrainingKernels, RefuseMalformedGroupsAndAttributes) {
  const Inputs three{{"r", MakeScalar<float>(1)}, {"t", MakeScalar<std::int64_t>(0)}, {"x", MakeTensor<float>({2}, {1, 2})},
                     {"g", MakeTensor<float>({2}, {1, 2})}, {"h", MakeTensor<float>({3}, {1, 2, 3})}};
  EXPECT_THAT(
      [&] {
        RunText(TrainingModel("(float r, int64 t, float[2] x, float[2] g, float[3] h) => (float[2] xn)",
                              "xn = ai.onnx.preview.training.Adagrad (r, t, x, g, h)"),
                three);
      },
      ThrowsMessage<ModelError>(HasSubstr(
          "node 'xn' (Adagrad): input 4 must have the type and shape of optimized tensor 0 (float[2]), found float[3]")));
  EXPECT_THAT(
      [&] {
        RunText(TrainingModel("(float r, int64 t, float[2] x, float[2] g) => (float[2] xn)",
                              "xn = ai.onnx.preview.training.Adagrad (r, t, x, g)"),
                {three[0], three[1], three[2], three[3]});
      },
      ThrowsMessage<ModelError>(HasSubstr("the inputs must be 3 groups of n tensors (X, G, H), found 2 tensors")));
  EXPECT_THAT(
      [&] {
        RunText(TrainingModel("(float r, int64 t, float[2] x, float[2] g, float[2] v) => (float[2] xn)",
                              "xn = ai.onnx.preview.training.Momentum <alpha = 0.5, beta = 1.0, mode = \"heavy\", "
                              "norm_coefficient = 0.0> (r, t, x, g, v)"),
                {three[0], three[1], three[2], three[3], {"v", MakeTensor<float>({2}, {0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("mode must be 'standard' or 'nesterov', found 'heavy'")));
  EXPECT_THAT(
      [&] {
        RunText(TrainingModel("(float r, int64 t, float[2] x, float[2] g, float[2] v) => (float[2] xn)",
                              "xn = ai.onnx.preview.training.Momentum <beta = 1.0, mode = \"standard\", "
                              "norm_coefficient = 0.0> (r, t, x, g, v)"),
                {three[0], three[1], three[2], three[3], {"v", MakeTensor<float>({2}, {0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("attribute alpha is required")));
  EXPECT_THAT(
      [&] {
        RunText(TrainingModel("(float r, int32 t, float[2] x, float[2] g, float[2] h) => (float[2] xn)",
                              "xn = ai.onnx.preview.training.Adagrad (r, t, x, g, h)"),
                {three[0], {"t", MakeScalar<std::int32_t>(0)}, three[2], three[3], {"h", MakeTensor<float>({2}, {0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("T must be int64, found INT32")));
}

}  // namespace
}  // namespace onnxopt::testing
