// Tests of spatial_kernels.cc: LRN, MeanVarianceNormalization, MaxUnpool, Col2Im,
// CenterCropPad, DeformConv, with expected values worked out by hand from the spec.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/onnx_extensions/kernels/vision_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------------
// LRN

TEST(LrnKernel, NormalizesOverTheChannelWindow) {
  // alpha / size = 1, beta = 1, bias = 1: y = x / (1 + sum of squares in the window).
  const Tensor x = MakeTensor<float>({1, 3, 1, 1}, {1, 2, 3});
  // size 3: windows [0, 1], [0, 2], [1, 2] -> sums 5, 14, 13.
  EXPECT_TENSOR(RunNode("y = LRN <size = 3, alpha = 3.0, beta = 1.0, bias = 1.0> (x)", {{"x", x}}, 13),
                MakeTensor<float>({1, 3, 1, 1}, {1.0f / 6, 2.0f / 15, 3.0f / 14}));
  // size 2: floor((2-1)/2) = 0 before, ceil((2-1)/2) = 1 after: [0, 1], [1, 2], [2, 2].
  EXPECT_TENSOR(RunNode("y = LRN <size = 2, alpha = 2.0, beta = 1.0, bias = 1.0> (x)", {{"x", x}}, 1),
                MakeTensor<float>({1, 3, 1, 1}, {1.0f / 6, 2.0f / 14, 3.0f / 10}));
}

TEST(LrnKernel, DefaultsHalfTypesAndHugeSizes) {
  // Defaults alpha 1e-4, beta 0.75, bias 1, on a single channel: x / (1 + 1e-4 x^2)^0.75.
  const Tensor x = MakeTensor<double>({1, 1, 2}, {2, 10});
  EXPECT_TENSOR(RunNode("y = LRN <size = 1> (x)", {{"x", x}}, 13),
                MakeTensor<double>({1, 1, 2}, {2 / std::pow(1.0004, 0.75), 10 / std::pow(1.01, 0.75)}));
  EXPECT_TENSOR_NEAR(RunNode("y = LRN <size = 3, alpha = 3.0, beta = 1.0> (x)",
                             {{"x", MakeBFloat16({1, 3, 1, 1}, {1, 2, 3})}}, 13),
                     MakeBFloat16({1, 3, 1, 1}, {1.0f / 6, 2.0f / 15, 3.0f / 14}), 1e-2);
  // A size far beyond the channels only clamps the window (alpha / size then vanishes).
  EXPECT_TENSOR(RunNode("y = LRN <size = 4611686018427387904> (x)", {{"x", MakeHalf({1, 3, 1, 1}, {1, 2, 3})}}, 13),
                MakeHalf({1, 3, 1, 1}, {1, 2, 3}));
}

TEST(LrnKernel, RefusesInvalidInputs) {
  const Tensor x = MakeTensor<float>({1, 3, 1, 1}, {1, 2, 3});
  EXPECT_THAT(NodeError("y = LRN (x)", {{"x", x}}, 13), AllOf(HasSubstr("node 'y' (LRN)"), HasSubstr("size (required)")));
  EXPECT_THAT(NodeError("y = LRN <size = 0> (x)", {{"x", x}}, 13), HasSubstr("size (required) must be a positive"));
  EXPECT_THAT(NodeError("y = LRN <size = 3> (x)", {{"x", MakeTensor<float>({3}, {1, 2, 3})}}, 13), HasSubstr("rank >= 2"));
  EXPECT_THAT(NodeError("y = LRN <size = 3> (x)", {{"x", MakeTensor<std::int32_t>({1, 3}, {1, 2, 3})}}, 13),
              HasSubstr("X has element type INT32, expected a float type"));
}

// ---------------------------------------------------------------------------------
// MeanVarianceNormalization

TEST(MeanVarianceNormalizationKernel, NormalizesPerChannelByDefault) {
  // Channel 0: [1, 3] -> mean 2, std 1 -> [-1, 1]; channel 1: [2, 2] -> std 0 -> 0 / 1e-9.
  const Tensor x = MakeTensor<float>({1, 2, 1, 2}, {1, 3, 2, 2});
  EXPECT_TENSOR(RunNode("y = MeanVarianceNormalization (x)", {{"x", x}}, 13),
                MakeTensor<float>({1, 2, 1, 2}, {-1, 1, 0, 0}));
  // Over every axis: mean 2, variance 0.5.
  const float s = static_cast<float>(1 / std::sqrt(0.5));
  EXPECT_TENSOR(RunNode("y = MeanVarianceNormalization <axes = [0, 1, 2, 3]> (x)", {{"x", x}}, 9),
                MakeTensor<float>({1, 2, 1, 2}, {-s, s, 0, 0}));
  // Negative axes, any rank: per row of a matrix.
  EXPECT_TENSOR(RunNode("y = MeanVarianceNormalization <axes = [-1]> (x)", {{"x", MakeTensor<double>({2, 2}, {0, 4, 5, 5})}}, 13),
                MakeTensor<double>({2, 2}, {-1, 1, 0, 0}));
}

TEST(MeanVarianceNormalizationKernel, RefusesInvalidAxes) {
  const Tensor x = MakeTensor<float>({2, 2}, {1, 2, 3, 4});
  EXPECT_THAT(NodeError("y = MeanVarianceNormalization (x)", {{"x", x}}, 13),
              AllOf(HasSubstr("node 'y' (MeanVarianceNormalization)"), HasSubstr("axes 2 is out of range for rank 2")));
  EXPECT_THAT(NodeError("y = MeanVarianceNormalization <axes = [1, -1]> (x)", {{"x", x}}, 13), HasSubstr("twice"));
}

// ---------------------------------------------------------------------------------
// MaxUnpool

TEST(MaxUnpoolKernel, ScattersToTheIndices) {
  // Unpooling a 2 x 2 MaxPool (kernel 2, stride 2) of a 4 x 4 image: (2 - 1) * 2 + 2 = 4.
  Inputs in = {{"x", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
               {"i", MakeTensor<std::int64_t>({1, 1, 2, 2}, {0, 3, 9, 14})}};
  std::vector<float> expected(16, 0);
  expected[0] = 1, expected[3] = 2, expected[9] = 3, expected[14] = 4;
  EXPECT_TENSOR(RunNode("y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i)", in, 11),
                MakeTensor<float>({1, 1, 4, 4}, expected));
  // A larger output_shape: the 4 x 4 unpooled image sits in its top-left corner (the
  // indices still address 4 x 4: 9 = (2, 1) and 14 = (3, 2) land at 11 and 17 of 5 x 5).
  in.emplace_back("shape", MakeTensor<std::int64_t>({4}, {1, 1, 5, 5}));
  std::vector<float> bigger(25, 0);
  bigger[0] = 1, bigger[3] = 2, bigger[11] = 3, bigger[17] = 4;
  EXPECT_TENSOR(RunNode("y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i, shape)", in, 22),
                MakeTensor<float>({1, 1, 5, 5}, bigger));
  // Pads shrink the inferred shape: 4 - 1 - 0 = 3; float16 moves bits unchanged.
  in = {{"x", MakeHalf({1, 1, 2, 2}, {1, 2, 3, 4})}, {"i", MakeTensor<std::int64_t>({1, 1, 2, 2}, {0, 1, 2, 8})}};
  EXPECT_TENSOR(RunNode("y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2], pads = [1, 1, 0, 0]> (x, i)", in, 9),
                MakeHalf({1, 1, 3, 3}, {1, 2, 3, 0, 0, 0, 0, 0, 4}));
}

TEST(MaxUnpoolKernel, RefusesInvalidInputs) {
  Inputs in = {{"x", MakeTensor<float>({1, 1, 2, 2}, {1, 2, 3, 4})},
               {"i", MakeTensor<std::int64_t>({1, 1, 2, 2}, {0, 3, 9, 16})}};
  const std::string node = "y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i)";
  EXPECT_THAT(NodeError(node, in, 11),
              AllOf(HasSubstr("node 'y' (MaxUnpool)"), HasSubstr("I[3] = 16 is out of range for the unpooled shape [1,1,4,4]")));
  in[1].second = MakeTensor<std::int64_t>({1, 1, 2, 2}, {0, -1, 9, 1});
  EXPECT_THAT(NodeError(node, in, 11), HasSubstr("I[1] = -1 is out of range"));
  in[1].second = MakeTensor<std::int32_t>({1, 1, 2, 2}, {0, 1, 2, 3});
  EXPECT_THAT(NodeError(node, in, 11), HasSubstr("I must be an int64 tensor of X's shape"));
  in[1].second = MakeTensor<std::int64_t>({1, 1, 2, 2}, {0, 1, 2, 3});
  EXPECT_THAT(NodeError("y = MaxUnpool (x, i)", in, 11), HasSubstr("kernel_shape (required)"));
  EXPECT_THAT(NodeError("y = MaxUnpool <kernel_shape = [2, 2], strides = [0, 2]> (x, i)", in, 11),
              HasSubstr("attribute strides [0,2] has a value below 1"));
  EXPECT_THAT(NodeError("y = MaxUnpool <kernel_shape = [2, 2], pads = [3, 0, 3, 0]> (x, i)", in, 11),
              HasSubstr("exceed the unpooled size along axis 2"));
  EXPECT_THAT(NodeError("y = MaxUnpool <kernel_shape = [2, 2], strides = [9223372036854775807, 1]> (x, i)", in, 11),
              HasSubstr("overflows"));
  in.emplace_back("shape", MakeTensor<std::int64_t>({2}, {4, 4}));
  const std::string with_shape = "y = MaxUnpool <kernel_shape = [2, 2], strides = [2, 2]> (x, i, shape)";
  EXPECT_THAT(NodeError(with_shape, in, 11), HasSubstr("output_shape [4,4] must have X's batch and channels"));
  in[2].second = MakeTensor<std::int64_t>({4}, {1, 1, 3, 5});
  EXPECT_THAT(NodeError(with_shape, in, 11), HasSubstr("hold the unpooled shape [1,1,4,4]"));
}

// ---------------------------------------------------------------------------------
// Col2Im

TEST(Col2ImKernel, SumsOverlappingBlocks) {
  // 2 x 2 blocks on a 3 x 3 image (stride 1): 4 blocks; ones count the overlaps.
  Inputs in = {{"x", MakeTensor<float>({1, 4, 4}, std::vector<float>(16, 1))},
               {"image", MakeTensor<std::int64_t>({2}, {3, 3})},
               {"block", MakeTensor<std::int64_t>({2}, {2, 2})}};
  EXPECT_TENSOR(RunNode("y = Col2Im (x, image, block)", in, 18),
                MakeTensor<float>({1, 1, 3, 3}, {1, 2, 1, 2, 4, 2, 1, 2, 1}));
  in[0].second = MakeTensor<std::int32_t>({1, 4, 4}, std::vector<std::int32_t>(16, 1));
  EXPECT_TENSOR(RunNode("y = Col2Im (x, image, block)", in, 18),
                MakeTensor<std::int32_t>({1, 1, 3, 3}, {1, 2, 1, 2, 4, 2, 1, 2, 1}));
}

TEST(Col2ImKernel, EmptyInputIsNotLoopedOver) {
  // An input [1, 0, L] holds nothing, but its 2^20 + 1 blocks of 2^20 taps were visited
  // one pair at a time (2^40 steps).
  Inputs in = {{"x", Tensor(TensorProto::FLOAT, {1, 0, (std::int64_t{1} << 20) + 1})},
               {"image", MakeTensor<std::int64_t>({1}, {std::int64_t{1} << 21})},
               {"block", MakeTensor<std::int64_t>({1}, {std::int64_t{1} << 20})}};
  EXPECT_EQ(RunNode("y = Col2Im (x, image, block)", in, 18).shape(),
            (std::vector<std::int64_t>{1, 0, std::int64_t{1} << 21}));
}

TEST(Col2ImKernel, StridesPadsAndDilations) {
  // Stride 2 tiles a 4-wide row with 2 blocks of 2: column k of the input is block k.
  Inputs in = {{"x", MakeTensor<float>({1, 2, 2}, {1, 3, 2, 4})},
               {"image", MakeTensor<std::int64_t>({2}, {1, 4})},
               {"block", MakeTensor<std::int64_t>({2}, {1, 2})}};
  EXPECT_TENSOR(RunNode("y = Col2Im <strides = [1, 2]> (x, image, block)", in, 18),
                MakeTensor<float>({1, 1, 1, 4}, {1, 2, 3, 4}));
  // Pads 1 on each side of a 2-wide row with 1-blocks: 4 positions, the outer two dropped.
  in = {{"x", MakeTensor<float>({1, 1, 4}, {9, 1, 2, 9})},
        {"image", MakeTensor<std::int64_t>({2}, {1, 2})},
        {"block", MakeTensor<std::int64_t>({2}, {1, 1})}};
  EXPECT_TENSOR(RunNode("y = Col2Im <pads = [0, 1, 0, 1]> (x, image, block)", in, 18), MakeTensor<float>({1, 1, 1, 2}, {1, 2}));
  // Dilation 2: a block of 2 covers pixels 0 and 2 of a 3-wide row: one position.
  in = {{"x", MakeTensor<float>({1, 2, 1}, {5, 7})},
        {"image", MakeTensor<std::int64_t>({2}, {1, 3})},
        {"block", MakeTensor<std::int64_t>({2}, {1, 2})}};
  EXPECT_TENSOR(RunNode("y = Col2Im <dilations = [1, 2]> (x, image, block)", in, 18), MakeTensor<float>({1, 1, 1, 3}, {5, 0, 7}));
}

TEST(Col2ImKernel, RefusesInvalidInputs) {
  Inputs in = {{"x", MakeTensor<float>({1, 4, 3}, std::vector<float>(12, 1))},
               {"image", MakeTensor<std::int64_t>({2}, {3, 3})},
               {"block", MakeTensor<std::int64_t>({2}, {2, 2})}};
  EXPECT_THAT(NodeError("y = Col2Im (x, image, block)", in, 18),
              AllOf(HasSubstr("node 'y' (Col2Im)"), HasSubstr("holds [2,2] blocks, but the input has L = 3")));
  in[2].second = MakeTensor<std::int64_t>({2}, {0, 2});
  EXPECT_THAT(NodeError("y = Col2Im (x, image, block)", in, 18), HasSubstr("block_shape [0,2] must be positive"));
  in[2].second = MakeTensor<std::int64_t>({2}, {3, 1});
  EXPECT_THAT(NodeError("y = Col2Im (x, image, block)", in, 18), HasSubstr("not a multiple of prod(block_shape) = 3"));
  in[2].second = MakeTensor<std::int64_t>({3}, {2, 2, 1});
  EXPECT_THAT(NodeError("y = Col2Im (x, image, block)", in, 18), HasSubstr("must have the same number of values"));
  in[2].second = MakeTensor<std::int64_t>({2}, {2, 2});
  EXPECT_THAT(NodeError("y = Col2Im <strides = [1]> (x, image, block)", in, 18), HasSubstr("attribute strides has 1 values"));
  in[0].second = MakeTensor<bool>({1, 4, 3}, std::vector<bool>(12, true));
  EXPECT_THAT(NodeError("y = Col2Im (x, image, block)", in, 18), HasSubstr("expected a numeric type"));
}

// ---------------------------------------------------------------------------------
// CenterCropPad

TEST(CenterCropPadKernel, CropsAndPadsAroundTheCenter) {
  const Tensor x = Iota<float>({3, 4});
  // Rows 3 -> 2: start (3 - 2) / 2 = 0. Columns 4 -> 7: 1 zero on the left, 2 on the right.
  EXPECT_TENSOR(RunNode("y = CenterCropPad (x, shape)", {{"x", x}, {"shape", MakeTensor<std::int64_t>({2}, {2, 7})}}, 18),
                MakeTensor<float>({2, 7}, {0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6, 7, 0, 0}));
  // Only the last axis, int32 shape: 4 -> 1 keeps column (4 - 1) / 2 = 1.
  EXPECT_TENSOR(RunNode("y = CenterCropPad <axes = [-1]> (x, shape)",
                        {{"x", x}, {"shape", MakeTensor<std::int32_t>({1}, {1})}}, 18),
                MakeTensor<float>({3, 1}, {1, 5, 9}));
  // Strings pad with empty strings.
  EXPECT_TENSOR(RunNode("y = CenterCropPad (x, shape)",
                        {{"x", MakeTensor<std::string>({2}, {"a", "b"})}, {"shape", MakeTensor<std::int64_t>({1}, {3})}}, 18),
                MakeTensor<std::string>({3}, {"a", "b", ""}));
  // An empty target gives an empty tensor.
  EXPECT_TENSOR(RunNode("y = CenterCropPad (x, shape)", {{"x", x}, {"shape", MakeTensor<std::int64_t>({2}, {0, 4})}}, 18),
                MakeTensor<float>({0, 4}, {}));
}

TEST(CenterCropPadKernel, RefusesInvalidInputs) {
  const Tensor x = Iota<float>({3, 4});
  auto error = [&](const std::string& node, Tensor shape) { return NodeError(node, {{"x", x}, {"shape", shape}}, 18); };
  EXPECT_THAT(error("y = CenterCropPad (x, shape)", MakeTensor<std::int64_t>({1}, {2})),
              AllOf(HasSubstr("node 'y' (CenterCropPad)"), HasSubstr("must have one value per axis (2)")));
  EXPECT_THAT(error("y = CenterCropPad (x, shape)", MakeTensor<std::int64_t>({2}, {2, -1})), HasSubstr("must not be negative"));
  EXPECT_THAT(error("y = CenterCropPad <axes = [0, -2]> (x, shape)", MakeTensor<std::int64_t>({2}, {2, 2})), HasSubstr("twice"));
  EXPECT_THAT(error("y = CenterCropPad <axes = [2]> (x, shape)", MakeTensor<std::int64_t>({1}, {2})), HasSubstr("out of range"));
  EXPECT_THAT(error("y = CenterCropPad (x, shape)", MakeTensor<float>({2}, {2, 2})), HasSubstr("1-D int32 or int64"));
}

// ---------------------------------------------------------------------------------
// DeformConv

TEST(DeformConvKernel, ZeroOffsetsAreAConvolution) {
  // 3 x 3 image 0..8, 2 x 2 kernel of ones: window sums 8, 12, 20, 24 (+ bias 1).
  Inputs in = {{"x", Iota<float>({1, 1, 3, 3})},
               {"w", MakeTensor<float>({1, 1, 2, 2}, {1, 1, 1, 1})},
               {"offset", MakeTensor<float>({1, 8, 2, 2}, std::vector<float>(32, 0))},
               {"b", MakeTensor<float>({1}, {1})}};
  EXPECT_TENSOR(RunNode("y = DeformConv (x, w, offset, b)", in, 19), MakeTensor<float>({1, 1, 2, 2}, {9, 13, 21, 25}));
}

TEST(DeformConvKernel, OffsetsSampleBilinearlyAndMaskScales) {
  // One row [1, 2, 3], 1 x 1 kernel, every tap shifted by (dy, dx) = (0, 0.5): samples at
  // 0.5, 1.5 and 2.5, the last half outside -> 1.5, 2.5, 1.5.
  Inputs in = {{"x", MakeTensor<float>({1, 1, 1, 3}, {1, 2, 3})},
               {"w", MakeTensor<float>({1, 1, 1, 1}, {1})},
               {"offset", MakeTensor<float>({1, 2, 1, 3}, {0, 0, 0, 0.5f, 0.5f, 0.5f})}};
  EXPECT_TENSOR(RunNode("y = DeformConv (x, w, offset)", in, 19), MakeTensor<float>({1, 1, 1, 3}, {1.5f, 2.5f, 1.5f}));
  in.emplace_back("b", MakeTensor<float>({1}, {0}));
  in.emplace_back("mask", MakeTensor<float>({1, 1, 1, 3}, {1, 0.5f, 0}));
  EXPECT_TENSOR(RunNode("y = DeformConv (x, w, offset, b, mask)", in, 22), MakeTensor<float>({1, 1, 1, 3}, {1.5f, 1.25f, 0}));
  // The same without bias, in double.
  in = {{"x", MakeTensor<double>({1, 1, 1, 3}, {1, 2, 3})},
        {"w", MakeTensor<double>({1, 1, 1, 1}, {2})},
        {"offset", MakeTensor<double>({1, 2, 1, 3}, {0, 0, 0, -1, -1, -1})}};
  EXPECT_TENSOR(RunNode("y = DeformConv (x, w, offset)", in, 19), MakeTensor<double>({1, 1, 1, 3}, {0, 2, 4}));
}

TEST(DeformConvKernel, GroupsAndOffsetGroups) {
  // Two channels in two groups, two offset groups: channel 0 shifted by +1, channel 1 not.
  Inputs in = {{"x", MakeTensor<float>({1, 2, 1, 2}, {1, 2, 10, 20})},
               {"w", MakeTensor<float>({2, 1, 1, 1}, {1, 1})},
               {"offset", MakeTensor<float>({1, 4, 1, 2}, {0, 0, 1, 1, 0, 0, 0, 0})}};
  EXPECT_TENSOR(RunNode("y = DeformConv <group = 2, offset_group = 2> (x, w, offset)", in, 19),
                MakeTensor<float>({1, 2, 1, 2}, {2, 0, 10, 20}));
}

TEST(DeformConvKernel, RefusesInvalidInputs) {
  Inputs in = {{"x", Iota<float>({1, 2, 3, 3})},
               {"w", MakeTensor<float>({1, 2, 2, 2}, std::vector<float>(8, 1))},
               {"offset", MakeTensor<float>({1, 8, 2, 2}, std::vector<float>(32, 0))}};
  EXPECT_NO_THROW(RunNode("y = DeformConv (x, w, offset)", in, 19));
  EXPECT_THAT(NodeError("y = DeformConv <offset_group = 3> (x, w, offset)", in, 19),
              AllOf(HasSubstr("node 'y' (DeformConv)"), HasSubstr("not divisible by offset_group 3")));
  EXPECT_THAT(NodeError("y = DeformConv <group = 2> (x, w, offset)", in, 19), HasSubstr("does not match 2 input channels"));
  EXPECT_THAT(NodeError("y = DeformConv <pads = [-1, 0, 0, 0]> (x, w, offset)", in, 19), HasSubstr("has a value below 0"));
  in[2].second = MakeTensor<float>({1, 4, 2, 2}, std::vector<float>(16, 0));
  EXPECT_THAT(NodeError("y = DeformConv (x, w, offset)", in, 19), HasSubstr("offset [1,4,2,2] must be [1,8,2,2]"));
  in[2].second = MakeTensor<float>({1, 8, 2, 2}, std::vector<float>(32, 0));
  in.emplace_back("b", MakeTensor<float>({2}, {0, 0}));
  EXPECT_THAT(NodeError("y = DeformConv (x, w, offset, b)", in, 19), HasSubstr("B must be [1]"));
  in[3].second = MakeTensor<float>({1}, {0});
  in.emplace_back("mask", MakeTensor<float>({1, 8, 2, 2}, std::vector<float>(32, 1)));
  EXPECT_THAT(NodeError("y = DeformConv (x, w, offset, b, mask)", in, 19), HasSubstr("mask [1,8,2,2] must be [1,4,2,2]"));
  EXPECT_THAT(NodeError("y = DeformConv <strides = [1, 1], kernel_shape = [3, 3]> (x, w, offset, b, mask)", in, 19),
              HasSubstr("kernel_shape [3,3] differs from W's [2,2]"));
  // No channels: any offset_group divides 0, its product with the kernel must not overflow.
  Inputs empty = {{"x", MakeTensor<float>({1, 0, 3, 3}, {})},
                  {"w", MakeTensor<float>({0, 0, 2, 2}, {})},
                  {"offset", MakeTensor<float>({1, 8, 2, 2}, std::vector<float>(32, 0))}};
  EXPECT_THAT(NodeError("y = DeformConv <offset_group = 4611686018427387904> (x, w, offset)", empty, 19),
              HasSubstr("offset_group * kernel size overflows"));
  EXPECT_TENSOR(RunNode("y = DeformConv (x, w, offset)", empty, 19), MakeTensor<float>({1, 0, 2, 2}, {}));
}

}  // namespace
}  // namespace onnxopt::testing
