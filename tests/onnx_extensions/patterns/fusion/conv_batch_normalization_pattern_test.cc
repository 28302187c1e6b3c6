#include "onnx_extensions/patterns/fusion/conv_batch_normalization_pattern.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "onnx_core/builder/graph_builder.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_extensions/shapes/register_shape_functions.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// The folded weights round once where the original rounded after the Conv and in the
// BatchNormalization: float32 results agree to a few ulps on inputs in [-2, 2].
constexpr double kTolerance = 1e-5;

// s = scale / sqrt(var + 0) = {0.5, 2}; W' = W * s per output channel;
// B' = (0 - mean) * s + beta = {-0.5 + 1, 0 + 0}.
TEST(ConvBatchNormalizationPattern, FoldsIntoConvWithoutBias) {
  ExpectRewrite<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] scale = {1.0, 2.0}, float[2] beta = {1.0, 0.0},
       float[2] mean = {1.0, 0.0}, float[2] var = {4.0, 1.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization<epsilon=0.0>(c, scale, beta, mean, var)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W2 = {0.5, 1.0, 6.0, 8.0}, float[2] B2 = {0.5, 0.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// B' = (B - mean) * s + beta = {(2 - 1) * 0.5 + 1, (-1 - 0) * 2 + 0}.
TEST(ConvBatchNormalizationPattern, FoldsTheConvBias) {
  ExpectRewrite<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] B = {2.0, -1.0}, float[2] scale = {1.0, 2.0},
       float[2] beta = {1.0, 0.0}, float[2] mean = {1.0, 0.0}, float[2] var = {4.0, 1.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W, B)
      Y = BatchNormalization<epsilon=0.0>(c, scale, beta, mean, var)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W2 = {0.5, 1.0, 6.0, 8.0}, float[2] B2 = {1.5, -2.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// Before opset 14 a BatchNormalization with its single output is in inference mode.
TEST(ConvBatchNormalizationPattern, FoldsASingleOutputBeforeOpset14) {
  ExpectRewrite<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] scale = {1.0, 2.0}, float[2] beta = {1.0, 0.0},
       float[2] mean = {1.0, 0.0}, float[2] var = {4.0, 1.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization<epsilon=0.0>(c, scale, beta, mean, var)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W2 = {0.5, 1.0, 6.0, 8.0}, float[2] B2 = {0.5, 0.0}> {
      Y = Conv<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// ConvTranspose weights are [C_in, M / group, k...]: output channel o is the second axis,
// s = {0.5, 2, 1}.
TEST(ConvBatchNormalizationPattern, ScalesTheSecondAxisOfConvTranspose) {
  ExpectRewrite<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,3] X) => (float[N,3,3,3] Y)
      <float[2,3,1,1] W = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, float[3] scale = {1.0, 2.0, 1.0},
       float[3] beta = {0.0, 0.0, 0.0}, float[3] mean = {0.0, 0.0, 0.0}, float[3] var = {4.0, 1.0, 1.0}> {
      c = ConvTranspose<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization<epsilon=0.0>(c, scale, beta, mean, var)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,3] X) => (float[N,3,3,3] Y)
      <float[2,3,1,1] W2 = {0.5, 4.0, 3.0, 2.0, 10.0, 6.0}, float[3] B2 = {0.0, 0.0, 0.0}> {
      Y = ConvTranspose<kernel_shape=[1,1]>(X, W2, B2)
    })ONNX", kTolerance);
}

// Grouped ConvTranspose (group 2, one output channel per group): input channel c writes
// output channel c.
TEST(ConvBatchNormalizationPattern, MapsConvTransposeGroups) {
  ExpectRewrite<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,3] X) => (float[N,2,3,3] Y)
      <float[2,1,1,1] W = {1.0, 3.0}, float[2] scale = {1.0, 2.0}, float[2] beta = {0.0, 1.0},
       float[2] mean = {0.0, 0.0}, float[2] var = {4.0, 1.0}> {
      c = ConvTranspose<kernel_shape=[1,1], group=2>(X, W)
      Y = BatchNormalization<epsilon=0.0>(c, scale, beta, mean, var)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,3,3] X) => (float[N,2,3,3] Y)
      <float[2,1,1,1] W2 = {0.5, 6.0}, float[2] B2 = {0.0, 1.0}> {
      Y = ConvTranspose<kernel_shape=[1,1], group=2>(X, W2, B2)
    })ONNX", kTolerance);
}

// float16 weights fold in double and round once to float16. The text syntax of onnx 1.12
// has no float16 literals: the model is written in float and its tensors converted.
TEST(ConvBatchNormalizationPattern, KeepsTheFloat16Type) {
  onnx_shapes::RegisterShapeFunctions();
  onnx_kernels::RegisterKernels();
  ModelProto model = testing::ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] scale = {1.0, 2.0}, float[2] beta = {1.0, 0.0},
       float[2] mean = {1.0, 0.0}, float[2] var = {3.0, 1.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization<epsilon=0.0>(c, scale, beta, mean, var)
    })ONNX");
  GraphProto& graph = *model.mutable_graph();
  for (TensorProto& init : *graph.mutable_initializer()) {
    core::eval::Tensor values = core::eval::Tensor::FromProto(init);
    core::eval::Tensor half(TensorProto::FLOAT16, values.shape());
    for (std::int64_t i = 0; i < values.size(); ++i)
      half.MutableData<std::uint16_t>()[i] = core::eval::FloatToHalf(values.Data<float>()[i]);
    init = half.ToProto(init.name());
  }
  for (auto* infos : {graph.mutable_input(), graph.mutable_output()})
    for (ValueInfoProto& info : *infos) info.mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT16);

  core::builder::GraphBuilder builder(std::move(model));
  core::builder::OptimizerOptions options;
  options.registered = core::builder::PatternSelection::None();
  core::builder::GraphGraph(builder, {std::make_shared<ConvBatchNormalizationPattern>()}, options).Optimize();
  ASSERT_EQ(builder.Nodes().size(), 1);
  const NodeProto& conv = builder.Nodes()[0];
  ASSERT_EQ(conv.op_type(), "Conv");
  ASSERT_EQ(conv.input_size(), 3);
  std::vector<std::vector<float>> folded;
  for (int i = 1; i < 3; ++i) {
    const TensorProto* init = nullptr;
    for (const TensorProto& candidate : builder.Initializers())
      if (candidate.name() == conv.input(i)) init = &candidate;
    ASSERT_NE(init, nullptr);
    ASSERT_EQ(init->data_type(), TensorProto::FLOAT16);
    const core::eval::Tensor values = core::eval::Tensor::FromProto(*init);
    folded.emplace_back();
    for (std::int64_t e = 0; e < values.size(); ++e)
      folded.back().push_back(core::eval::HalfToFloat(values.Data<std::uint16_t>()[e]));
  }
  // s = {1 / sqrt(3), 2}: W' = {s0, 2 s0, 6, 8}, B' = {1 - s0, 0}, each rounded once from the
  // double value (1 / sqrt(3) = 0.57735..., float16 0.5771484375 = 1182 / 2048).
  const double s0 = 1.0 / std::sqrt(3.0);
  const auto half = [](double v) { return core::eval::HalfToFloat(core::eval::FloatToHalf(static_cast<float>(v))); };
  EXPECT_EQ(folded[0], (std::vector<float>{half(s0), half(2 * s0), 6.0f, 8.0f}));
  EXPECT_EQ(folded[1], (std::vector<float>{half(1 - s0), 0.0f}));
}

constexpr std::string_view kConvTwiceUsed = R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y, float[N,2,4,4] c)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization(c, s, b, b, s)
    })ONNX";

TEST(ConvBatchNormalizationPattern, RejectsConvOutputWithAnotherUse) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(kConvTwiceUsed, "Y",
                                               "the input is not produced by a Conv or ConvTranspose with no other use");
}

TEST(ConvBatchNormalizationPattern, RejectsTrainingMode) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization<training_mode=1>(c, s, b, b, s)
    })ONNX", "Y", "the BatchNormalization is in training mode");
}

// Before opset 14 the number of outputs gives the mode: with its five outputs, unused,
// the BatchNormalization normalizes with the batch statistics (onnxruntime does).
TEST(ConvBatchNormalizationPattern, RejectsSeveralOutputsBeforeOpset14) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 9]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y, rm, rv, sm, sv = BatchNormalization(c, s, b, b, s)
    })ONNX", "Y", "the BatchNormalization has more than one output before opset 14 (training mode)");
}

// `Y, =` declares a second output with an empty name. It counts: onnxruntime counts the
// output slots, named or not (and rejects two at opset 9, where it accepts 1 or 5).
TEST(ConvBatchNormalizationPattern, RejectsAnEmptySecondOutputBeforeOpset14) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 7]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y, = BatchNormalization(c, s, b, b, s)
    })ONNX", "Y", "the BatchNormalization has more than one output before opset 14 (training mode)");
}

// Opsets 1 and 6: is_test gives the mode, and its default 0 trains, with one output too.
TEST(ConvBatchNormalizationPattern, RejectsIsTestZeroBeforeOpset7) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 3, opset_import: ["" : 6]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization(c, s, b, b, s)
    })ONNX", "Y", "the BatchNormalization is in training mode (is_test is 0)");
}

// s = {1e5, 1}: 1e35 * 1e5 is above the largest float (3.4e38), where the original
// multiplies the convolution output, which a small input keeps in range.
TEST(ConvBatchNormalizationPattern, RejectsAFoldedWeightThatOverflows) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1e35, 2.0, 3.0, 4.0}, float[2] s = {1.0, 1.0}, float[2] b = {0.0, 0.0},
       float[2] var = {1e-10, 1.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization<epsilon=0.0>(c, s, b, b, var)
    })ONNX", "Y", "a folded weight overflows the weight type");
}

// A weight that is a graph input may be overridden by the caller: it is no constant.
TEST(ConvBatchNormalizationPattern, RejectsOverridableWeight) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X, float[2,2,1,1] W) => (float[N,2,4,4] Y)
      <float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization(c, s, b, b, s)
    })ONNX", "Y", "the convolution weight is not a constant within the folding limits");
}

TEST(ConvBatchNormalizationPattern, RejectsSharedWeight) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y, float[N,2,4,4] Z)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[2] s = {1.0, 2.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization(c, s, b, b, s)
      Z = Conv<kernel_shape=[1,1]>(X, W)
    })ONNX", "Y", "the convolution weight has another consumer (folding would copy it)");
}

TEST(ConvBatchNormalizationPattern, RejectsParametersOfAnotherSize) {
  ExpectNoMatch<ConvBatchNormalizationPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,2,4,4] X) => (float[N,2,4,4] Y)
      <float[2,2,1,1] W = {1.0, 2.0, 3.0, 4.0}, float[1] s = {1.0}, float[2] b = {1.0, 0.0}> {
      c = Conv<kernel_shape=[1,1]>(X, W)
      Y = BatchNormalization(c, s, b, b, b)
    })ONNX", "Y", "a BatchNormalization parameter does not hold one value per channel");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
