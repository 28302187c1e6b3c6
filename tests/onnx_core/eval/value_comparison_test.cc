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

}  // namespace
}  // namespace onnxopt::core::eval
