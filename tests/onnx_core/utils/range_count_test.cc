#include "onnx_core/utils/range_count.h"

#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

namespace onnxopt::utils {
namespace {

TEST(RangeCount, CeilingOfTheSpanOverTheStepAndNeverNegative) {
  EXPECT_TRUE(RangeCount(0, 10, 3) == 4);   // 0 3 6 9
  EXPECT_TRUE(RangeCount(10, 0, -3) == 4);  // 10 7 4 1
  EXPECT_TRUE(RangeCount(0, 9, 3) == 3);
  EXPECT_TRUE(RangeCount(5, 0, 1) == 0);  // the wrong way: empty
  EXPECT_TRUE(RangeCount(0, 0, 1) == 0);
}

TEST(RangeCount, SpansBeyondInt64AreCountedExactly) {
  constexpr std::int64_t kLowest = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kHighest = std::numeric_limits<std::int64_t>::max();
  // 2^64 - 1 elements: more than int64 holds.
  EXPECT_TRUE(RangeCount(kLowest, kHighest, 1) == (static_cast<__int128>(1) << 64) - 1);
  EXPECT_TRUE(RangeCount(kLowest, kHighest, std::int64_t{1} << 62) == 4);
  EXPECT_TRUE(RangeCount(kHighest, kLowest, -1) == (static_cast<__int128>(1) << 64) - 1);
}

}  // namespace
}  // namespace onnxopt::utils
