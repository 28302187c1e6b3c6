// The perm helpers with the worked examples of transpose-optimizer.md
// section 4.12.
#include "onnx_extensions/transpose/perm.h"

#include <gtest/gtest.h>

namespace onnxopt::onnx_transpose {
namespace {

TEST(TransposePerm, InverseAndCompose) {
  EXPECT_EQ(InversePermutation({0, 3, 1, 2}), (Perm{0, 2, 3, 1}));
  EXPECT_TRUE(IsIdentityPermutation(ComposePermutations({0, 3, 1, 2}, {0, 2, 3, 1})));
  EXPECT_EQ(ComposePermutations({1, 2, 0}, {1, 2, 0}), (Perm{2, 0, 1}));
  EXPECT_TRUE(IsIdentityPermutation({}));
  EXPECT_TRUE(IsPermutation({}));
  EXPECT_FALSE(IsPermutation({0, 0}));
  EXPECT_FALSE(IsPermutation({0, 2}));
}

TEST(TransposePerm, MapsAxes) {
  EXPECT_EQ(MapAxes({2, 1}, {0, 3, 1, 2}), (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(MapAxes({-1}, {0, 2, 3, 1}), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(MapAxes({4}, {0, 2, 3, 1}), std::nullopt);
  EXPECT_EQ(MapAxes({1, -3}, {0, 2, 3, 1}), std::nullopt);
}

TEST(TransposePerm, SqueezeAndUnsqueezePerms) {
  EXPECT_EQ(SqueezePerm({1}, {0, 3, 1, 2}), (Perm{0, 2, 1}));
  EXPECT_EQ(UnsqueezePerm({0}, {2, 0, 1}), (Perm{0, 3, 1, 2}));
  EXPECT_EQ(UnsqueezePerm({0, 3}, {1, 0}), (Perm{0, 2, 1, 3}));
}

TEST(TransposePerm, PermutesVectors) {
  EXPECT_EQ(PermuteVector(std::vector<std::int64_t>{0, 0, 1, 1}, {0, 3, 1, 2}),
            (std::vector<std::int64_t>{0, 1, 1, 0}));
}

}  // namespace
}  // namespace onnxopt::onnx_transpose
