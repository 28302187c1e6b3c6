// Loss kernels: values from the spec's formulas, computed by hand.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

std::string NllModel(const std::string& attributes, const std::string& output_type) {
  return R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,3,2] x, int64[2,2] t, float[3] w) => ()ONNX" +
         output_type + R"ONNX( y) {
      y = NegativeLogLikelihoodLoss <)ONNX" + attributes + R"ONNX(> (x, t, w)
    })ONNX";
}

// The spec's example: input [N=2, C=3, d1=2], target [[2, 1], [0, 2]], weight [0.2, 0.3, 0.1].
Inputs NllInputs(std::int64_t second_target = 1) {
  return {{"x", MakeTensor<float>({2, 3, 2}, {1, 2, 2, 2, 3, 2, 0, 1, 2, 2, 1, 2})},
          {"t", MakeTensor<std::int64_t>({2, 2}, {2, second_target, 0, 2})},
          {"w", MakeTensor<float>({3}, {0.2f, 0.3f, 0.1f})}};
}

TEST(NegativeLogLikelihoodLossKernel, ComputesEveryReductionOfTheSpecExample) {
  // Picked inputs: x[0,2,0] = 3, x[0,1,1] = 2, x[1,0,0] = 0, x[1,2,1] = 2; weights 0.1, 0.3,
  // 0.2, 0.1: losses [-0.3, -0.6, 0, -0.2].
  EXPECT_TENSOR(RunOne(NllModel("reduction = \"none\"", "float[2,2]"), NllInputs()),
                MakeTensor<float>({2, 2}, {-0.3f, -0.6f, 0, -0.2f}));
  EXPECT_TENSOR(RunOne(NllModel("reduction = \"sum\"", "float"), NllInputs()), MakeScalar<float>(-1.1f));
  // Mean divides by the weights of the targets: -1.1 / 0.7.
  EXPECT_TENSOR(RunOne(NllModel("reduction = \"mean\"", "float"), NllInputs()), MakeScalar<float>(-1.1f / 0.7f));
}

TEST(NegativeLogLikelihoodLossKernel, IgnoresTheIgnoreIndexEvenOutOfRange) {
  // Target -1 is ignored: losses [-0.3, 0, 0, -0.2], weights 0.1 + 0.2 + 0.1.
  EXPECT_TENSOR(RunOne(NllModel("reduction = \"mean\", ignore_index = -1", "float"), NllInputs(-1)),
                MakeScalar<float>(-0.5f / 0.4f));
  // Without weights, mean divides by the number of targets not ignored.
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (double[2,2] x, int32[2] t) => (double y) { y = NegativeLogLikelihoodLoss <ignore_index = 1> (x, t) })ONNX",
                  {{"x", MakeTensor<double>({2, 2}, {-1, -2, -3, -4})}, {"t", MakeTensor<std::int32_t>({2}, {0, 1})}});
  EXPECT_TENSOR(y, MakeScalar<double>(1));
  // Every target ignored: 0 / 0.
  auto nan = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1,2] x, int64[1] t) => (float y) { y = NegativeLogLikelihoodLoss <ignore_index = 0> (x, t) })ONNX",
                    {{"x", MakeTensor<float>({1, 2}, {-1, -2})}, {"t", MakeTensor<std::int64_t>({1}, {0})}});
  EXPECT_TRUE(std::isnan(nan.Data<float>()[0]));
}

TEST(NegativeLogLikelihoodLossKernel, RefusesBadTargetsShapesAndReductions) {
  EXPECT_THAT([] { RunText(NllModel("reduction = \"none\"", "float[2,2]"), NllInputs(3)); },
              ThrowsMessage<ModelError>(
                  HasSubstr("node 'y' (NegativeLogLikelihoodLoss): target value 3 at index 1 is out of range [0, 3)")));
  EXPECT_THAT([] { RunText(NllModel("reduction = \"max\"", "float"), NllInputs()); },
              ThrowsMessage<ModelError>(HasSubstr("reduction must be 'none', 'sum' or 'mean', found 'max'")));
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 13]>
          g (float[2,3] x, int64[3] t) => (float y) { y = NegativeLogLikelihoodLoss (x, t) })ONNX",
                {{"x", MakeTensor<float>({2, 3}, {0, 0, 0, 0, 0, 0})}, {"t", MakeTensor<std::int64_t>({3}, {0, 0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("target must have shape [2] (input's shape without axis 1), found [3]")));
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 13]>
          g (float[2,3] x, int64[2] t, float[2] w) => (float y) { y = NegativeLogLikelihoodLoss (x, t, w) })ONNX",
                {{"x", MakeTensor<float>({2, 3}, {0, 0, 0, 0, 0, 0})}, {"t", MakeTensor<std::int64_t>({2}, {0, 0})},
                 {"w", MakeTensor<float>({2}, {1, 1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("weight must be a 1-D tensor of C=3 elements")));
  // bfloat16 only from opset 22.
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 13]>
          g (bfloat16[1,2] x, int64[1] t) => (bfloat16 y) { y = NegativeLogLikelihoodLoss (x, t) })ONNX",
                {{"x", MakeBFloat16({1, 2}, {1, 2})}, {"t", MakeTensor<std::int64_t>({1}, {0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("input must be a float tensor, found BFLOAT16")));
  EXPECT_TENSOR(RunOne(R"ONNX(
    <ir_version: 10, opset_import: ["" : 22]>
    g (bfloat16[1,2] x, int64[1] t) => (bfloat16 y) { y = NegativeLogLikelihoodLoss (x, t) })ONNX",
                       {{"x", MakeBFloat16({1, 2}, {1, 2})}, {"t", MakeTensor<std::int64_t>({1}, {1})}}),
                MakeBFloat16({}, {-2}));
}

TEST(SoftmaxCrossEntropyLossKernel, IsTheLossOfLogSoftmaxWithLogProbOutput) {
  // Scores [[0, ln 3], [ln 2, ln 2]]: probabilities [[1/4, 3/4], [1/2, 1/2]].
  const float ln2 = std::log(2.0f), ln3 = std::log(3.0f);
  auto out = RunText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[2,2] x, int64[2] t) => (float y, float[2,2] p) {
      y, p = SoftmaxCrossEntropyLoss <reduction = "sum"> (x, t)
    })ONNX",
                     {{"x", MakeTensor<float>({2, 2}, {0, ln3, ln2, ln2})}, {"t", MakeTensor<std::int64_t>({2}, {1, 0})}});
  const float lp[] = {std::log(0.25f), std::log(0.75f), std::log(0.5f), std::log(0.5f)};
  EXPECT_TENSOR(OutputTensor(out, "p"), MakeTensor<float>({2, 2}, {lp[0], lp[1], lp[2], lp[3]}));
  EXPECT_TENSOR(OutputTensor(out, "y"), MakeScalar<float>(-(lp[1] + lp[2])));
}

TEST(SoftmaxCrossEntropyLossKernel, WeighsAndIgnoresOverExtraDimensions) {
  // [N=1, C=2, d=2]: classes along axis 1; d 0 -> softmax of [0, 0], d 1 -> of [ln 3, 0].
  // Targets [1, 0] with weights [2, 4]; ignore_index 5 unused.
  const float ln3 = std::log(3.0f);
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 13]>
    g (float[1,2,2] x, int64[1,2] t, float[2] w) => (float[1,2] y) {
      y = SoftmaxCrossEntropyLoss <reduction = "none", ignore_index = 5> (x, t, w)
    })ONNX",
                  {{"x", MakeTensor<float>({1, 2, 2}, {0, ln3, 0, 0})}, {"t", MakeTensor<std::int64_t>({1, 2}, {1, 0})},
                   {"w", MakeTensor<float>({2}, {2, 4})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2}, {-std::log(0.5f) * 4, -std::log(0.75f) * 2}));
}

TEST(SoftmaxCrossEntropyLossKernel, RefusesLabelsOutOfRange) {
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 13]>
          g (float[1,2] x, int64[1] t) => (float y) { y = SoftmaxCrossEntropyLoss <ignore_index = 4> (x, t) })ONNX",
                {{"x", MakeTensor<float>({1, 2}, {0, 0})}, {"t", MakeTensor<std::int64_t>({1}, {-1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr(
          "node 'y' (SoftmaxCrossEntropyLoss): labels value -1 at index 0 is out of range [0, 2) and is not ignore_index 4")));
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 13]>
          g (float[2] x, int64[2] t) => (float y) { y = SoftmaxCrossEntropyLoss (x, t) })ONNX",
                {{"x", MakeTensor<float>({2}, {0, 0})}, {"t", MakeTensor<std::int64_t>({2}, {0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("scores must have rank 2 or more")));
}

}  // namespace
}  // namespace onnxopt::testing
