#include "onnx_core/verify/float64_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>

#include "onnx_core/eval/tensor.h"
#include "onnx_core/verify/model_comparison.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "tests/support/test_support.h"

namespace onnxopt::core::verify {
namespace {

using eval::Tensor;
using onnxopt::testing::ParseText;

class Float64Reference : public ::testing::Test {
 protected:
  void SetUp() override { onnx_kernels::RegisterKernels(); }
};

bool Compare(const ModelProto& original, const ModelProto& rewritten, std::uint32_t seed, Rounding rounding,
             std::string* text) {
  RandomInputOptions inputs;
  inputs.seed = seed;
  std::ostringstream out;
  const bool same = CompareOnRandomInputs(original, "a.onnx", rewritten, "b.onnx", inputs, {}, out, rounding);
  *text = out.str();
  return same;
}

TEST_F(Float64Reference, ReassociatedFloat16ProductsAreRoundingThatTheModelAmplifies) {
  const ModelProto original = onnxopt::testing::Float16RoundingAmplifier(false, 0.33f);
  const ModelProto rewritten = onnxopt::testing::Float16RoundingAmplifier(true, 0.33f);
  int beyond_tolerances = 0;
  for (std::uint32_t seed = 0; seed < 8; ++seed) {
    std::string text;
    if (!Compare(original, rewritten, seed, Rounding::kTolerancesOnly, &text)) {
      ++beyond_tolerances;
      EXPECT_NE(text.find("MISMATCH Y"), std::string::npos) << text;
      ASSERT_TRUE(Compare(original, rewritten, seed, Rounding::kJudgeAgainstFloat64, &text)) << text;
      EXPECT_NE(text.find("rounding Y"), std::string::npos) << text;
      EXPECT_NE(text.find(": as accurate"), std::string::npos) << text;
      EXPECT_NE(text.find("within rounding: 1 output differs beyond the tolerances"), std::string::npos) << text;
    } else {
      EXPECT_TRUE(Compare(original, rewritten, seed, Rounding::kJudgeAgainstFloat64, &text)) << text;
    }
  }
  // The case this judgement exists for: the tolerances alone call the rewrite wrong.
  EXPECT_GT(beyond_tolerances, 0);
}

TEST_F(Float64Reference, AConstantOffByOnePercentIsNotRounding) {
  // 0.33 * 1.01: its largest error hides among the original's amplified rounding, its mean
  // error does not.
  const ModelProto original = onnxopt::testing::Float16RoundingAmplifier(false, 0.33f);
  const ModelProto wrong = onnxopt::testing::Float16RoundingAmplifier(true, 0.33f * 1.01f);
  for (std::uint32_t seed = 0; seed < 4; ++seed) {
    std::string text;
    EXPECT_FALSE(Compare(original, wrong, seed, Rounding::kJudgeAgainstFloat64, &text)) << text;
    EXPECT_NE(text.find("MISMATCH Y"), std::string::npos) << text;
    EXPECT_NE(text.find(": less accurate"), std::string::npos) << text;
    EXPECT_EQ(text.find("within rounding"), std::string::npos) << text;
  }
}

TEST_F(Float64Reference, AConstantOffByThreeTenthsOfAPercentInAPreciseModelIsNotRounding) {
  // float32 without a long sum: the original is within the tolerances of its float64
  // evaluation, and a constant off by 0.3 % (3 times float's rtol) stays a mismatch.
  const ModelProto original = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[64] X) => (float[64] Y) <float a = {1.7}, float b = {0.33}> {
      m = Mul(X, a)
      Y = Mul(m, b)
    })ONNX");
  const ModelProto approximate = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[64] X) => (float[64] Y) <float ab = {0.56268}> {
      Y = Mul(X, ab)
    })ONNX");
  for (std::uint32_t seed = 0; seed < 4; ++seed) {
    std::string text;
    EXPECT_FALSE(Compare(original, approximate, seed, Rounding::kJudgeAgainstFloat64, &text)) << text;
    EXPECT_NE(text.find(": less accurate"), std::string::npos) << text;
  }
}

TEST_F(Float64Reference, PromotesTensorsTypesCastsAndConstantsEverywhere) {
  ModelProto model = ParseText(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18, "local" : 1]>
    g (float16[2] X, int64[2] I) => (float[2] Y, int64[2] J) <float[2] w = {1.0, 2.0}> {
      c = Constant <value_float = 0.5> ()
      x = Cast <to = 1> (X)
      wf = Cast <to = 1> (w)
      s = Mul(x, wf)
      t = local.Scale(s)
      Y = Add(t, c)
      J = Cast <to = 7> (I)
    }
    <domain: "local", opset_import: ["" : 18]>
    Scale (v) => (r) {
      k = Constant <value = float {3.0}> ()
      kh = Cast <to = 10> (k)
      kf = Cast <to = 1> (kh)
      r = Mul(v, kf)
    })ONNX");
  // A bfloat16 initializer (the text syntax has no bfloat16 literals).
  {
    TensorProto& w = *model.mutable_graph()->mutable_initializer(0);
    Tensor bf(TensorProto::BFLOAT16, {2});
    bf.MutableData<std::uint16_t>()[0] = 0x3f80;  // 1.0
    bf.MutableData<std::uint16_t>()[1] = 0x4000;  // 2.0
    w = bf.ToProto("w");
  }
  std::string why;
  const std::optional<ModelProto> promoted = PromoteToFloat64(model, &why);
  ASSERT_TRUE(promoted) << why;
  const GraphProto& graph = promoted->graph();
  EXPECT_EQ(graph.input(0).type().tensor_type().elem_type(), TensorProto::DOUBLE);
  EXPECT_EQ(graph.input(1).type().tensor_type().elem_type(), TensorProto::INT64);
  EXPECT_EQ(graph.output(0).type().tensor_type().elem_type(), TensorProto::DOUBLE);
  EXPECT_EQ(graph.initializer(0).data_type(), TensorProto::DOUBLE);
  EXPECT_EQ(graph.node(0).attribute(0).name(), "value");
  EXPECT_EQ(graph.node(0).attribute(0).t().data_type(), TensorProto::DOUBLE);
  EXPECT_EQ(graph.node(1).attribute(0).i(), TensorProto::DOUBLE);  // Cast to float
  EXPECT_EQ(graph.node(6).attribute(0).i(), TensorProto::INT64);   // Cast to int64 stays
  const FunctionProto& scale = promoted->functions(0);
  EXPECT_EQ(scale.node(0).attribute(0).t().data_type(), TensorProto::DOUBLE);
  EXPECT_EQ(scale.node(1).attribute(0).i(), TensorProto::DOUBLE);  // Cast to float16
  EXPECT_EQ(scale.node(2).attribute(0).i(), TensorProto::DOUBLE);

  // And it runs: (x * w * 3 + 0.5) in float64.
  eval::ValueMap inputs;
  Tensor x(TensorProto::FLOAT16, {2});
  x.MutableData<std::uint16_t>()[0] = eval::FloatToHalf(0.25f);
  x.MutableData<std::uint16_t>()[1] = eval::FloatToHalf(-1.5f);
  Tensor i(TensorProto::INT64, {2});
  inputs.emplace("X", x);
  inputs.emplace("I", i);
  const eval::ValueMap outputs = eval::Run(*promoted, ToFloat64(inputs));
  const Tensor& y = std::get<Tensor>(outputs.at("Y"));
  ASSERT_EQ(y.elem_type(), TensorProto::DOUBLE);
  EXPECT_EQ(y.Data<double>()[0], 0.25 * 1 * 3 + 0.5);
  EXPECT_EQ(y.Data<double>()[1], -1.5 * 2 * 3 + 0.5);
}

TEST_F(Float64Reference, ErrorsAreMeasuredInTolerancesAndNotAcrossInfinities) {
  auto float_tensor = [](std::vector<float> values) {
    Tensor tensor(TensorProto::FLOAT, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), tensor.MutableData<float>());
    return eval::Value(tensor);
  };
  Tensor exact(TensorProto::DOUBLE, {2});
  exact.MutableData<double>()[0] = 1.0;
  exact.MutableData<double>()[1] = 0.0;
  // float: atol 1e-4, rtol 1e-3. Element 0 off by 2.2e-3 = 2 tolerances (1.1e-3 each).
  const std::optional<ErrorInTolerances> error = MeasureError(float_tensor({1.0022f, 0.0f}), exact, {});
  ASSERT_TRUE(error);
  EXPECT_NEAR(error->largest, 2.0, 1e-3);
  EXPECT_NEAR(error->rms, 2.0 / std::sqrt(2.0), 1e-3);
  EXPECT_FALSE(MeasureError(float_tensor({INFINITY, 0.0f}), exact, {}));
  EXPECT_FALSE(MeasureError(float_tensor({1.0f}), exact, {}));  // another shape
}

}  // namespace
}  // namespace onnxopt::core::verify
