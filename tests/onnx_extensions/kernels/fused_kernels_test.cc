// Tests of fused_kernels.cc: com.microsoft FusedConv and FusedGemm with onnxruntime's
// activations, on values worked out by hand.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/kernels/vision_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// A 1 x 1 convolution with weight 1 passes X through: the activation shows alone.
Inputs ConvInputs() {
  return {{"x", MakeTensor<float>({1, 1, 2, 2}, {1, -2, 3, -4})}, {"w", MakeTensor<float>({1, 1, 1, 1}, {1})}};
}

Tensor FusedConv(const std::string& attributes, Inputs in, const std::string& args = "x, w") {
  return RunNode("y = com.microsoft.FusedConv <" + attributes + "> (" + args + ")", in, 13);
}

TEST(FusedConvKernel, AppliesTheActivation) {
  EXPECT_TENSOR(FusedConv("activation = \"Relu\"", ConvInputs()), MakeTensor<float>({1, 1, 2, 2}, {1, 0, 3, 0}));
  EXPECT_TENSOR(FusedConv("activation = \"LeakyRelu\", activation_params = [0.1]", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {1, -0.2f, 3, -0.4f}));
  EXPECT_TENSOR(FusedConv("activation = \"Clip\", activation_params = [0.0, 2.0]", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {1, 0, 2, 0}));
  // Clip with min > max gives max, as Clip does.
  EXPECT_TENSOR(FusedConv("activation = \"Clip\", activation_params = [2.0, 0.5]", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {0.5f, 0.5f, 0.5f, 0.5f}));
  EXPECT_TENSOR(FusedConv("activation = \"HardSigmoid\", activation_params = [0.5, 0.5]", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {1, 0, 1, 0}));
  const auto sigmoid = [](float v) { return 1 / (1 + std::exp(-v)); };
  EXPECT_TENSOR(FusedConv("activation = \"Sigmoid\"", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {sigmoid(1), sigmoid(-2), sigmoid(3), sigmoid(-4)}));
  EXPECT_TENSOR(FusedConv("activation = \"Tanh\"", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {std::tanh(1.0f), std::tanh(-2.0f), std::tanh(3.0f), std::tanh(-4.0f)}));
  EXPECT_TENSOR(FusedConv("activation = \"Silu\"", ConvInputs()),
                MakeTensor<float>({1, 1, 2, 2}, {sigmoid(1), -2 * sigmoid(-2), 3 * sigmoid(3), -4 * sigmoid(-4)}));
}

TEST(FusedConvKernel, AddsZAndBiasBeforeTheActivation) {
  Inputs in = ConvInputs();
  in.emplace_back("b", MakeTensor<float>({1}, {0.5f}));
  in.emplace_back("z", MakeTensor<float>({1, 1, 2, 2}, {1, 1, 1, 5}));
  // Relu(x + 0.5 + z): 2.5, 0 (-0.5), 4.5, 1.5.
  EXPECT_TENSOR(FusedConv("activation = \"Relu\"", in, "x, w, b, z"), MakeTensor<float>({1, 1, 2, 2}, {2.5f, 0, 4.5f, 1.5f}));
  // Without bias (empty input name) and without activation.
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedConv (x, w, , z)", {in[0], in[1], in[3]}, 13),
                MakeTensor<float>({1, 1, 2, 2}, {2, -1, 4, 1}));
}

TEST(FusedConvKernel, ConvAttributesAndFloat16) {
  // A 2 x 2 kernel of ones with pads 1 and stride 2 over a 2 x 2 image: each output sees
  // one pixel.
  Inputs in = {{"x", MakeHalf({1, 1, 2, 2}, {1, -2, 3, -4})}, {"w", MakeHalf({1, 1, 2, 2}, {1, 1, 1, 1})}};
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedConv <activation = \"Relu\", pads = [1, 1, 1, 1], strides = [2, 2]> (x, w)",
                        in, 13),
                MakeHalf({1, 1, 2, 2}, {1, 0, 3, 0}));
}

TEST(FusedConvKernel, RefusesInvalidActivationsAndInputs) {
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv <activation = \"Gelu\"> (x, w)", ConvInputs(), 13),
              AllOf(HasSubstr("node 'y' (FusedConv)"), HasSubstr("activation 'Gelu' is not one of Relu")));
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv <activation = \"LeakyRelu\"> (x, w)", ConvInputs(), 13),
              HasSubstr("activation LeakyRelu takes 1 activation_params, found 0"));
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv <activation = \"Relu\", activation_params = [1.0]> (x, w)",
                        ConvInputs(), 13),
              HasSubstr("activation Relu takes 0 activation_params, found 1"));
  Inputs in = ConvInputs();
  in.emplace_back("z", MakeTensor<float>({1, 1, 1, 2}, {1, 1}));
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv (x, w, , z)", {in[0], in[1], in[2]}, 13),
              HasSubstr("Z float[1,1,1,2] must have the output's type and shape [1,1,2,2]"));
  in = ConvInputs();
  in[1].second = MakeHalf({1, 1, 1, 1}, {1});
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv (x, w)", in, 13), HasSubstr("expected element type FLOAT"));
  in = {{"x", MakeTensor<std::int32_t>({1, 1, 1, 1}, {1})}, {"w", MakeTensor<std::int32_t>({1, 1, 1, 1}, {1})}};
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv (x, w)", in, 13), HasSubstr("INT32 is not a float type"));
  // The Conv kernel's own checks apply.
  in = ConvInputs();
  in[1].second = MakeTensor<float>({1, 2, 1, 1}, {1, 1});
  EXPECT_THAT(NodeError("y = com.microsoft.FusedConv (x, w)", in, 13), HasSubstr("node 'y' (FusedConv)"));
}

Inputs GemmInputs() {
  return {{"a", MakeTensor<float>({1, 2}, {1, -1})},
          {"b", MakeTensor<float>({2, 2}, {1, 0, 0, 1})},
          {"c", MakeTensor<float>({2}, {0.5f, 0.5f})}};
}

TEST(FusedGemmKernel, AppliesTheActivationAfterGemm) {
  // A B + C = [1.5, -0.5].
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedGemm <activation = \"LeakyRelu\", activation_alpha = 0.1> (a, b, c)",
                        GemmInputs(), 13),
                MakeTensor<float>({1, 2}, {1.5f, -0.05f}));
  // alpha, beta and transB of Gemm: 2 * A B^T + 0 * C.
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedGemm <activation = \"Relu\", alpha = 2.0, beta = 0.0, transB = 1> (a, b, c)",
                        GemmInputs(), 13),
                MakeTensor<float>({1, 2}, {2, 0}));
  // Selu(x) = gamma * (x > 0 ? x : alpha * (e^x - 1)).
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedGemm <activation = \"Selu\", activation_alpha = 2.0, "
                        "activation_gamma = 3.0> (a, b, c)",
                        GemmInputs(), 13),
                MakeTensor<float>({1, 2}, {4.5f, static_cast<float>(3 * 2 * (std::exp(-0.5) - 1))}));
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedGemm <activation = \"ScaledTanh\", activation_alpha = 2.0, "
                        "activation_beta = 0.5> (a, b)",
                        {GemmInputs()[0], GemmInputs()[1]}, 13),
                MakeTensor<float>({1, 2}, {2 * std::tanh(0.5f), 2 * std::tanh(-0.5f)}));
  EXPECT_TENSOR(RunNode("y = com.microsoft.FusedGemm <activation = \"ThresholdedRelu\", activation_alpha = 1.0> (a, b, c)",
                        GemmInputs(), 13),
                MakeTensor<float>({1, 2}, {1.5f, 0}));
}

TEST(FusedGemmKernel, RefusesMissingActivationOrParameters) {
  EXPECT_THAT(NodeError("y = com.microsoft.FusedGemm (a, b, c)", GemmInputs(), 13),
              AllOf(HasSubstr("node 'y' (FusedGemm)"), HasSubstr("the activation attribute is required")));
  EXPECT_THAT(NodeError("y = com.microsoft.FusedGemm <activation = \"Elu\"> (a, b, c)", GemmInputs(), 13),
              HasSubstr("activation Elu needs the attribute activation_alpha"));
  EXPECT_THAT(NodeError("y = com.microsoft.FusedGemm <activation = \"Swish\"> (a, b, c)", GemmInputs(), 13),
              HasSubstr("activation 'Swish' is not one of"));
  Inputs in = GemmInputs();
  in[1].second = MakeTensor<float>({3, 2}, std::vector<float>(6, 1));
  EXPECT_THAT(NodeError("y = com.microsoft.FusedGemm <activation = \"Relu\"> (a, b, c)", in, 13),
              HasSubstr("inner dimensions differ"));
}

}  // namespace
}  // namespace onnxopt::testing
