#include "onnx_core/eval/value_comparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace onnxopt::core::eval {
namespace {

Tensor Int64s(const std::vector<std::int64_t>& values, std::vector<std::int64_t> shape) {
  Tensor tensor(TensorProto::INT64, std::move(shape));
  std::copy(values.begin(), values.end(), tensor.MutableData<std::int64_t>());
  return tensor;
}

TEST(ValueComparison, GivesTheLargestDifferenceOfIntegersToo) {
  const Comparison result = CompareTensors(Int64s({1, 2, 3, 4}, {4}), Int64s({1, 7, 3, 2}, {4}));
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.elements_compared);
  EXPECT_EQ(result.max_abs_diff, 5.0);
  EXPECT_EQ(result.reason, "2/4 elements differ, first at 1: 2 vs 7");
}

TEST(ValueComparison, SaysWhenShapesLeaveNoElementsToCompare) {
  const Comparison result = CompareTensors(Int64s({1, 2}, {2, 1}), Int64s({1, 2}, {1, 2}));
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.elements_compared);
  const Comparison same = CompareValues(Value(Int64s({1, 2}, {2})), Value(Int64s({1, 2}, {2})));
  EXPECT_TRUE(same.ok);
  EXPECT_TRUE(same.elements_compared);
}

// The float types stored as one-byte codes are compared by value (graph fuzzer: comparing a
// float4e2m1 output threw "cannot read a float4e2m1[4,4,2] tensor as numbers").
TEST(ValueComparison, ComparesFloat4AndFloat8E8M0ByValue) {
  auto codes = [](int elem_type, const std::vector<std::uint8_t>& values) {
    Tensor tensor(elem_type, {static_cast<std::int64_t>(values.size())});
    std::copy(values.begin(), values.end(), tensor.MutableData<std::uint8_t>());
    return tensor;
  };
  EXPECT_TRUE(CompareTensors(codes(kFloat4E2M1, {0x1, 0x7}), codes(kFloat4E2M1, {0x1, 0x7})).ok);
  const Comparison float4 = CompareTensors(codes(kFloat4E2M1, {0x1, 0x7}), codes(kFloat4E2M1, {0x1, 0xF}));
  EXPECT_FALSE(float4.ok);
  EXPECT_EQ(float4.max_abs_diff, 12.0);
  EXPECT_EQ(float4.reason, "1/2 elements differ, first at 1: 6 vs -6");
  EXPECT_TRUE(CompareTensors(codes(kFloat8E8M0, {127, 255}), codes(kFloat8E8M0, {127, 255})).ok);  // NaN where NaN
  const Comparison e8m0 = CompareTensors(codes(kFloat8E8M0, {127, 255}), codes(kFloat8E8M0, {128, 255}));
  EXPECT_FALSE(e8m0.ok);
  EXPECT_EQ(e8m0.reason, "1/2 elements differ, first at 0: 1 vs 2");
}

}  // namespace
}  // namespace onnxopt::core::eval
