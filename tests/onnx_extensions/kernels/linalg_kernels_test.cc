// Det: determinants computed by hand, batches, types, and the validation of shapes.

#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/common/error.h"
#include "onnx_core/eval/work_budget.h"
#include "tests/onnx_extensions/kernels/kernel_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(DetKernel, ComputesBatchedDeterminantsWithPivoting) {
  // [[0, 2], [3, 4]] = -6 (needs a row swap); [[2, 0, 0], [0, 3, 0], [1, 1, 4]] = 24;
  // a singular matrix = 0.
  auto y = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (double[2,2,2] x) => (double[2] y) { y = Det (x) })ONNX",
                  {{"x", MakeTensor<double>({2, 2, 2}, {0, 2, 3, 4, 1, 2, 2, 4})}});
  EXPECT_TENSOR(y, MakeTensor<double>({2}, {-6, 0}));
  auto three = RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[3,3] x) => (float y) { y = Det (x) })ONNX",
                      {{"x", MakeTensor<float>({3, 3}, {2, 0, 0, 0, 3, 0, 1, 1, 4})}});
  EXPECT_TENSOR(three, MakeScalar<float>(24));
}

TEST(DetKernel, RoundsHalfTypesOnceAndGivesOneForEmptyMatrices) {
  EXPECT_TENSOR(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float16[1,2,2] x) => (float16[1] y) { y = Det (x) })ONNX",
                       {{"x", MakeHalf({1, 2, 2}, {1.5f, 2, 0.5f, 3})}}),
                MakeHalf({1}, {3.5f}));
  EXPECT_TENSOR(RunOne(R"ONNX(
    <ir_version: 10, opset_import: ["" : 22]>
    g (bfloat16[2,2] x) => (bfloat16 y) { y = Det (x) })ONNX",
                       {{"x", MakeBFloat16({2, 2}, {2, 1, 1, 2})}}),
                MakeBFloat16({}, {3}));
  // A 0 x 0 matrix has determinant 1 (the empty product), as in NumPy.
  EXPECT_TENSOR(RunOne(R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (float[2,0,0] x) => (float[2] y) { y = Det (x) })ONNX",
                       {{"x", Tensor(TensorProto::FLOAT, {2, 0, 0})}}),
                MakeTensor<float>({2}, {1, 1}));
}

TEST(DetKernel, RefusesNonSquareInputsAndOtherTypes) {
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 11]>
          g (float[2,3] x) => (float y) { y = Det (x) })ONNX",
                {{"x", MakeTensor<float>({2, 3}, {1, 2, 3, 4, 5, 6})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("node 'y' (Det): X must have shape [*, M, M] (square matrices), found [2,3]")));
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 11]>
          g (int32[1,1] x) => (int32 y) { y = Det (x) })ONNX",
                {{"x", MakeTensor<std::int32_t>({1, 1}, {1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("X must be a float tensor, found INT32")));
  EXPECT_THAT(
      [] {
        RunText(R"ONNX(
          <ir_version: 8, opset_import: ["" : 11]>
          g (bfloat16[1,1] x) => (bfloat16 y) { y = Det (x) })ONNX",
                {{"x", MakeBFloat16({1, 1}, {1})}});
      },
      ThrowsMessage<ModelError>(HasSubstr("X must be a float tensor, found BFLOAT16")));
}

TEST(DetKernel, ChargesItsEliminationFirst) {
  // Two 30 x 30 matrices: 2 * 30^3 / 3 = 18000 steps (a 1000 x 1000 one: 3.3 * 10^8).
  const std::string model = R"ONNX(
    <ir_version: 8, opset_import: ["" : 11]>
    g (double[2,30,30] x) => (double[2] y) { y = Det (x) })ONNX";
  const Inputs in = {{"x", Tensor(TensorProto::DOUBLE, {2, 30, 30})}};
  core::eval::WorkBudget enough(18000, "the test's budget");
  {
    const core::eval::ScopedWorkBudget scope(enough);
    EXPECT_TENSOR(RunOne(model, in), MakeTensor<double>({2}, {0, 0}));
  }
  EXPECT_EQ(enough.spent(), 18000u);
  core::eval::WorkBudget small(10000, "the test's budget");
  const core::eval::ScopedWorkBudget scope(small);
  EXPECT_THAT(ModelErrorOf(model, in), HasSubstr("Det's elimination"));
}

}  // namespace
}  // namespace onnxopt::testing
