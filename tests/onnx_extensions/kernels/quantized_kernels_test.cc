// Quantized kernels: expected values derived by hand from the spec's formulas (shift by
// the zero points, integer product, requantize with round-half-to-even and saturation).

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_extensions/kernels/register_kernels.h"
#include "onnx_core/common/error.h"
#include "onnx_core/ir/tensor_data.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

// The text parser predates the float8 types: inputs are declared uint8, then retyped.
Tensor RunWithRetypedInputs(std::string_view text, const Inputs& inputs, const std::map<std::string, int>& types) {
  onnx_kernels::RegisterKernels();
  ModelProto model = ParseText(text);
  for (auto& input : *model.mutable_graph()->mutable_input())
    if (auto it = types.find(input.name()); it != types.end())
      input.mutable_type()->mutable_tensor_type()->set_elem_type(it->second);
  core::eval::ValueMap map;
  for (const auto& [name, t] : inputs) map[name] = t;
  return core::eval::AsTensor(core::eval::Run(model, map).at("y"), "y");
}

Tensor MakeFloat8(int elem_type, std::vector<std::int64_t> shape, std::vector<std::uint8_t> codes) {
  Tensor t(elem_type, std::move(shape));
  std::copy(codes.begin(), codes.end(), t.MutableData<std::uint8_t>());
  return t;
}

// ConvInteger -----------------------------------------------------------------------

TEST(ConvIntegerKernel, ShiftsByZeroPointsThenConvolvesWithZeroPadding) {
  // x - 1 = [[1,2,3],[4,5,6],[7,8,9]], padded with zeros (x_zero_point in the quantized
  // domain); filter 0 = ones, filter 1 = ones - 1 = zeros.
  const std::string model = R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (uint8[1,1,3,3] x, uint8[2,1,2,2] w, uint8[1] xz, uint8[2] wz) => (int32[1,2,4,4] y) {
      y = ConvInteger <pads = [1, 1, 1, 1]> (x, w, xz, wz)
    })ONNX";
  auto y = RunOne(model, {{"x", MakeTensor<std::uint8_t>({1, 1, 3, 3}, {2, 3, 4, 5, 6, 7, 8, 9, 10})},
                          {"w", MakeTensor<std::uint8_t>({2, 1, 2, 2}, {1, 1, 1, 1, 1, 1, 1, 1})},
                          {"xz", MakeTensor<std::uint8_t>({1}, {1})},
                          {"wz", MakeTensor<std::uint8_t>({2}, {0, 1})}});
  EXPECT_TENSOR(y, MakeTensor<std::int32_t>({1, 2, 4, 4}, {1, 3, 5, 3, 5, 12, 16, 9, 11, 24, 28, 15, 7, 15, 17, 9,
                                                           0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(ConvIntegerKernel, HandlesSignedTypesGroupsAndPerChannelZeroPoints) {
  // Two groups of one channel: x - 1 = [-4, 4 | 6, -2], w - [1, -1] = [1, -2].
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (int8[1,2,1,2] x, int8[2,1,1,1] w, int8[1] xz, int8[2] wz) => (int32[1,2,1,2] y) {
      y = ConvInteger <group = 2> (x, w, xz, wz)
    })ONNX",
                  {{"x", MakeTensor<std::int8_t>({1, 2, 1, 2}, {-3, 5, 7, -1})},
                   {"w", MakeTensor<std::int8_t>({2, 1, 1, 1}, {2, -3})},
                   {"xz", MakeTensor<std::int8_t>({1}, {1})},
                   {"wz", MakeTensor<std::int8_t>({2}, {1, -1})}});
  EXPECT_TENSOR(y, MakeTensor<std::int32_t>({1, 2, 1, 2}, {-4, 4, -12, 4}));
}

TEST(ConvIntegerKernel, RefusesWrongTypesAndZeroPointShapes) {
  const auto run = [](const std::string& signature, const Inputs& inputs) {
    return [=] {
      RunText("<ir_version: 8, opset_import: [\"\" : 10]>\ng " + signature +
                  " => (int32[1,1,1,1] y) { y = ConvInteger (x, w, xz, wz) }",
              inputs);
    };
  };
  const Tensor x = MakeTensor<std::uint8_t>({1, 1, 1, 1}, {3});
  const Tensor w = MakeTensor<std::uint8_t>({1, 1, 1, 1}, {2});
  EXPECT_THAT(run("(float[1,1,1,1] x, uint8[1,1,1,1] w, uint8[1] xz, uint8[1] wz)",
                  {{"x", MakeTensor<float>({1, 1, 1, 1}, {3})}, {"w", w}, {"xz", MakeTensor<std::uint8_t>({1}, {0})},
                   {"wz", MakeTensor<std::uint8_t>({1}, {0})}}),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (ConvInteger): x must be int8 or uint8, found FLOAT")));
  EXPECT_THAT(run("(uint8[1,1,1,1] x, uint8[1,1,1,1] w, int8[1] xz, uint8[1] wz)",
                  {{"x", x}, {"w", w}, {"xz", MakeTensor<std::int8_t>({1}, {0})}, {"wz", MakeTensor<std::uint8_t>({1}, {0})}}),
              ThrowsMessage<ModelError>(HasSubstr("x_zero_point must have the element type of x")));
  EXPECT_THAT(run("(uint8[1,1,1,1] x, uint8[1,1,1,1] w, uint8[2] xz, uint8[1] wz)",
                  {{"x", x}, {"w", w}, {"xz", MakeTensor<std::uint8_t>({2}, {0, 0})}, {"wz", MakeTensor<std::uint8_t>({1}, {0})}}),
              ThrowsMessage<ModelError>(HasSubstr("x_zero_point must be a scalar")));
  EXPECT_THAT(run("(uint8[1,1,1,1] x, uint8[1,1,1,1] w, uint8[1] xz, uint8[3] wz)",
                  {{"x", x}, {"w", w}, {"xz", MakeTensor<std::uint8_t>({1}, {0})}, {"wz", MakeTensor<std::uint8_t>({3}, {0, 0, 0})}}),
              ThrowsMessage<ModelError>(HasSubstr("w_zero_point must be a scalar or a 1-D tensor of 1 elements")));
}

TEST(ConvIntegerKernel, ReportsConvAttributeErrorsForItsNode) {
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 10]>
          g (uint8[1,2,2,2] x, uint8[1,2,1,1] w) => (int32[1,1,2,2] y) { y = ConvInteger <group = 2> (x, w) })ONNX",
                {{"x", MakeTensor<std::uint8_t>({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                 {"w", MakeTensor<std::uint8_t>({1, 2, 1, 1}, {1, 1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("node 'y' (ConvInteger): Conv: channels 2")));
}

// QLinearConv -------------------------------------------------------------------------

const char* kQLinearConvModel = R"ONNX(
  <ir_version: 8, opset_import: ["" : 10]>
  g (uint8[1,1,1,3] x, float[1] xs, uint8[1] xz, uint8[2,1,1,1] w, float[2] ws, uint8[2] wz, float[1] ys,
     uint8[1] yz, int32[2] b) => (uint8[1,2,1,3] y) {
    y = QLinearConv (x, xs, xz, w, ws, wz, ys, yz, b)
  })ONNX";

Inputs QLinearConvInputs(float y_scale, float w_scale0) {
  return {{"x", MakeTensor<std::uint8_t>({1, 1, 1, 3}, {10, 20, 30})},
          {"xs", MakeTensor<float>({1}, {0.5f})},
          {"xz", MakeTensor<std::uint8_t>({1}, {10})},
          {"w", MakeTensor<std::uint8_t>({2, 1, 1, 1}, {3, 0})},
          {"ws", MakeTensor<float>({2}, {w_scale0, 1.0f})},
          {"wz", MakeTensor<std::uint8_t>({2}, {1, 2})},
          {"ys", MakeTensor<float>({1}, {y_scale})},
          {"yz", MakeTensor<std::uint8_t>({1}, {100})},
          {"b", MakeTensor<std::int32_t>({2}, {4, -8})}};
}

TEST(QLinearConvKernel, RequantizesPerOutputChannelWithBias) {
  // x - 10 = [0, 10, 20]; w - wz = [2, -2]; accumulators + B: [4, 24, 44] and
  // [-8, -28, -48]; multipliers 0.5 * 0.25 / 0.125 = 1 and 0.5 * 1 / 0.125 = 4; + 100,
  // saturated to [0, 255].
  EXPECT_TENSOR(RunOne(kQLinearConvModel, QLinearConvInputs(0.125f, 0.25f)),
                MakeTensor<std::uint8_t>({1, 2, 1, 3}, {104, 124, 144, 68, 0, 0}));
}

TEST(QLinearConvKernel, RefusesZeroOrNonFiniteScalesAndBadBias) {
  const auto run = [](const Inputs& inputs) { return [=] { RunText(kQLinearConvModel, inputs); }; };
  EXPECT_THAT(run(QLinearConvInputs(0.0f, 0.25f)),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (QLinearConv): y_scale must not be zero")));
  EXPECT_THAT(run(QLinearConvInputs(0.125f, std::numeric_limits<float>::quiet_NaN())),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (QLinearConv): w_scale must be finite")));
  EXPECT_THAT(run(QLinearConvInputs(1e-45f, 1e30f)),
              ThrowsMessage<ModelError>(HasSubstr("the ratio of the input scales to y_scale is not finite")));
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 10]>
          g (uint8[1,1,1,1] x, float[1] xs, uint8[1] xz, uint8[1,1,1,1] w, float[1] ws, uint8[1] wz, float[1] ys,
             uint8[1] yz, int32[3] b) => (uint8[1,1,1,1] y) { y = QLinearConv (x, xs, xz, w, ws, wz, ys, yz, b) })ONNX",
                {{"x", MakeTensor<std::uint8_t>({1, 1, 1, 1}, {1})}, {"xs", MakeTensor<float>({1}, {1})},
                 {"xz", MakeTensor<std::uint8_t>({1}, {0})}, {"w", MakeTensor<std::uint8_t>({1, 1, 1, 1}, {1})},
                 {"ws", MakeTensor<float>({1}, {1})}, {"wz", MakeTensor<std::uint8_t>({1}, {0})},
                 {"ys", MakeTensor<float>({1}, {1})}, {"yz", MakeTensor<std::uint8_t>({1}, {0})},
                 {"b", MakeTensor<std::int32_t>({3}, {0, 0, 0})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("B must be a 1-D tensor of 1 elements")));
}

// QLinearMatMul -----------------------------------------------------------------------

TEST(QLinearMatMulKernel, RoundsHalfToEvenAndSaturates) {
  // a x b = [9, 3] (a_scale = b_scale = 1); / y_scale 2 = [4.5, 1.5] -> [4, 2].
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (uint8[2,3] a, float[1] as, uint8[1] az, uint8[3,1] b, float[1] bs, uint8[1] bz, float[1] ys, int8[1] yz)
      => (int8[2,1] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
                  {{"a", MakeTensor<std::uint8_t>({2, 3}, {1, 3, 5, 1, 2, 0})}, {"as", MakeTensor<float>({1}, {1})},
                   {"az", MakeTensor<std::uint8_t>({1}, {0})}, {"b", MakeTensor<std::uint8_t>({3, 1}, {1, 1, 1})},
                   {"bs", MakeTensor<float>({1}, {1})}, {"bz", MakeTensor<std::uint8_t>({1}, {0})},
                   {"ys", MakeTensor<float>({1}, {2})}, {"yz", MakeTensor<std::int8_t>({1}, {-126})}});
  // 4 - 126 = -122; 2 - 126 = -124.
  EXPECT_TENSOR(y, MakeTensor<std::int8_t>({2, 1}, {-122, -124}));
}

TEST(QLinearMatMulKernel, RefusesAShiftedOperandBeyondTheLimitBeforeExpandingItsZeroPoint) {
  // a: uint8[1, 2^25] (32 MiB), its doubles 256 MiB, above a limit of 128 MiB: refused, and
  // before its zero point was expanded to as many doubles (256 MiB more than the child may
  // take).
  ExpectWithinMemory(std::uint64_t{192} << 20, []() -> std::string {
    const core::ir::ScopedTensorLimit limit(std::uint64_t{128} << 20, "the test's limit");
    const std::int64_t n = std::int64_t{1} << 25;
    try {
      RunOne(R"ONNX(
        <ir_version: 8, opset_import: ["" : 10]>
        g (uint8[1,33554432] a, float[1] as, uint8[1] az, uint8[33554432,1] b, float[1] bs, uint8[1] bz, float[1] ys,
           uint8[1] yz) => (uint8[1,1] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
             {{"a", Tensor(TensorProto::UINT8, {1, n})}, {"as", MakeTensor<float>({1}, {1})},
              {"az", MakeTensor<std::uint8_t>({1}, {1})}, {"b", Tensor(TensorProto::UINT8, {n, 1})},
              {"bs", MakeTensor<float>({1}, {1})}, {"bz", MakeTensor<std::uint8_t>({1}, {1})},
              {"ys", MakeTensor<float>({1}, {1})}, {"yz", MakeTensor<std::uint8_t>({1}, {0})}});
    } catch (const ModelError& error) {
      const std::string expected = "needs 268435456 bytes (256.0 MiB), more than the test's limit";
      return std::string(error.what()).find(expected) != std::string::npos ? "" : std::string("refused: ") + error.what();
    }
    return "not refused";
  });
}

TEST(QLinearMatMulKernel, AppliesPerColumnParametersOfB) {
  // a - 10 = [[0,2],[4,6]]; b - [1,-1] per column = [[0,4],[-2,6]]; acc = [[-4,12],[-12,52]];
  // multipliers per column 1 * [1, 0.5] / 2 = [0.5, 0.25]: [[-2,3],[-6,13]]; - 126, saturated.
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (uint8[2,2] a, float[1] as, uint8[1] az, int8[2,2] b, float[2] bs, int8[2] bz, float[1] ys, int8[1] yz)
      => (int8[2,2] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
                  {{"a", MakeTensor<std::uint8_t>({2, 2}, {10, 12, 14, 16})}, {"as", MakeTensor<float>({1}, {1})},
                   {"az", MakeTensor<std::uint8_t>({1}, {10})}, {"b", MakeTensor<std::int8_t>({2, 2}, {1, 3, -1, 5})},
                   {"bs", MakeTensor<float>({2}, {1, 0.5f})}, {"bz", MakeTensor<std::int8_t>({2}, {1, -1})},
                   {"ys", MakeTensor<float>({1}, {2})}, {"yz", MakeTensor<std::int8_t>({1}, {-126})}});
  EXPECT_TENSOR(y, MakeTensor<std::int8_t>({2, 2}, {-128, -123, -128, -113}));
}

TEST(QLinearMatMulKernel, AppliesPerRowParametersOfAAndFloat16ScalesInOpset21) {
  // a - [0, 1] per row = [[1,2],[2,3]]; b = ones: acc = [3, 5]; * a_scale [1, 2] = [3, 10].
  auto y = RunOne(R"ONNX(
    <ir_version: 10, opset_import: ["" : 21]>
    g (uint8[2,2] a, float16[2] as, uint8[2] az, uint8[2,1] b, float16[1] bs, uint8[1] bz, float16[1] ys, uint8[1] yz)
      => (uint8[2,1] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
                  {{"a", MakeTensor<std::uint8_t>({2, 2}, {1, 2, 3, 4})}, {"as", MakeHalf({2}, {1, 2})},
                   {"az", MakeTensor<std::uint8_t>({2}, {0, 1})}, {"b", MakeTensor<std::uint8_t>({2, 1}, {1, 1})},
                   {"bs", MakeHalf({1}, {1})}, {"bz", MakeTensor<std::uint8_t>({1}, {0})},
                   {"ys", MakeHalf({1}, {1})}, {"yz", MakeTensor<std::uint8_t>({1}, {0})}});
  EXPECT_TENSOR(y, MakeTensor<std::uint8_t>({2, 1}, {3, 10}));
}

// MatMul drops the dim it adds to a 1-D operand; the parameters still apply per row and
// per column (found by fuzz/graph_fuzzer.cc: a 2-D a times a 1-D b crashed).
TEST(QLinearMatMulKernel, AppliesPerRowParametersWhenBIs1D) {
  // a - [0, 1] per row = [[1,2],[2,3]]; b = [1, 1]: acc = [3, 5]; * a_scale [1, 2] = [3, 10].
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (uint8[2,2] a, float[2] as, uint8[2] az, uint8[2] b, float[1] bs, uint8[1] bz, float[1] ys, uint8[1] yz)
      => (uint8[2] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
                  {{"a", MakeTensor<std::uint8_t>({2, 2}, {1, 2, 3, 4})}, {"as", MakeTensor<float>({2}, {1, 2})},
                   {"az", MakeTensor<std::uint8_t>({2}, {0, 1})}, {"b", MakeTensor<std::uint8_t>({2}, {1, 1})},
                   {"bs", MakeTensor<float>({1}, {1})}, {"bz", MakeTensor<std::uint8_t>({1}, {0})},
                   {"ys", MakeTensor<float>({1}, {1})}, {"yz", MakeTensor<std::uint8_t>({1}, {0})}});
  EXPECT_TENSOR(y, MakeTensor<std::uint8_t>({2}, {3, 10}));
}

TEST(QLinearMatMulKernel, AppliesPerColumnParametersWhenAIs1DAndScalarsWhenBothAre) {
  // a = [1, 2]; b - [0, 1] per column = [[1, 1], [2, 3]]: acc = [5, 7]; * b_scale [1, 2] = [5, 14].
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (uint8[2] a, float[1] as, uint8[1] az, uint8[2,2] b, float[2] bs, uint8[2] bz, float[1] ys, uint8[1] yz)
      => (uint8[2] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
                  {{"a", MakeTensor<std::uint8_t>({2}, {1, 2})}, {"as", MakeTensor<float>({1}, {1})},
                   {"az", MakeTensor<std::uint8_t>({1}, {0})}, {"b", MakeTensor<std::uint8_t>({2, 2}, {1, 2, 2, 4})},
                   {"bs", MakeTensor<float>({2}, {1, 2})}, {"bz", MakeTensor<std::uint8_t>({2}, {0, 1})},
                   {"ys", MakeTensor<float>({1}, {1})}, {"yz", MakeTensor<std::uint8_t>({1}, {0})}});
  EXPECT_TENSOR(y, MakeTensor<std::uint8_t>({2}, {5, 14}));
  // [1, 2] . [3, 4] = 11, scaled by 2 * 1 / 1.
  auto dot = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 10]>
    g (uint8[2] a, float as, uint8 az, uint8[2] b, float bs, uint8 bz, float ys, uint8 yz)
      => (uint8 y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX",
                    {{"a", MakeTensor<std::uint8_t>({2}, {1, 2})}, {"as", MakeTensor<float>({}, {2})},
                     {"az", MakeTensor<std::uint8_t>({}, {0})}, {"b", MakeTensor<std::uint8_t>({2}, {3, 4})},
                     {"bs", MakeTensor<float>({}, {1})}, {"bz", MakeTensor<std::uint8_t>({}, {0})},
                     {"ys", MakeTensor<float>({}, {1})}, {"yz", MakeTensor<std::uint8_t>({}, {0})}});
  EXPECT_TENSOR(dot, MakeTensor<std::uint8_t>({}, {22}));
}

TEST(QLinearMatMulKernel, ComputesFloat8InOpset21WithSaturation) {
  // float8e4m3fn codes: 0x38 = 1, 0x40 = 2, 0x30 = 0.5, 0x44 = 3, 0x7E = 448 (largest).
  const std::string model = R"ONNX(
    <ir_version: 10, opset_import: ["" : 21]>
    g (uint8[1,2] a, float[1] as, uint8[1] az, uint8[2,1] b, float[1] bs, uint8[1] bz, float[1] ys, uint8[1] yz)
      => (uint8[1,1] y) { y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) })ONNX";
  const int f8 = core::eval::kFloat8E4M3FN;
  const std::map<std::string, int> types{{"a", f8}, {"az", f8}, {"b", f8}, {"bz", f8}, {"yz", f8}};
  const auto inputs = [&](float y_scale) {
    return Inputs{{"a", MakeFloat8(f8, {1, 2}, {0x38, 0x40})}, {"as", MakeTensor<float>({1}, {1})},
                  {"az", MakeFloat8(f8, {1}, {0})},          {"b", MakeFloat8(f8, {2, 1}, {0x40, 0x30})},
                  {"bs", MakeTensor<float>({1}, {1})},       {"bz", MakeFloat8(f8, {1}, {0})},
                  {"ys", MakeTensor<float>({1}, {y_scale})}, {"yz", MakeFloat8(f8, {1}, {0})}};
  };
  // 1 * 2 + 2 * 0.5 = 3.
  EXPECT_TENSOR(RunWithRetypedInputs(model, inputs(1), types), MakeFloat8(f8, {1, 1}, {0x44}));
  // 3 / 0.001 = 3000 saturates to 448.
  EXPECT_TENSOR(RunWithRetypedInputs(model, inputs(0.001f), types), MakeFloat8(f8, {1, 1}, {0x7E}));
}

TEST(QLinearMatMulKernel, RefusesParametersOfTheWrongShapeOrVersion) {
  const auto run = [](const std::string& opset, const std::string& as_type, const Tensor& as, const std::string& az_type,
                       const Tensor& az) {
    return [=] {
      RunText("<ir_version: 10, opset_import: [\"\" : " + opset + "]>\ng (uint8[2,2] a, " + as_type + " as, " + az_type +
                  " az, uint8[2,1] b, float[1] bs, uint8[1] bz, float[1] ys, uint8[1] yz) => (uint8[2,1] y) "
                  "{ y = QLinearMatMul (a, as, az, b, bs, bz, ys, yz) }",
              {{"a", MakeTensor<std::uint8_t>({2, 2}, {1, 2, 3, 4})}, {"as", as}, {"az", az},
               {"b", MakeTensor<std::uint8_t>({2, 1}, {1, 1})}, {"bs", MakeTensor<float>({1}, {1})},
               {"bz", MakeTensor<std::uint8_t>({1}, {0})}, {"ys", MakeTensor<float>({1}, {1})},
               {"yz", MakeTensor<std::uint8_t>({1}, {0})}});
    };
  };
  // Per column of a (along K) cannot be taken out of the product.
  EXPECT_THAT(run("21", "float[1,2]", MakeTensor<float>({1, 2}, {1, 1}), "uint8[1,2]", MakeTensor<std::uint8_t>({1, 2}, {0, 0})),
              ThrowsMessage<ModelError>(HasSubstr("a_scale of shape [1,2] is neither a scalar nor per row")));
  EXPECT_THAT(run("21", "float[2]", MakeTensor<float>({2}, {1, 1}), "uint8[1]", MakeTensor<std::uint8_t>({1}, {0})),
              ThrowsMessage<ModelError>(HasSubstr("a_scale [2] and a_zero_point [1] must have the same shape")));
  EXPECT_THAT(run("10", "float16[1]", MakeHalf({1}, {1}), "uint8[1]", MakeTensor<std::uint8_t>({1}, {0})),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (QLinearMatMul): the scales must be float before opset 21")));
}

// DynamicQuantizeLinear -----------------------------------------------------------------

TEST(DynamicQuantizeLinearKernel, QuantizesOverARangeIncludingZero) {
  const std::string model = R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[N] x) => (uint8[N] y, float s, uint8 z) { y, s, z = DynamicQuantizeLinear (x) })ONNX";
  // Range [-1, 3]: scale 4/255, zero point round(63.75) = 64; x / scale = [-63.75, 0, 63.75,
  // 191.25] -> [-64, 0, 64, 191] + 64, saturated.
  auto out = RunText(model, {{"x", MakeTensor<float>({4}, {-1, 0, 1, 3})}});
  EXPECT_TENSOR(OutputTensor(out, "y"), MakeTensor<std::uint8_t>({4}, {0, 64, 128, 255}));
  EXPECT_TENSOR(OutputTensor(out, "s"), MakeScalar<float>(4.0f / 255.0f));
  EXPECT_TENSOR(OutputTensor(out, "z"), MakeScalar<std::uint8_t>(64));
  // All zeros (and no element at all): the range is empty, scale 1 as in onnxruntime.
  for (const Tensor& x : {MakeTensor<float>({2}, {0, 0}), MakeTensor<float>({0}, {})}) {
    auto zero = RunText(model, {{"x", x}});
    EXPECT_TENSOR(OutputTensor(zero, "s"), MakeScalar<float>(1));
    EXPECT_TENSOR(OutputTensor(zero, "z"), MakeScalar<std::uint8_t>(0));
  }
  // NaN is left out of the range and quantizes to 0.
  auto nan = RunText(model, {{"x", MakeTensor<float>({2}, {std::numeric_limits<float>::quiet_NaN(), 2.55f})}});
  EXPECT_TENSOR(OutputTensor(nan, "y"), MakeTensor<std::uint8_t>({2}, {0, 255}));
}

TEST(DynamicQuantizeLinearKernel, GivesAnInfiniteScaleForAnInfiniteRange) {
  const std::string model = R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[2] x) => (uint8[2] y, float s, uint8 z) { y, s, z = DynamicQuantizeLinear (x) })ONNX";
  const float inf = std::numeric_limits<float>::infinity();
  // [-2, inf]: scale inf, zero point round(2 / inf) = 0; inf / inf is NaN: 0.
  auto up = RunText(model, {{"x", MakeTensor<float>({2}, {inf, -2})}});
  EXPECT_TENSOR(OutputTensor(up, "s"), MakeScalar<float>(inf));
  EXPECT_TENSOR(OutputTensor(up, "z"), MakeScalar<std::uint8_t>(0));
  EXPECT_TENSOR(OutputTensor(up, "y"), MakeTensor<std::uint8_t>({2}, {0, 0}));
  // [-inf, 1]: -min / scale = inf / inf is NaN: zero point 255; 1 / inf + 255 = 255.
  auto down = RunText(model, {{"x", MakeTensor<float>({2}, {-inf, 1})}});
  EXPECT_TENSOR(OutputTensor(down, "z"), MakeScalar<std::uint8_t>(255));
  EXPECT_TENSOR(OutputTensor(down, "y"), MakeTensor<std::uint8_t>({2}, {0, 255}));
}

TEST(DynamicQuantizeLinearKernel, RefusesNonFloatInput) {
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 11]>
          g (double[1] x) => (uint8[1] y, float s, uint8 z) { y, s, z = DynamicQuantizeLinear (x) })ONNX",
                {{"x", MakeTensor<double>({1}, {1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("node 'y' (DynamicQuantizeLinear): x must be float, found DOUBLE")));
}

// com.microsoft products ------------------------------------------------------------------

TEST(MatMulIntegerToFloatKernel, ScalesPerColumnAndAddsBias) {
  // A - 3 = [2, 4]; B - [1, 0] = [[0,-1],[1,4]]; acc = [4, 14]; * 0.5 * [1, 0.25] + [0.5, -1].
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (uint8[1,2] a, int8[2,2] b, float[1] as, float[2] bs, uint8[1] az, int8[2] bz, float[2] bias) => (float[1,2] y) {
      y = com.microsoft.MatMulIntegerToFloat (a, b, as, bs, az, bz, bias)
    })ONNX",
                  {{"a", MakeTensor<std::uint8_t>({1, 2}, {5, 7})}, {"b", MakeTensor<std::int8_t>({2, 2}, {1, -1, 2, 4})},
                   {"as", MakeTensor<float>({1}, {0.5f})}, {"bs", MakeTensor<float>({2}, {1, 0.25f})},
                   {"az", MakeTensor<std::uint8_t>({1}, {3})}, {"bz", MakeTensor<std::int8_t>({2}, {1, 0})},
                   {"bias", MakeTensor<float>({2}, {0.5f, -1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2}, {2.5f, 0.75f}));
}

TEST(MatMulIntegerToFloatKernel, RefusesPerColumnScaleOfA) {
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
          g (uint8[1,2] a, int8[2,1] b, float[2] as, float[1] bs) => (float[1,1] y) {
            y = com.microsoft.MatMulIntegerToFloat (a, b, as, bs)
          })ONNX",
                {{"a", MakeTensor<std::uint8_t>({1, 2}, {1, 2})}, {"b", MakeTensor<std::int8_t>({2, 1}, {1, 1})},
                 {"as", MakeTensor<float>({2}, {1, 1})}, {"bs", MakeTensor<float>({1}, {1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("node 'y' (MatMulIntegerToFloat): a_scale must be a scalar")));
}

TEST(DynamicQuantizeMatMulKernel, QuantizesAThenMultiplies) {
  // A quantizes as in DynamicQuantizeLinear: scale 4/255, zero point 64, A - 64 =
  // [-64, 0, 64, 191]; x [1, 2, 3, 4] = 892; * (4/255 * 0.5) + 1.
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (float[1,4] a, int8[4,1] b, float[1] bs, int8[1] bz, float[1] bias) => (float[1,1] y) {
      y = com.microsoft.DynamicQuantizeMatMul (a, b, bs, bz, bias)
    })ONNX",
                  {{"a", MakeTensor<float>({1, 4}, {-1, 0, 1, 3})}, {"b", MakeTensor<std::int8_t>({4, 1}, {1, 2, 3, 4})},
                   {"bs", MakeTensor<float>({1}, {0.5f})}, {"bz", MakeTensor<std::int8_t>({1}, {0})},
                   {"bias", MakeTensor<float>({1}, {1})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1}, {892.0f * (4.0f / 255.0f * 0.5f) + 1.0f}));
}

// MatMulNBits: B [N, k_blocks, blob] with codes packed low bits first.
const char* kNBits4 = R"ONNX(
  <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
  g (float[1,16] a, uint8[2,1,8] b, float[2,1] s, float[2] bias) => (float[1,2] y) {
    y = com.microsoft.MatMulNBits <K = 16, N = 2, bits = 4, block_size = 16> (a, b, s, , , bias)
  })ONNX";

TEST(MatMulNBitsKernel, Dequantizes4BitCodesWithTheDefaultZeroPoint) {
  // Row 0: codes 0..15 (bytes 0x10, 0x32, ...), scale 0.5: sum((k - 8) * 0.5) = -4.
  // Row 1: codes 8 (zero), scale 2: 0. Bias [1, 2].
  auto y = RunOne(kNBits4, {{"a", MakeTensor<float>({1, 16}, std::vector<float>(16, 1.0f))},
                            {"b", MakeTensor<std::uint8_t>({2, 1, 8}, {0x10, 0x32, 0x54, 0x76, 0x98, 0xBA, 0xDC, 0xFE,
                                                                        0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88, 0x88})},
                            {"s", MakeTensor<float>({2, 1}, {0.5f, 2})},
                            {"bias", MakeTensor<float>({2}, {1, 2})}});
  EXPECT_TENSOR(y, MakeTensor<float>({1, 2}, {-3, 2}));
}

TEST(MatMulNBitsKernel, ReadsPackedAndFloatZeroPointsPerBlock) {
  // K 32 = two blocks of 16, codes all 8; packed zero points 0x79: block 0 -> 9, block 1
  // -> 7; scales [1, 2]; a = ones on block 0 only: 16 * (8 - 9) * 1 = -16.
  const std::string model = R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (float[1,32] a, uint8[1,2,8] b, float[1,2] s, uint8[1,1] z) => (float[1,1] y) {
      y = com.microsoft.MatMulNBits <K = 32, N = 1, bits = 4, block_size = 16> (a, b, s, z)
    })ONNX";
  std::vector<float> a(32, 0.0f);
  std::fill(a.begin(), a.begin() + 16, 1.0f);
  const Inputs inputs{{"a", MakeTensor<float>({1, 32}, a)},
                      {"b", MakeTensor<std::uint8_t>({1, 2, 8}, std::vector<std::uint8_t>(16, 0x88))},
                      {"s", MakeTensor<float>({1, 2}, {1, 2})},
                      {"z", MakeTensor<std::uint8_t>({1, 1}, {0x79})}};
  EXPECT_TENSOR(RunOne(model, inputs), MakeTensor<float>({1, 1}, {-16}));
  // g_idx swaps the blocks' parameters (codes stay in place): 16 * (8 - 7) * 2 = 32.
  std::string with_g_idx = model;
  with_g_idx.replace(with_g_idx.find("uint8[1,1] z)"), 13, "uint8[1,1] z, int32[32] g)");
  with_g_idx.replace(with_g_idx.find("(a, b, s, z)"), 12, "(a, b, s, z, g)");
  std::vector<std::int32_t> g_idx(32, 0);
  std::fill(g_idx.begin(), g_idx.begin() + 16, 1);
  Inputs swapped = inputs;
  swapped.emplace_back("g", MakeTensor<std::int32_t>({32}, g_idx));
  EXPECT_TENSOR(RunOne(with_g_idx, swapped), MakeTensor<float>({1, 1}, {32}));
  // Unpacked zero points of A's type: (8 - 7.5) * 1 on block 0.
  std::string float_zero_points = model;
  float_zero_points.replace(float_zero_points.find("uint8[1,1] z"), 12, "float[1,2] z");
  Inputs with_float = inputs;
  with_float.back().second = MakeTensor<float>({1, 2}, {7.5f, 0});
  EXPECT_TENSOR(RunOne(float_zero_points, with_float), MakeTensor<float>({1, 1}, {8}));
}

TEST(MatMulNBitsKernel, Handles8BitCodesAndAPartialLastBlock) {
  // K 20: blocks of 16 and 4 (+12 padding codes); codes 128 + k, zero point 128, scales
  // [1, 0.25]: sum(0..15) + 0.25 * (16 + 17 + 18 + 19) = 120 + 17.5.
  std::vector<std::uint8_t> codes(32, 0);
  for (int k = 0; k < 20; ++k) codes[static_cast<std::size_t>(k)] = static_cast<std::uint8_t>(128 + k);
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (float16[1,20] a, uint8[1,2,16] b, float16[2] s) => (float16[1,1] y) {
      y = com.microsoft.MatMulNBits <K = 20, N = 1, bits = 8, block_size = 16> (a, b, s)
    })ONNX",
                  {{"a", MakeHalf({1, 20}, std::vector<float>(20, 1.0f))}, {"b", MakeTensor<std::uint8_t>({1, 2, 16}, codes)},
                   {"s", MakeHalf({2}, {1, 0.25f})}});
  EXPECT_TENSOR(y, MakeHalf({1, 1}, {137.5f}));
}

TEST(MatMulNBitsKernel, RefusesInconsistentAttributesAndShapes) {
  const auto run = [](const std::string& attributes, const Tensor& b) {
    return [=] {
      RunText("<ir_version: 8, opset_import: [\"\" : 17, \"com.microsoft\" : 1]>\ng (float[1,16] a, uint8[" +
                  std::to_string(b.shape()[0]) + "," + std::to_string(b.shape()[1]) + "," +
                  std::to_string(b.shape()[2]) + "] b, float[2] s) => (float[1,2] y) { y = com.microsoft.MatMulNBits <" +
                  attributes + "> (a, b, s) }",
              {{"a", MakeTensor<float>({1, 16}, std::vector<float>(16, 1.0f))}, {"b", b},
               {"s", MakeTensor<float>({2}, {1, 1})}});
    };
  };
  const Tensor b = MakeTensor<std::uint8_t>({2, 1, 8}, std::vector<std::uint8_t>(16, 0x88));
  EXPECT_THAT(run("K = 16, N = 2, bits = 4, block_size = 8", b),
              ThrowsMessage<ModelError>(HasSubstr("node 'y' (MatMulNBits): block_size must be a power of 2 not smaller than 16")));
  EXPECT_THAT(run("K = 16, N = 2, bits = 9, block_size = 16", b),
              ThrowsMessage<ModelError>(HasSubstr("bits must be in [2, 8], found 9")));
  EXPECT_THAT(run("K = 16, N = 3, bits = 4, block_size = 16", b),
              ThrowsMessage<ModelError>(HasSubstr("B must have shape [3,1,8]")));
  EXPECT_THAT(run("K = 32, N = 2, bits = 4, block_size = 16", b),
              ThrowsMessage<ModelError>(HasSubstr("the last dimension of A must be K=32")));
  EXPECT_THAT(run("N = 2, bits = 4, block_size = 16", b), ThrowsMessage<ModelError>(HasSubstr("attribute K is required")));
  EXPECT_THAT(run("K = 16, N = 2, bits = 4, block_size = 16, weight_prepacked = 1", b),
              ThrowsMessage<ModelError>(HasSubstr("weight_prepacked=1 (B in a CUDA execution provider's own layout)")));
}

TEST(MatMulNBitsKernel, RefusesADequantizedWeightBeyondTheLimit) {
  // 2-bit codes: B [32768, 1, 4] (128 KiB) dequantizes to float[32768,16] (2 MiB), above a
  // limit of 1 MiB that every input and the output fit. The weight was a plain vector:
  // B at the limit took 16 times the limit.
  const core::ir::ScopedTensorLimit limit(1 << 20, "the test's limit");
  const std::int64_t n = 32768;
  const std::string model = R"ONNX(
    <ir_version: 8, opset_import: ["" : 17, "com.microsoft" : 1]>
    g (float[1,16] a, uint8[32768,1,4] b, float[32768,1] s) => (float[1,32768] y) {
      y = com.microsoft.MatMulNBits <K = 16, N = 32768, bits = 2, block_size = 16> (a, b, s)
    })ONNX";
  EXPECT_EQ(ModelErrorOf(model, {{"a", MakeTensor<float>({1, 16}, std::vector<float>(16, 1.0f))},
                                 {"b", Tensor(TensorProto::UINT8, {n, 1, 4})},
                                 {"s", Tensor(TensorProto::FLOAT, {n, 1})}}),
            "node 'y' (MatMulNBits): tensor float[32768,16] needs 2097152 bytes (2.0 MiB), more than the test's "
            "limit of 1048576 bytes (1.0 MiB)");
}

}  // namespace
}  // namespace onnxopt::testing
