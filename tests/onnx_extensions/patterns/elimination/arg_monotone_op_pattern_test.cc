#include "onnx_extensions/patterns/elimination/arg_monotone_op_pattern.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "onnx_core/eval/evaluator.h"
#include "onnx_core/eval/tensor.h"
#include "onnx_extensions/kernels/register_kernels.h"
#include "tests/onnx_extensions/patterns/pattern_test_util.h"
#include "tests/support/test_support.h"

namespace onnxopt::onnx_patterns {
namespace {

using testing::ExpectNoMatch;
using testing::ExpectRewrite;

// On the random inputs of the test no two values round together: equal indices.
TEST(ArgMonotoneOpPattern, DropsASoftmaxAlongTheArgAxis) {
  ExpectRewrite<ArgMonotoneOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N] Y) {
      t = Softmax<axis = 1>(X)
      Y = ArgMax<axis = -1, keepdims = 0>(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N] Y) {
      Y = ArgMax<axis = -1, keepdims = 0>(X)
    })ONNX");
}

// Before opset 13 Softmax's axis defaults to 1.
TEST(ArgMonotoneOpPattern, ReadsTheOldDefaultSoftmaxAxis) {
  ExpectRewrite<ArgMonotoneOpPattern>(R"ONNX(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[N,5] X) => (int64[N,1] Y) {
      t = LogSoftmax(X)
      Y = ArgMin<axis = 1>(t)
    })ONNX", R"ONNX(
    <ir_version: 7, opset_import: ["" : 12]>
    g (float[N,5] X) => (int64[N,1] Y) {
      Y = ArgMin<axis = 1>(X)
    })ONNX");
}

TEST(ArgMonotoneOpPattern, DropsAnExp) {
  ExpectRewrite<ArgMonotoneOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[1,5] Y) {
      t = Exp(X)
      Y = ArgMin(t)
    })ONNX", R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[1,5] Y) {
      Y = ArgMin(X)
    })ONNX");
}

// Why the rewrite is approximate: Exp(0) and Exp(1e-8) are both 1.0f, Sigmoid(20) and
// Sigmoid(30) both 1.0f, Tanh(10) and Tanh(20) both 1.0f; the original's ArgMax sees a
// tie and returns the first index, the rewrite returns the second.
TEST(ArgMonotoneOpPattern, GivesAnotherIndexWhereRoundingCreatesATie) {
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"Exp", {0.0f, 1e-8f}}, {"Sigmoid", {20.0f, 30.0f}}, {"Tanh", {10.0f, 20.0f}}};
  onnx_kernels::RegisterKernels();
  for (const auto& [op, values] : cases) {
    const ModelProto original = onnxopt::testing::ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[2] X) => (int64[1] Y) {
        t = )ONNX" + op + R"ONNX((X)
        Y = ArgMax(t)
      })ONNX");
    const ModelProto rewritten = onnxopt::testing::ParseText(R"ONNX(
      <ir_version: 8, opset_import: ["" : 18]>
      g (float[2] X) => (int64[1] Y) {
        Y = ArgMax(X)
      })ONNX");
    core::eval::Tensor x(TensorProto::FLOAT, {2});
    x.MutableData<float>()[0] = values[0];
    x.MutableData<float>()[1] = values[1];
    const core::eval::ValueMap inputs = {{"X", x}};
    const auto before = std::get<core::eval::Tensor>(core::eval::Run(original, inputs).at("Y"));
    const auto after = std::get<core::eval::Tensor>(core::eval::Run(rewritten, inputs).at("Y"));
    EXPECT_EQ(before.Data<std::int64_t>()[0], 0) << op;
    EXPECT_EQ(after.Data<std::int64_t>()[0], 1) << op;
  }
}

TEST(ArgMonotoneOpPattern, RejectsASoftmaxAlongAnotherAxis) {
  ExpectNoMatch<ArgMonotoneOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[1,5] Y) {
      t = Softmax(X)
      Y = ArgMax<axis = 0>(t)
    })ONNX", "Y", "the softmax axis is not the Arg axis");
}

TEST(ArgMonotoneOpPattern, RejectsAnOpThatIsNotIncreasing) {
  ExpectNoMatch<ArgMonotoneOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N,1] Y) {
      t = Relu(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the input is produced by none of Exp, Sigmoid, Tanh, Softmax, LogSoftmax");
}

TEST(ArgMonotoneOpPattern, RejectsASharedExp) {
  ExpectNoMatch<ArgMonotoneOpPattern>(R"ONNX(
    <ir_version: 8, opset_import: ["" : 18]>
    g (float[N,5] X) => (int64[N,1] Y, float[N,5] t) {
      t = Exp(X)
      Y = ArgMax<axis = 1>(t)
    })ONNX", "Y", "the input of the ArgMax or ArgMin has another reader");
}

}  // namespace
}  // namespace onnxopt::onnx_patterns
