// Tests of vision_kernels.cc: NonMaxSuppression, RoiAlign, MaxRoiPool, GridSample,
// AffineGrid. Expected values are worked out by hand from the spec's definitions (the
// inputs are chosen so that they are: linear images, which bilinear sampling reproduces
// exactly, and grid points on pixel centers).

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "onnx_core/eval/work_budget.h"
#include "tests/onnx_extensions/kernels/vision_test_util.h"

namespace onnxopt::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int kInt64 = TensorProto::INT64;

// ---------------------------------------------------------------------------------
// NonMaxSuppression

// The example of the spec: three boxes overlap, two are far apart.
Inputs SpecBoxes(float score_threshold) {
  return {{"boxes", MakeTensor<float>({1, 6, 4}, {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 0, -0.1f, 1, 0.9f,
                                                  0, 10, 1, 11, 0, 10.1f, 1, 11.1f, 0, 100, 1, 101})},
          {"scores", MakeTensor<float>({1, 1, 6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f})},
          {"max", MakeTensor<std::int64_t>({1}, {3})},
          {"iou", MakeTensor<float>({1}, {0.5f})},
          {"score", MakeTensor<float>({1}, {score_threshold})}};
}

TEST(NonMaxSuppressionKernel, SuppressesByIouInScoreOrder) {
  auto y = RunNode("y = NonMaxSuppression (boxes, scores, max, iou, score)", SpecBoxes(0), 11, kInt64);
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({3, 3}, {0, 0, 3, 0, 0, 0, 0, 0, 5}));
}

TEST(NonMaxSuppressionKernel, ChargesItsBoxComparisonsFirst) {
  // 10 classes of 100 boxes, up to 50 kept per class: each box is compared with at most
  // 50 kept ones, 10 * 100 * 50 steps.
  Inputs in = {{"boxes", MakeTensor<float>({1, 100, 4}, std::vector<float>(400, 0))},
               {"scores", MakeTensor<float>({1, 10, 100}, std::vector<float>(1000, 1))},
               {"max", MakeTensor<std::int64_t>({1}, {50})}};
  const std::string node = "y = NonMaxSuppression (boxes, scores, max)";
  core::eval::WorkBudget enough(50000, "the test's budget");
  {
    const core::eval::ScopedWorkBudget scope(enough);
    // Boxes without area never overlap: 50 kept per class.
    EXPECT_EQ(RunNode(node, in, 11, kInt64).shape(), (std::vector<std::int64_t>{500, 3}));
  }
  EXPECT_EQ(enough.spent(), 50000u);
  core::eval::WorkBudget small(10000, "the test's budget");
  const core::eval::ScopedWorkBudget scope(small);
  EXPECT_THAT(NodeError(node, in, 11), HasSubstr("NonMaxSuppression's box comparisons"));
}

TEST(NonMaxSuppressionKernel, KeepsScoresEqualToTheThreshold) {
  // "Boxes with score less than score_threshold are removed": 0.3 stays at 0.3.
  Inputs in = SpecBoxes(0.3f);
  in[2].second = MakeTensor<std::int64_t>({1}, {10});
  auto y = RunNode("y = NonMaxSuppression (boxes, scores, max, iou, score)", in, 11, kInt64);
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({3, 3}, {0, 0, 3, 0, 0, 0, 0, 0, 5}));
  in[4].second = MakeTensor<float>({1}, {0.31f});
  y = RunNode("y = NonMaxSuppression (boxes, scores, max, iou, score)", in, 11, kInt64);
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({2, 3}, {0, 0, 3, 0, 0, 0}));
}

TEST(NonMaxSuppressionKernel, KeepsIouEqualToTheThreshold) {
  // Box 1 covers half of box 0: IoU = 0.5, not strictly above 0.5.
  Inputs in = {{"boxes", MakeTensor<float>({1, 2, 4}, {0, 0, 1, 1, 0, 0, 1, 0.5f})},
               {"scores", MakeTensor<float>({1, 1, 2}, {0.9f, 0.8f})},
               {"max", MakeTensor<std::int64_t>({}, {5})},
               {"iou", MakeTensor<float>({}, {0.5f})}};
  EXPECT_TENSOR(RunNode("y = NonMaxSuppression (boxes, scores, max, iou)", in, 10, kInt64),
                MakeTensor<std::int64_t>({2, 3}, {0, 0, 0, 0, 0, 1}));
  in[3].second = MakeTensor<float>({}, {0.49f});
  EXPECT_TENSOR(RunNode("y = NonMaxSuppression (boxes, scores, max, iou)", in, 10, kInt64),
                MakeTensor<std::int64_t>({1, 3}, {0, 0, 0}));
}

TEST(NonMaxSuppressionKernel, CenterPointFormatAndClassesAndBatches) {
  // [x_center, y_center, width, height]: boxes 0 and 1 coincide, box 2 is apart.
  Inputs in = {{"boxes", MakeTensor<float>({2, 3, 4}, {0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 5, 5, 1, 1,
                                                      0.5f, 0.5f, 1, 1, 0.5f, 0.5f, 1, 1, 5, 5, 1, 1})},
               {"scores", MakeTensor<float>({2, 2, 3}, {0.1f, 0.2f, 0.3f, 0.3f, 0.2f, 0.1f,
                                                        0.1f, 0.2f, 0.3f, 0.3f, 0.2f, 0.1f})},
               {"max", MakeTensor<std::int64_t>({1}, {2})}};
  auto y = RunNode("y = NonMaxSuppression <center_point_box = 1> (boxes, scores, max)", in, 11, kInt64);
  EXPECT_TENSOR(y, MakeTensor<std::int64_t>({8, 3}, {0, 0, 2, 0, 0, 1, 0, 1, 0, 0, 1, 2,
                                                      1, 0, 2, 1, 0, 1, 1, 1, 0, 1, 1, 2}));
}

TEST(NonMaxSuppressionKernel, NoMaximumMeansNoOutput) {
  Inputs in = SpecBoxes(0);
  EXPECT_TENSOR(RunNode("y = NonMaxSuppression (boxes, scores)", {in[0], in[1]}, 11, kInt64),
                MakeTensor<std::int64_t>({0, 3}, {}));
  in[2].second = MakeTensor<std::int64_t>({1}, {-4});
  EXPECT_TENSOR(RunNode("y = NonMaxSuppression (boxes, scores, max)", {in[0], in[1], in[2]}, 11, kInt64),
                MakeTensor<std::int64_t>({0, 3}, {}));
}

TEST(NonMaxSuppressionKernel, RefusesInvalidInputs) {
  const Inputs good = SpecBoxes(0);
  const std::string node = "y = NonMaxSuppression (boxes, scores, max, iou, score)";
  auto with = [&](std::size_t i, Tensor t) {
    Inputs in = good;
    in[i].second = std::move(t);
    return NodeError(node, in, 11);
  };
  EXPECT_THAT(with(0, MakeTensor<float>({6, 4}, std::vector<float>(24))),
              AllOf(HasSubstr("node 'y' (NonMaxSuppression)"), HasSubstr("boxes must have rank 3")));
  EXPECT_THAT(with(0, MakeTensor<float>({1, 6, 3}, std::vector<float>(18))), HasSubstr("[batches, boxes, 4]"));
  EXPECT_THAT(with(1, MakeTensor<float>({1, 1, 5}, std::vector<float>(5))), HasSubstr("[batches, classes, boxes]"));
  EXPECT_THAT(with(2, MakeTensor<std::int32_t>({1}, {3})), HasSubstr("max_output_boxes_per_class has element type"));
  EXPECT_THAT(with(2, MakeTensor<std::int64_t>({2}, {3, 3})), HasSubstr("must hold one value"));
  EXPECT_THAT(with(3, MakeTensor<float>({1}, {1.5f})), HasSubstr("iou_threshold must be in [0, 1]"));
  EXPECT_THAT(with(3, MakeTensor<float>({1}, {std::numeric_limits<float>::quiet_NaN()})),
              HasSubstr("iou_threshold must be in [0, 1]"));
  EXPECT_THAT(NodeError("y = NonMaxSuppression <center_point_box = 2> (boxes, scores, max, iou, score)", good, 11),
              HasSubstr("center_point_box must be 0 or 1"));
  EXPECT_THAT(with(0, MakeTensor<double>({1, 6, 4}, std::vector<double>(24))), HasSubstr("must be float tensors"));
}

// ---------------------------------------------------------------------------------
// RoiAlign. X[h, w] = 4h + w: bilinear samples of it are exact.

Inputs RoiInputs(std::vector<float> roi) {
  return {{"x", Iota<float>({1, 1, 4, 4})},
          {"rois", MakeTensor<float>({1, 4}, std::move(roi))},
          {"idx", MakeTensor<std::int64_t>({1}, {0})}};
}

TEST(RoiAlignKernel, AveragesSamplesWithTheVersionsCoordinateShift) {
  // ROI [0, 0, 3, 3], one bin, 2 x 2 samples. Version 10 (no shift): samples at 0.75 and
  // 2.25, mean position 1.5 -> 4 * 1.5 + 1.5 = 7.5. Version 16 half_pixel (-0.5): samples
  // at 0.25 and 1.75, mean 1 -> 5.
  const std::string node = "y = RoiAlign <sampling_ratio = 2> (x, rois, idx)";
  EXPECT_TENSOR(RunNode(node, RoiInputs({0, 0, 3, 3}), 10), MakeTensor<float>({1, 1, 1, 1}, {7.5f}));
  EXPECT_TENSOR(RunNode(node, RoiInputs({0, 0, 3, 3}), 16), MakeTensor<float>({1, 1, 1, 1}, {5.0f}));
  EXPECT_TENSOR(RunNode("y = RoiAlign <sampling_ratio = 2, coordinate_transformation_mode = \"output_half_pixel\"> "
                        "(x, rois, idx)",
                        RoiInputs({0, 0, 3, 3}), 16),
                MakeTensor<float>({1, 1, 1, 1}, {7.5f}));
}

TEST(RoiAlignKernel, BinsAndAdaptiveSampling) {
  // ROI [0, 0, 2, 2] in 2 x 2 bins of size 1, sampling_ratio 0 -> ceil(2 / 2) = 1 sample
  // at each bin center: (0.5, 0.5), (0.5, 1.5), (1.5, 0.5), (1.5, 1.5) (no shift in v10).
  auto y = RunNode("y = RoiAlign <output_height = 2, output_width = 2> (x, rois, idx)", RoiInputs({0, 0, 2, 2}), 10);
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 2, 2}, {2.5f, 3.5f, 6.5f, 7.5f}));
}

TEST(RoiAlignKernel, MaxTakesTheLargestInterpolatedSample) {
  // Samples at 0.25 and 1.75 (half_pixel): the largest is 4 * 1.75 + 1.75 = 8.75.
  auto y = RunNode("y = RoiAlign <sampling_ratio = 2, mode = \"max\"> (x, rois, idx)", RoiInputs({0, 0, 3, 3}), 16);
  EXPECT_TENSOR(y, MakeTensor<float>({1, 1, 1, 1}, {8.75f}));
}

TEST(RoiAlignKernel, SamplesOutsideTheMapAreZeroAndScaleApplies) {
  EXPECT_TENSOR(RunNode("y = RoiAlign <sampling_ratio = 1> (x, rois, idx)", RoiInputs({20, 20, 24, 24}), 16),
                MakeTensor<float>({1, 1, 1, 1}, {0.0f}));
  // spatial_scale 0.5 maps [0, 0, 6, 6] to [0, 0, 3, 3].
  EXPECT_TENSOR(RunNode("y = RoiAlign <sampling_ratio = 2, spatial_scale = 0.5> (x, rois, idx)",
                        RoiInputs({0, 0, 6, 6}), 10),
                MakeTensor<float>({1, 1, 1, 1}, {7.5f}));
}

TEST(RoiAlignKernel, Float16AndDouble) {
  Inputs in = RoiInputs({0, 0, 3, 3});
  in[0].second = MakeHalf({1, 1, 4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  in[1].second = MakeHalf({1, 4}, {0, 0, 3, 3});
  EXPECT_TENSOR(RunNode("y = RoiAlign <sampling_ratio = 2> (x, rois, idx)", in, 16), MakeHalf({1, 1, 1, 1}, {5.0f}));
  in[0].second = Iota<double>({1, 1, 4, 4});
  in[1].second = MakeTensor<double>({1, 4}, {0, 0, 3, 3});
  EXPECT_TENSOR(RunNode("y = RoiAlign <sampling_ratio = 2> (x, rois, idx)", in, 16),
                MakeTensor<double>({1, 1, 1, 1}, {5.0}));
}

TEST(RoiAlignKernel, RefusesInvalidInputs) {
  const std::string node = "y = RoiAlign (x, rois, idx)";
  Inputs in = RoiInputs({0, 0, 3, 3});
  in[2].second = MakeTensor<std::int64_t>({1}, {1});
  EXPECT_THAT(NodeError(node, in, 16),
              AllOf(HasSubstr("node 'y' (RoiAlign)"), HasSubstr("batch_indices[0] = 1 is out of range for 1 images")));
  in = RoiInputs({0, 0, 3, 3});
  in[1].second = MakeTensor<float>({1, 5}, {0, 0, 0, 3, 3});
  EXPECT_THAT(NodeError(node, in, 16), HasSubstr("must be [num_rois, 4] and [num_rois]"));
  in = RoiInputs({0, 0, 3, 3});
  in[2].second = MakeTensor<std::int32_t>({1}, {0});
  EXPECT_THAT(NodeError(node, in, 16), HasSubstr("batch_indices must be int64"));
  in = RoiInputs({0, 0, 3, 3});
  EXPECT_THAT(NodeError("y = RoiAlign <mode = \"min\"> (x, rois, idx)", in, 16), HasSubstr("mode must be 'avg' or 'max'"));
  EXPECT_THAT(NodeError("y = RoiAlign <coordinate_transformation_mode = \"asymmetric\"> (x, rois, idx)", in, 16),
              HasSubstr("coordinate_transformation_mode must be"));
  EXPECT_THAT(NodeError("y = RoiAlign <sampling_ratio = -1> (x, rois, idx)", in, 16),
              HasSubstr("sampling_ratio must not be negative"));
  EXPECT_THAT(NodeError("y = RoiAlign <output_height = -1> (x, rois, idx)", in, 16),
              HasSubstr("output_height and output_width must not be negative"));
  // 10^6 x 10^6 samples per bin: refused before sampling, not run for hours.
  EXPECT_THAT(NodeError("y = RoiAlign <sampling_ratio = 1000000> (x, rois, idx)", in, 16),
              HasSubstr("RoiAlign's sampling grid: 1000000000000 steps"));
}

// ---------------------------------------------------------------------------------
// MaxRoiPool

TEST(MaxRoiPoolKernel, MaxOverRoundedBins) {
  // ROI [0, 0] to [3, 3]: 4 x 4 pixels in 2 x 2 bins of 2 x 2.
  Inputs in = {{"x", Iota<float>({1, 1, 4, 4})}, {"rois", MakeTensor<float>({2, 5}, {0, 0, 0, 3, 3, 0, 2, 2, 5, 5})}};
  auto y = RunNode("y = MaxRoiPool <pooled_shape = [2, 2]> (x, rois)", in, 1);
  // The second ROI starts at (2, 2) and runs off the map: only its first bin has pixels.
  EXPECT_TENSOR(y, MakeTensor<float>({2, 1, 2, 2}, {5, 7, 13, 15, 15, 0, 0, 0}));
  // spatial_scale 0.5 and rounding: [0.4, 0.4, 5.6, 5.6] -> round(0.2) = 0, round(2.8) = 3.
  in[1].second = MakeTensor<float>({1, 5}, {0, 0.4f, 0.4f, 5.6f, 5.6f});
  EXPECT_TENSOR(RunNode("y = MaxRoiPool <pooled_shape = [1, 1], spatial_scale = 0.5> (x, rois)", in, 22),
                MakeTensor<float>({1, 1, 1, 1}, {15}));
}

TEST(MaxRoiPoolKernel, RefusesInvalidInputs) {
  Inputs in = {{"x", Iota<float>({1, 1, 4, 4})}, {"rois", MakeTensor<float>({1, 5}, {1, 0, 0, 3, 3})}};
  EXPECT_THAT(NodeError("y = MaxRoiPool <pooled_shape = [2, 2]> (x, rois)", in, 1),
              AllOf(HasSubstr("node 'y' (MaxRoiPool)"), HasSubstr("rois[0] names batch 1")));
  in[1].second = MakeTensor<float>({1, 5}, {0, 0, std::numeric_limits<float>::quiet_NaN(), 3, 3});
  EXPECT_THAT(NodeError("y = MaxRoiPool <pooled_shape = [2, 2]> (x, rois)", in, 1), HasSubstr("non-finite"));
  in[1].second = MakeTensor<float>({1, 4}, {0, 0, 3, 3});
  EXPECT_THAT(NodeError("y = MaxRoiPool <pooled_shape = [2, 2]> (x, rois)", in, 1), HasSubstr("[num_rois, 5]"));
  in[1].second = MakeTensor<float>({1, 5}, {0, 0, 0, 3, 3});
  EXPECT_THAT(NodeError("y = MaxRoiPool <pooled_shape = [2, 0]> (x, rois)", in, 1), HasSubstr("pooled_shape"));
  EXPECT_THAT(NodeError("y = MaxRoiPool (x, rois)", in, 1), HasSubstr("pooled_shape"));
}

// ---------------------------------------------------------------------------------
// GridSample. X[h, w] = 2h + w on a 2 x 2 image.

Inputs GridInputs(std::vector<float> points) {
  const auto n = static_cast<std::int64_t>(points.size() / 2);
  return {{"x", Iota<float>({1, 1, 2, 2})}, {"grid", MakeTensor<float>({1, 1, n, 2}, std::move(points))}};
}

TEST(GridSampleKernel, BilinearWithAndWithoutAlignedCorners) {
  // align_corners = 1: -1 and 1 are the corner pixel centers; (0, 0) is (0.5, 0.5).
  EXPECT_TENSOR(RunNode("y = GridSample <align_corners = 1> (x, grid)", GridInputs({-1, -1, 1, 1, 0, 0, 1, -1}), 16),
                MakeTensor<float>({1, 1, 1, 4}, {0, 3, 1.5f, 1}));
  // align_corners = 0: (1, 1) is pixel coordinate 1.5, half outside: zeros padding gives
  // a quarter of X[1, 1], border and reflection the pixel itself.
  EXPECT_TENSOR(RunNode("y = GridSample (x, grid)", GridInputs({1, 1, 0, 0}), 16),
                MakeTensor<float>({1, 1, 1, 2}, {0.75f, 1.5f}));
  EXPECT_TENSOR(RunNode("y = GridSample <padding_mode = \"border\"> (x, grid)", GridInputs({1, 1}), 16),
                MakeTensor<float>({1, 1, 1, 1}, {3}));
  EXPECT_TENSOR(RunNode("y = GridSample <padding_mode = \"reflection\"> (x, grid)", GridInputs({1, 1}), 20),
                MakeTensor<float>({1, 1, 1, 1}, {3}));
}

TEST(GridSampleKernel, FarOutsidePointsFollowThePaddingMode) {
  // (5, -3) with align_corners = 1 is pixel (x, y) = (3, -1): zeros padding reads nothing,
  // border clamps to (1, 0), reflection over [0, 1] folds x = 3 to 1 (two reflections)
  // and y = -1 to 1 (one).
  EXPECT_TENSOR(RunNode("y = GridSample <align_corners = 1> (x, grid)", GridInputs({5, -3}), 16),
                MakeTensor<float>({1, 1, 1, 1}, {0}));
  EXPECT_TENSOR(RunNode("y = GridSample <align_corners = 1, padding_mode = \"border\"> (x, grid)", GridInputs({5, -3}), 16),
                MakeTensor<float>({1, 1, 1, 1}, {1}));
  EXPECT_TENSOR(
      RunNode("y = GridSample <align_corners = 1, padding_mode = \"reflection\"> (x, grid)", GridInputs({5, -3}), 16),
      MakeTensor<float>({1, 1, 1, 1}, {3}));
  // x = 1.5 (normalized 2) reflects to 0.5 on row 0.
  EXPECT_TENSOR(
      RunNode("y = GridSample <align_corners = 1, padding_mode = \"reflection\"> (x, grid)", GridInputs({2, -1}), 16),
      MakeTensor<float>({1, 1, 1, 1}, {0.5f}));
}

TEST(GridSampleKernel, NearestRoundsHalfToEven) {
  // align_corners = 0 on 4 pixels: normalized -0.5, 0, 0.5 are pixel coordinates 0.5,
  // 1.5, 2.5, which round to 0, 2, 2.
  Inputs in = {{"x", MakeTensor<float>({1, 1, 1, 4}, {10, 20, 30, 40})},
               {"grid", MakeTensor<float>({1, 1, 3, 2}, {-0.5f, 0, 0, 0, 0.5f, 0})}};
  EXPECT_TENSOR(RunNode("y = GridSample <mode = \"nearest\"> (x, grid)", in, 16),
                MakeTensor<float>({1, 1, 1, 3}, {10, 30, 30}));
}

TEST(GridSampleKernel, CubicUsesKeysWeights) {
  // Keys' weights sum to 1: with border padding a constant image stays constant.
  Inputs in = {{"x", MakeTensor<float>({1, 1, 2, 2}, {7, 7, 7, 7})},
               {"grid", MakeTensor<float>({1, 1, 3, 2}, {0.3f, -0.8f, 1, 1, -2, 0.5f})}};
  EXPECT_TENSOR(RunNode("y = GridSample <mode = \"bicubic\", padding_mode = \"border\"> (x, grid)", in, 16),
                MakeTensor<float>({1, 1, 1, 3}, {7, 7, 7}));
  // X = 0..7 along one row of 8; normalized 0.1 with align_corners = 1 is x = 3.85: taps
  // 2..5 with A = -0.75 weights (-0.0143438, 0.1420313, 0.9535938, -0.0812812) give
  // 3.805375 (A = -0.75 does not reproduce ramps); normalized -1/7 is pixel 3 exactly.
  in = {{"x", Iota<float>({1, 1, 1, 8})}, {"grid", MakeTensor<float>({1, 1, 2, 2}, {0.1f, 0, -1.0f / 7, 0})}};
  EXPECT_TENSOR_NEAR(RunNode("y = GridSample <mode = \"cubic\", align_corners = 1> (x, grid)", in, 20),
                     MakeTensor<float>({1, 1, 1, 2}, {3.805375f, 3}), 1e-5);
}

TEST(GridSampleKernel, VolumetricAndIntegerInputs) {
  // 3-D (opset 20): X[z, y, x] = 4z + 2y + x; the center is (0.5, 0.5, 0.5) -> 3.5.
  Inputs in = {{"x", Iota<float>({1, 1, 2, 2, 2})}, {"grid", MakeTensor<float>({1, 1, 1, 1, 3}, {0, 0, 0})}};
  EXPECT_TENSOR(RunNode("y = GridSample <align_corners = 1> (x, grid)", in, 20), MakeTensor<float>({1, 1, 1, 1, 1}, {3.5f}));
  // Integers are computed in floating point and truncated at the end: 1.5 -> 1.
  in = {{"x", Iota<std::int32_t>({1, 1, 2, 2})}, {"grid", MakeTensor<float>({1, 1, 1, 2}, {0, 0})}};
  EXPECT_TENSOR(RunNode("y = GridSample <align_corners = 1> (x, grid)", in, 20), MakeTensor<std::int32_t>({1, 1, 1, 1}, {1}));
}

TEST(GridSampleKernel, RefusesInvalidInputs) {
  const Inputs in = GridInputs({0, 0});
  EXPECT_THAT(NodeError("y = GridSample <mode = \"linear\"> (x, grid)", in, 16),
              AllOf(HasSubstr("node 'y' (GridSample)"), HasSubstr("mode 'linear' is not one of bilinear")));
  EXPECT_THAT(NodeError("y = GridSample <mode = \"bilinear\"> (x, grid)", in, 20),
              HasSubstr("mode 'bilinear' is not one of linear"));
  EXPECT_THAT(NodeError("y = GridSample <padding_mode = \"wrap\"> (x, grid)", in, 20), HasSubstr("padding_mode 'wrap'"));
  EXPECT_THAT(NodeError("y = GridSample (x, grid)", {in[0], {"grid", MakeTensor<float>({1, 1, 1, 3}, {0, 0, 0})}}, 20),
              HasSubstr("must be [N, D1_out, ..., Dr_out, r]"));
  EXPECT_THAT(NodeError("y = GridSample (x, grid)", {{"x", Iota<float>({1, 1, 2, 2, 2})},
                                                     {"grid", MakeTensor<float>({1, 1, 1, 1, 3}, {0, 0, 0})}},
                        16),
              HasSubstr("X must be 4-D before opset 20"));
  EXPECT_THAT(NodeError("y = GridSample (x, grid)", {{"x", MakeTensor<std::string>({1, 1, 1, 1}, {"a"})}, in[1]}, 20),
              HasSubstr("expected a numeric type or bool"));
  EXPECT_THAT(NodeError("y = GridSample (x, grid)", {in[0], {"grid", MakeTensor<std::int64_t>({1, 1, 1, 2}, {0, 0})}}, 20),
              HasSubstr("grid has element type INT64, expected a float type"));
}

// ---------------------------------------------------------------------------------
// AffineGrid

TEST(AffineGridKernel, IdentityGivesPixelCenters) {
  Inputs in = {{"theta", MakeTensor<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0})}, {"size", MakeTensor<std::int64_t>({4}, {1, 1, 2, 3})}};
  // W = 3: x = -2/3, 0, 2/3; H = 2: y = -1/2, 1/2; each point is (x, y).
  EXPECT_TENSOR(RunNode("y = AffineGrid (theta, size)", in, 20),
                MakeTensor<float>({1, 2, 3, 2}, {-2.0f / 3, -0.5f, 0, -0.5f, 2.0f / 3, -0.5f,
                                                 -2.0f / 3, 0.5f, 0, 0.5f, 2.0f / 3, 0.5f}));
  EXPECT_TENSOR(RunNode("y = AffineGrid <align_corners = 1> (theta, size)", in, 20),
                MakeTensor<float>({1, 2, 3, 2}, {-1, -1, 0, -1, 1, -1, -1, 1, 0, 1, 1, 1}));
}

TEST(AffineGridKernel, AppliesTheMatrixIn2DAnd3D) {
  // x' = x + 0.5, y' = 2y: with align_corners = 1 on 2 x 2, (x, y) in {-1, 1}^2.
  Inputs in = {{"theta", MakeTensor<double>({1, 2, 3}, {1, 0, 0.5, 0, 2, 0})}, {"size", MakeTensor<std::int64_t>({4}, {1, 3, 2, 2})}};
  EXPECT_TENSOR(RunNode("y = AffineGrid <align_corners = 1> (theta, size)", in, 20),
                MakeTensor<double>({1, 2, 2, 2}, {-0.5, -2, 1.5, -2, -0.5, 2, 1.5, 2}));
  // 3-D, D = H = 1 (the single position is 0), W = 2 (-1 and 1); theta swaps x and z.
  in = {{"theta", MakeTensor<float>({1, 3, 4}, {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 0})},
        {"size", MakeTensor<std::int64_t>({5}, {1, 1, 1, 1, 2})}};
  EXPECT_TENSOR(RunNode("y = AffineGrid <align_corners = 1> (theta, size)", in, 20),
                MakeTensor<float>({1, 1, 1, 2, 3}, {0, 0, -1, 0, 0, 1}));
}

TEST(AffineGridKernel, RefusesInvalidInputs) {
  const Tensor theta = MakeTensor<float>({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  auto error = [&](Tensor t, Tensor size) { return NodeError("y = AffineGrid (theta, size)", {{"theta", t}, {"size", size}}, 20); };
  EXPECT_THAT(error(theta, MakeTensor<std::int64_t>({3}, {1, 2, 2})),
              AllOf(HasSubstr("node 'y' (AffineGrid)"), HasSubstr("size must have 4 (2-D) or 5 (3-D) values")));
  EXPECT_THAT(error(theta, MakeTensor<std::int64_t>({5}, {1, 1, 2, 2, 2})), HasSubstr("must be [N, 3, 4]"));
  EXPECT_THAT(error(theta, MakeTensor<std::int64_t>({4}, {2, 1, 2, 2})), HasSubstr("differs from theta's batch"));
  EXPECT_THAT(error(theta, MakeTensor<std::int64_t>({4}, {1, 1, -2, 2})), HasSubstr("negative dimension"));
  EXPECT_THAT(error(theta, MakeTensor<std::int32_t>({4}, {1, 1, 2, 2})), HasSubstr("1-D int64"));
}

}  // namespace
}  // namespace onnxopt::testing
