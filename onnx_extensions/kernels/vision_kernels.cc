// Detection and sampling kernels: NonMaxSuppression, RoiAlign, MaxRoiPool, GridSample,
// AffineGrid.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "onnx_core/eval/kernel_registry.h"
#include "onnx_extensions/kernels/kernel_groups.h"
#include "onnx_extensions/kernels/kernel_helpers.h"
#include "onnx_extensions/kernels/nn_helpers.h"
#include "onnx_extensions/kernels/vision_helpers.h"

namespace onnxopt::onnx_kernels {
namespace {

using vision::FloatInput;
using vision::RequireRank;

// Coordinates beyond this magnitude are clamped before any conversion to an integer:
// they lie far outside every tensor (at most 2^32 elements), so the result is the same.
constexpr double kFarAway = 1099511627776.0;  // 2^40

// The single element of optional input `i` as a double, read from a tensor of element
// type `type`; nullopt when the input is omitted.
std::optional<double> OptionalScalarInput(const KernelContext& ctx, std::size_t i, int type, const char* name) {
  if (!ctx.HasInput(i)) return std::nullopt;
  const Tensor& t = ctx.TensorInput(i);
  if (t.elem_type() != type)
    Fail(std::string(name) + " has element type " + ElemTypeName(t.elem_type()) + ", expected " + ElemTypeName(type));
  if (t.size() != 1) Fail(std::string(name) + " must hold one value, found " + t.Describe());
  return t.ToDoubleVector()[0];
}

// ---------------------------------------------------------------------------------
// NonMaxSuppression (10, 11): per batch and class, boxes by decreasing score, each kept
// unless its IoU with a kept box is strictly greater than iou_threshold. Computed in
// float, as the boxes are (the thresholds compare float ratios).

struct BoxBounds {
  float x_min, x_max, y_min, y_max;
};

// [y1, x1, y2, x2] (any diagonal pair of corners) or [x_center, y_center, width, height].
BoxBounds BoundsOf(const float* box, bool center_point) {
  if (center_point) {
    const float half_w = box[2] / 2, half_h = box[3] / 2;
    return {box[0] - half_w, box[0] + half_w, box[1] - half_h, box[1] + half_h};
  }
  return {std::min(box[1], box[3]), std::max(box[1], box[3]), std::min(box[0], box[2]), std::max(box[0], box[2])};
}

// IoU(a, b) > threshold. Boxes without area or intersection never overlap.
bool OverlapsAbove(const BoxBounds& a, const BoxBounds& b, float threshold) {
  const float ix_min = std::max(a.x_min, b.x_min), ix_max = std::min(a.x_max, b.x_max);
  const float iy_min = std::max(a.y_min, b.y_min), iy_max = std::min(a.y_max, b.y_max);
  if (!(ix_max > ix_min) || !(iy_max > iy_min)) return false;
  const float intersection = (ix_max - ix_min) * (iy_max - iy_min);
  const float area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const float area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const float union_area = area_a + area_b - intersection;
  if (!(area_a > 0) || !(area_b > 0) || !(union_area > 0)) return false;
  return intersection / union_area > threshold;
}

std::vector<Value> NonMaxSuppressionKernel(KernelContext& ctx) {
  const Tensor& boxes = ctx.TensorInput(0);
  const Tensor& scores = ctx.TensorInput(1);
  if (boxes.elem_type() != TensorProto::FLOAT || scores.elem_type() != TensorProto::FLOAT)
    Fail("boxes and scores must be float tensors, found " + boxes.Describe() + " and " + scores.Describe());
  RequireRank(boxes, 3, "boxes");
  RequireRank(scores, 3, "scores");
  const std::int64_t batches = boxes.shape()[0], num_boxes = boxes.shape()[1];
  const std::int64_t classes = scores.shape()[1];
  if (boxes.shape()[2] != 4 || scores.shape()[0] != batches || scores.shape()[2] != num_boxes)
    Fail("boxes " + ShapeToString(boxes.shape()) + " and scores " + ShapeToString(scores.shape()) +
         " must be [batches, boxes, 4] and [batches, classes, boxes]");
  const std::int64_t center_point_box = ctx.IntAttribute("center_point_box").value_or(0);
  if (center_point_box != 0 && center_point_box != 1)
    Fail("center_point_box must be 0 or 1, found " + std::to_string(center_point_box));
  const double max_per_class =
      std::max(0.0, OptionalScalarInput(ctx, 2, TensorProto::INT64, "max_output_boxes_per_class").value_or(0.0));
  const float iou_threshold =
      static_cast<float>(OptionalScalarInput(ctx, 3, TensorProto::FLOAT, "iou_threshold").value_or(0.0));
  if (!(iou_threshold >= 0.0f && iou_threshold <= 1.0f))
    Fail("iou_threshold must be in [0, 1], found " + std::to_string(iou_threshold));
  const std::optional<double> score_threshold = OptionalScalarInput(ctx, 4, TensorProto::FLOAT, "score_threshold");

  // Each candidate box is compared with the boxes kept so far for its batch and class: at
  // most min(boxes, max_output_boxes_per_class) of them. A few thousand boxes with a large
  // max_output_boxes_per_class and many classes make billions of comparisons.
  ChargeWork(static_cast<double>(batches) * static_cast<double>(classes) * static_cast<double>(num_boxes) *
                 std::min(static_cast<double>(num_boxes), max_per_class),
             "NonMaxSuppression's box comparisons");
  const float* box_data = boxes.Data<float>();
  const float* score_data = scores.Data<float>();
  std::vector<std::int64_t> selected;  // triples (batch, class, box)
  std::vector<BoxBounds> bounds(static_cast<std::size_t>(num_boxes));
  std::vector<std::int64_t> order, kept;
  for (std::int64_t b = 0; b < batches; ++b) {
    for (std::int64_t i = 0; i < num_boxes; ++i)
      bounds[static_cast<std::size_t>(i)] = BoundsOf(box_data + (b * num_boxes + i) * 4, center_point_box == 1);
    for (std::int64_t c = 0; c < classes; ++c) {
      const float* s = score_data + (b * classes + c) * num_boxes;
      // "Boxes with score less than score_threshold are removed": equality is kept.
      order.clear();
      for (std::int64_t i = 0; i < num_boxes; ++i)
        if (!score_threshold || static_cast<double>(s[i]) >= static_cast<float>(*score_threshold)) order.push_back(i);
      // Decreasing score, ties by box index; NaN scores last.
      std::sort(order.begin(), order.end(), [&](std::int64_t i, std::int64_t j) {
        const bool nan_i = std::isnan(s[i]), nan_j = std::isnan(s[j]);
        if (nan_i != nan_j) return nan_j;
        if (!nan_i && s[i] != s[j]) return s[i] > s[j];
        return i < j;
      });
      kept.clear();
      for (std::int64_t i : order) {
        if (static_cast<double>(kept.size()) >= max_per_class) break;
        const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](std::int64_t k) {
          return OverlapsAbove(bounds[static_cast<std::size_t>(k)], bounds[static_cast<std::size_t>(i)], iou_threshold);
        });
        if (suppressed) continue;
        kept.push_back(i);
        selected.insert(selected.end(), {b, c, i});
      }
    }
  }
  Tensor out(TensorProto::INT64, {static_cast<std::int64_t>(selected.size() / 3), 3});
  std::copy(selected.begin(), selected.end(), out.MutableData<std::int64_t>());
  return {out};
}

// ---------------------------------------------------------------------------------
// RoiAlign (10, 16, 22): each output bin averages (or takes the max of) bilinear samples
// on a regular grid inside the bin, as in Mask R-CNN.

// Bilinear sample of an H x W plane at (y, x) with the RoiAlign border rules: zero beyond
// one pixel outside the map, clamped to the edge pixels inside that margin.
struct BilinearSample {
  std::array<std::int64_t, 4> offset{};
  std::array<double, 4> weight{};
};

std::optional<BilinearSample> RoiAlignSample(double y, double x, std::int64_t height, std::int64_t width) {
  // Also rejects NaN coordinates.
  if (height == 0 || width == 0 || !(y >= -1.0 && y <= static_cast<double>(height) && x >= -1.0 &&
                                     x <= static_cast<double>(width)))
    return std::nullopt;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  std::int64_t y_low = static_cast<std::int64_t>(y), x_low = static_cast<std::int64_t>(x);
  std::int64_t y_high = y_low + 1, x_high = x_low + 1;
  if (y_low >= height - 1) {
    y_low = y_high = height - 1;
    y = static_cast<double>(y_low);
  }
  if (x_low >= width - 1) {
    x_low = x_high = width - 1;
    x = static_cast<double>(x_low);
  }
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1.0 - ly, hx = 1.0 - lx;
  return BilinearSample{{y_low * width + x_low, y_low * width + x_high, y_high * width + x_low, y_high * width + x_high},
                        {hy * hx, hy * lx, ly * hx, ly * lx}};
}

// Samples per bin along one axis: sampling_ratio, or ceil(roi size / bins) when it is 0
// (none for an empty or NaN extent).
std::int64_t SamplesPerBin(std::int64_t sampling_ratio, double roi_extent, std::int64_t bins) {
  if (sampling_ratio > 0) return sampling_ratio;
  const double n = std::ceil(roi_extent / static_cast<double>(bins));
  if (!(n > 0)) return 0;
  return static_cast<std::int64_t>(std::min(n, kFarAway));
}

std::vector<Value> RoiAlignKernel(KernelContext& ctx) {
  const Tensor& x_in = FloatInput(ctx, 0, "X");
  const Tensor& rois_in = ctx.TensorInput(1);
  const Tensor& batch_indices = ctx.TensorInput(2);
  RequireRank(x_in, 4, "X");
  RequireRank(rois_in, 2, "rois");
  RequireRank(batch_indices, 1, "batch_indices");
  if (rois_in.elem_type() != x_in.elem_type()) Fail("rois " + rois_in.Describe() + " must have the type of X");
  if (batch_indices.elem_type() != TensorProto::INT64) Fail("batch_indices must be int64, found " + batch_indices.Describe());
  const std::int64_t num_rois = rois_in.shape()[0];
  if (rois_in.shape()[1] != 4 || batch_indices.shape()[0] != num_rois)
    Fail("rois " + ShapeToString(rois_in.shape()) + " and batch_indices " + ShapeToString(batch_indices.shape()) +
         " must be [num_rois, 4] and [num_rois]");
  const std::int64_t N = x_in.shape()[0], C = x_in.shape()[1], H = x_in.shape()[2], W = x_in.shape()[3];
  const std::int64_t out_h = ctx.IntAttribute("output_height").value_or(1);
  const std::int64_t out_w = ctx.IntAttribute("output_width").value_or(1);
  const std::int64_t sampling_ratio = ctx.IntAttribute("sampling_ratio").value_or(0);
  const double spatial_scale = ctx.FloatAttribute("spatial_scale").value_or(1.0f);
  const std::string mode = ctx.StringAttribute("mode").value_or("avg");
  if (out_h < 0 || out_w < 0)
    Fail("output_height and output_width must not be negative, found " + std::to_string(out_h) + " and " +
         std::to_string(out_w));
  if (sampling_ratio < 0) Fail("sampling_ratio must not be negative, found " + std::to_string(sampling_ratio));
  if (mode != "avg" && mode != "max") Fail("mode must be 'avg' or 'max', found '" + mode + "'");
  const bool average = mode == "avg";
  // Version 10 has no coordinate_transformation_mode and behaves as output_half_pixel.
  const std::string transform =
      ctx.OpsetVersion() >= 16 ? ctx.StringAttribute("coordinate_transformation_mode").value_or("half_pixel")
                               : "output_half_pixel";
  if (transform != "half_pixel" && transform != "output_half_pixel")
    Fail("coordinate_transformation_mode must be 'half_pixel' or 'output_half_pixel', found '" + transform + "'");
  const bool half_pixel = transform == "half_pixel";
  const std::int64_t* batch = batch_indices.Data<std::int64_t>();
  for (std::int64_t r = 0; r < num_rois; ++r)
    if (batch[r] < 0 || batch[r] >= N)
      Fail("batch_indices[" + std::to_string(r) + "] = " + std::to_string(batch[r]) + " is out of range for " +
           std::to_string(N) + " images");

  const std::vector<double> x = nn::ReadAs<double>(x_in);
  const std::vector<double> rois = nn::ReadAs<double>(rois_in);
  struct RoiGrid {
    double start_h, start_w, bin_h, bin_w;
    std::int64_t samples_h, samples_w;
  };
  std::vector<RoiGrid> grids(static_cast<std::size_t>(num_rois));
  double work = 0;
  for (std::int64_t r = 0; r < num_rois; ++r) {
    const double* roi = rois.data() + r * 4;
    const double shift = half_pixel ? 0.5 : 0.0;
    RoiGrid& g = grids[static_cast<std::size_t>(r)];
    g.start_w = roi[0] * spatial_scale - shift;
    g.start_h = roi[1] * spatial_scale - shift;
    double roi_w = roi[2] * spatial_scale - shift - g.start_w;
    double roi_h = roi[3] * spatial_scale - shift - g.start_h;
    // Without the half-pixel shift, malformed ROIs are forced to 1 x 1.
    if (!half_pixel) roi_w = std::max(roi_w, 1.0), roi_h = std::max(roi_h, 1.0);
    g.bin_h = roi_h / static_cast<double>(out_h);
    g.bin_w = roi_w / static_cast<double>(out_w);
    g.samples_h = SamplesPerBin(sampling_ratio, roi_h, out_h);
    g.samples_w = SamplesPerBin(sampling_ratio, roi_w, out_w);
    work += static_cast<double>(g.samples_h) * static_cast<double>(g.samples_w) * static_cast<double>(out_h) *
            static_cast<double>(out_w);
  }
  ChargeWork(work * static_cast<double>(C), "RoiAlign's sampling grid");

  Tensor y(TensorProto::DOUBLE, {num_rois, C, out_h, out_w});
  if (y.size() == 0) return {vision::DoublesToType(y, x_in.elem_type())};
  double* out = y.MutableData<double>();
  std::vector<double> acc(static_cast<std::size_t>(C));
  for (std::int64_t r = 0; r < num_rois; ++r) {
    const RoiGrid& g = grids[static_cast<std::size_t>(r)];
    const double count = std::max(static_cast<double>(g.samples_h) * static_cast<double>(g.samples_w), 1.0);
    const double* image = x.data() + batch[r] * C * H * W;
    for (std::int64_t ph = 0; ph < out_h; ++ph)
      for (std::int64_t pw = 0; pw < out_w; ++pw) {
        // Each sample of the bin is computed once and read in every channel.
        std::fill(acc.begin(), acc.end(), 0.0);
        bool first = true;
        for (std::int64_t iy = 0; iy < g.samples_h; ++iy) {
          const double yy = g.start_h + static_cast<double>(ph) * g.bin_h +
                            (static_cast<double>(iy) + 0.5) * g.bin_h / static_cast<double>(g.samples_h);
          for (std::int64_t ix = 0; ix < g.samples_w; ++ix, first = false) {
            const double xx = g.start_w + static_cast<double>(pw) * g.bin_w +
                              (static_cast<double>(ix) + 0.5) * g.bin_w / static_cast<double>(g.samples_w);
            const std::optional<BilinearSample> s = RoiAlignSample(yy, xx, H, W);
            for (std::int64_t c = 0; c < C; ++c) {
              double v = 0;
              if (s)
                for (std::size_t k = 0; k < 4; ++k) v += s->weight[k] * image[c * H * W + s->offset[k]];
              double& a = acc[static_cast<std::size_t>(c)];
              // max: the largest interpolated value (NaN wins).
              if (average) a += v;
              else if (first || v > a || std::isnan(v)) a = v;
            }
          }
        }
        for (std::int64_t c = 0; c < C; ++c)
          out[((r * C + c) * out_h + ph) * out_w + pw] = average ? acc[static_cast<std::size_t>(c)] / count
                                                                 : acc[static_cast<std::size_t>(c)];
      }
  }
  return {vision::DoublesToType(y, x_in.elem_type())};
}

// ---------------------------------------------------------------------------------
// MaxRoiPool (1, 22): the max over each of pooled_shape bins of a ROI rounded to whole
// pixels (Fast R-CNN's RoI pooling); an empty bin gives 0.

// round(v * scale) as an integer pixel coordinate, clamped far outside any image.
std::int64_t RoiPixel(double v, double scale) {
  return static_cast<std::int64_t>(std::clamp(std::round(v * scale), -kFarAway, kFarAway));
}

// The pixel ranges [begin, end) of a ROI's bins along one axis: [floor(i * bin),
// ceil((i + 1) * bin)) shifted by the ROI's start and clipped to [0, size], where bin =
// max(end - start + 1, 1) / bins.
std::vector<std::pair<std::int64_t, std::int64_t>> RoiBinRanges(std::int64_t start, std::int64_t end, std::int64_t bins,
                                                                 std::int64_t size) {
  const double bin = static_cast<double>(std::max<std::int64_t>(end - start + 1, 1)) / static_cast<double>(bins);
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  for (std::int64_t i = 0; i < bins; ++i) {
    const auto lo = static_cast<std::int64_t>(std::floor(static_cast<double>(i) * bin)) + start;
    const auto hi = static_cast<std::int64_t>(std::ceil(static_cast<double>(i + 1) * bin)) + start;
    ranges.emplace_back(std::clamp<std::int64_t>(lo, 0, size), std::clamp<std::int64_t>(hi, 0, size));
  }
  return ranges;
}

std::vector<Value> MaxRoiPoolKernel(KernelContext& ctx) {
  const Tensor& x_in = FloatInput(ctx, 0, "X");
  const Tensor& rois_in = ctx.TensorInput(1);
  RequireRank(x_in, 4, "X");
  RequireRank(rois_in, 2, "rois");
  if (rois_in.elem_type() != x_in.elem_type()) Fail("rois " + rois_in.Describe() + " must have the type of X");
  if (rois_in.shape()[1] != 5) Fail("rois must be [num_rois, 5], found " + ShapeToString(rois_in.shape()));
  const auto pooled = ctx.IntsAttribute("pooled_shape");
  if (!pooled || pooled->size() != 2 || (*pooled)[0] < 1 || (*pooled)[1] < 1)
    Fail("pooled_shape must be two positive values (height, width)");
  const double scale = ctx.FloatAttribute("spatial_scale").value_or(1.0f);
  if (!std::isfinite(scale)) Fail("spatial_scale must be finite, found " + std::to_string(scale));
  const std::int64_t num_rois = rois_in.shape()[0], ph_count = (*pooled)[0], pw_count = (*pooled)[1];
  const std::int64_t N = x_in.shape()[0], C = x_in.shape()[1], H = x_in.shape()[2], W = x_in.shape()[3];
  const std::vector<double> rois = nn::ReadAs<double>(rois_in);
  for (std::int64_t r = 0; r < num_rois; ++r) {
    const double* roi = rois.data() + r * 5;
    if (!std::all_of(roi, roi + 5, [](double v) { return std::isfinite(v); }))
      Fail("rois[" + std::to_string(r) + "] has a non-finite value");
    if (std::trunc(roi[0]) < 0 || std::trunc(roi[0]) >= static_cast<double>(N))
      Fail("rois[" + std::to_string(r) + "] names batch " + std::to_string(roi[0]) + ", out of range for " +
           std::to_string(N) + " images");
  }
  Tensor y(TensorProto::DOUBLE, {num_rois, C, ph_count, pw_count});
  if (y.size() == 0) return {vision::DoublesToType(y, x_in.elem_type())};
  // Bins of huge ROIs overlap the whole image: count the pixels read before reading them.
  auto bins_of = [&](std::int64_t r) {
    const double* roi = rois.data() + r * 5;
    return std::pair{RoiBinRanges(RoiPixel(roi[2], scale), RoiPixel(roi[4], scale), ph_count, H),
                     RoiBinRanges(RoiPixel(roi[1], scale), RoiPixel(roi[3], scale), pw_count, W)};
  };
  auto extent = [](const std::vector<std::pair<std::int64_t, std::int64_t>>& ranges) {
    double sum = 0;
    for (const auto& [lo, hi] : ranges) sum += static_cast<double>(std::max<std::int64_t>(hi - lo, 0));
    return sum;
  };
  double work = 0;
  for (std::int64_t r = 0; r < num_rois; ++r) {
    const auto [rows, cols] = bins_of(r);
    work += extent(rows) * extent(cols) * static_cast<double>(C);
  }
  ChargeWork(work, "MaxRoiPool's bins");
  const std::vector<double> x = nn::ReadAs<double>(x_in);
  double* out = y.MutableData<double>();
  for (std::int64_t r = 0; r < num_rois; ++r) {
    const auto n = static_cast<std::int64_t>(rois[static_cast<std::size_t>(r * 5)]);
    const auto [rows, cols] = bins_of(r);
    for (std::int64_t c = 0; c < C; ++c) {
      const double* plane = x.data() + (n * C + c) * H * W;
      for (std::int64_t ph = 0; ph < ph_count; ++ph) {
        const auto [h0, h1] = rows[static_cast<std::size_t>(ph)];
        for (std::int64_t pw = 0; pw < pw_count; ++pw) {
          const auto [w0, w1] = cols[static_cast<std::size_t>(pw)];
          if (h1 <= h0 || w1 <= w0) continue;
          // NaN only when every value is NaN.
          double best = std::numeric_limits<double>::quiet_NaN();
          for (std::int64_t h = h0; h < h1; ++h)
            for (std::int64_t w = w0; w < w1; ++w)
              if (std::isnan(best) || plane[h * W + w] > best) best = plane[h * W + w];
          out[((r * C + c) * ph_count + ph) * pw_count + pw] = best;
        }
      }
    }
  }
  return {vision::DoublesToType(y, x_in.elem_type())};
}

// ---------------------------------------------------------------------------------
// GridSample (16: 4-D, modes bilinear/nearest/bicubic; 20, 22: N-D, modes
// linear/nearest/cubic). Each output location reads the grid's normalized position
// (innermost dimension first), maps it to pixel coordinates, applies the padding mode to
// coordinates outside the image, then interpolates separably over "taps" per dimension.

enum class GridMode { kNearest, kLinear, kCubic };
enum class GridPadding { kZeros, kBorder, kReflection };

// Reflects x into [lo, hi] by the nearer border until it lies inside. The remainder
// modulo a whole period (2 * range: there and back) is exact, also for huge x. NaN stays
// NaN.
double Reflect(double x, double lo, double hi) {
  const double range = hi - lo;
  if (!(range > 0)) return lo;
  if (x >= lo && x <= hi) return x;
  const double rest = std::fmod(x < lo ? lo - x : x - hi, 2 * range);
  // Within a period: back from the border crossed first, then forth from the other one.
  if (x < lo) return rest <= range ? lo + rest : hi - (rest - range);
  return rest <= range ? hi - rest : lo + (rest - range);
}

struct GridAxis {
  std::int64_t size;
  double lo, hi;  // the coordinates of the image's border: pixel centers or edges
};

// The element read at integer coordinate i of an axis: -1 when the padding gives zero.
std::int64_t PaddedIndex(std::int64_t i, const GridAxis& axis, GridPadding padding) {
  if (i >= 0 && i < axis.size) return i;
  if (axis.size == 0) return -1;
  switch (padding) {
    case GridPadding::kZeros: return -1;
    case GridPadding::kBorder: return std::clamp<std::int64_t>(i, 0, axis.size - 1);
    case GridPadding::kReflection:
      return std::clamp<std::int64_t>(static_cast<std::int64_t>(Reflect(static_cast<double>(i), axis.lo, axis.hi)), 0,
                                      axis.size - 1);
  }
  return -1;
}

// Cubic convolution weights (Keys, A = -0.75) of the taps at x0-1, x0, x0+1, x0+2 for a
// sample at x0 + t.
std::array<double, 4> CubicWeights(double t) {
  constexpr double A = -0.75;
  auto near = [](double d) { return ((A + 2) * d - (A + 3)) * d * d + 1; };         // |d| <= 1
  auto far = [](double d) { return ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; };    // 1 < |d| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

struct Taps {
  std::size_t count = 0;
  std::array<std::int64_t, 4> index{};  // -1: reads zero
  std::array<double, 4> weight{};
};

Taps AxisTaps(double normalized, const GridAxis& axis, bool align_corners, GridMode mode, GridPadding padding) {
  const double size = static_cast<double>(axis.size);
  double x = align_corners ? (normalized + 1) / 2 * (size - 1) : ((normalized + 1) * size - 1) / 2;
  // The spec rounds half to even (the default rounding mode), before the padding.
  if (mode == GridMode::kNearest) x = std::nearbyint(x);
  if (x < axis.lo || x > axis.hi) {
    if (padding == GridPadding::kBorder) x = std::clamp(x, 0.0, std::max(size - 1, 0.0));
    else if (padding == GridPadding::kReflection) x = Reflect(x, axis.lo, axis.hi);
  }
  Taps taps;
  // NaN, and coordinates so far out that every tap reads zero padding.
  if (!(x > -8 && x < size + 8)) {
    taps.count = 1;
    taps.index[0] = -1;
    return taps;
  }
  if (mode == GridMode::kNearest) {
    taps.count = 1;
    taps.index[0] = PaddedIndex(static_cast<std::int64_t>(x), axis, padding);
    taps.weight[0] = 1;
    return taps;
  }
  const double x0 = std::floor(x), t = x - x0;
  const auto i0 = static_cast<std::int64_t>(x0);
  if (mode == GridMode::kLinear) {
    taps.count = 2;
    taps.index = {PaddedIndex(i0, axis, padding), PaddedIndex(i0 + 1, axis, padding)};
    taps.weight = {1 - t, t};
    return taps;
  }
  taps.count = 4;
  for (std::int64_t k = 0; k < 4; ++k) taps.index[static_cast<std::size_t>(k)] = PaddedIndex(i0 - 1 + k, axis, padding);
  taps.weight = CubicWeights(t);
  return taps;
}

// The version's names of the interpolation modes: bilinear/bicubic before 20.
GridMode ParseGridMode(const KernelContext& ctx) {
  const bool v16 = ctx.OpsetVersion() < 20;
  const std::string mode = ctx.StringAttribute("mode").value_or(v16 ? "bilinear" : "linear");
  if (mode == "nearest") return GridMode::kNearest;
  if (mode == (v16 ? "bilinear" : "linear")) return GridMode::kLinear;
  if (mode == (v16 ? "bicubic" : "cubic")) return GridMode::kCubic;
  Fail("mode '" + mode + "' is not one of " + (v16 ? "bilinear, nearest, bicubic" : "linear, nearest, cubic") +
       " (opset " + std::to_string(ctx.OpsetVersion()) + ")");
}

GridPadding ParseGridPadding(const KernelContext& ctx) {
  const std::string padding = ctx.StringAttribute("padding_mode").value_or("zeros");
  if (padding == "zeros") return GridPadding::kZeros;
  if (padding == "border") return GridPadding::kBorder;
  if (padding == "reflection") return GridPadding::kReflection;
  Fail("padding_mode '" + padding + "' is not one of zeros, border, reflection");
}

// Taps per output location above which N-D cubic or linear interpolation is refused
// (4^8 = cubic in 8 dimensions).
constexpr double kMaxTapsPerSample = 65536;

std::vector<Value> GridSampleKernel(KernelContext& ctx) {
  const Tensor& x_in = ctx.TensorInput(0);
  const Tensor& grid_in = FloatInput(ctx, 1, "grid");
  // Computed in double and converted back: every numeric type and bool (strings cannot be
  // interpolated).
  const int x_type = x_in.elem_type();
  if (!vision::IsNumericOrBool(x_type))
    Fail("X has element type " + ElemTypeName(x_type) + ", expected a numeric type or bool");
  const GridMode mode = ParseGridMode(ctx);
  const GridPadding padding = ParseGridPadding(ctx);
  const bool align_corners = ctx.IntAttribute("align_corners").value_or(0) != 0;
  const std::size_t rank = x_in.rank();
  if (rank < 3) Fail("X must have rank >= 3, found " + x_in.Describe());
  if (ctx.OpsetVersion() < 20 && rank != 4) Fail("X must be 4-D before opset 20, found " + x_in.Describe());
  const std::size_t r = rank - 2;
  const Shape& xs = x_in.shape();
  const Shape& gs = grid_in.shape();
  if (grid_in.rank() != rank || gs[0] != xs[0] || gs[rank - 1] != static_cast<std::int64_t>(r))
    Fail("grid " + ShapeToString(gs) + " must be [N, D1_out, ..., Dr_out, r] with N = " + std::to_string(xs[0]) +
         " and r = " + std::to_string(r));
  Shape out_shape{xs[0], xs[1]};
  out_shape.insert(out_shape.end(), gs.begin() + 1, gs.end() - 1);
  const double taps_per_sample = std::pow(mode == GridMode::kCubic ? 4.0 : mode == GridMode::kLinear ? 2.0 : 1.0,
                                          static_cast<double>(r));
  if (taps_per_sample > kMaxTapsPerSample)
    Fail("interpolation in " + std::to_string(r) + " dimensions reads " + std::to_string(taps_per_sample) +
         " values per output, more than " + std::to_string(kMaxTapsPerSample));
  Tensor y(TensorProto::DOUBLE, out_shape);
  ChargeWork(static_cast<double>(y.size()) * taps_per_sample, "GridSample's interpolation");

  std::vector<GridAxis> axes(r);
  for (std::size_t d = 0; d < r; ++d) {
    const auto size = static_cast<double>(xs[2 + d]);
    axes[d] = {xs[2 + d], align_corners ? 0.0 : -0.5, align_corners ? size - 1 : size - 0.5};
  }
  const Shape in_strides = Strides(Shape(xs.begin() + 2, xs.end()));
  const std::vector<double> x = nn::ReadAs<double>(x_in);
  const std::vector<double> grid = nn::ReadAs<double>(grid_in);
  const std::int64_t N = xs[0], C = xs[1];
  const std::int64_t in_plane = ShapeSize(Shape(xs.begin() + 2, xs.end()));
  const std::int64_t out_plane = ShapeSize(Shape(gs.begin() + 1, gs.end() - 1));
  double* out = y.MutableData<double>();
  std::vector<Taps> taps(r);
  std::vector<std::pair<std::int64_t, double>> reads;  // (offset in the plane, weight)
  std::vector<std::size_t> odometer(r);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < out_plane; ++o) {
      const double* position = grid.data() + (n * out_plane + o) * static_cast<std::int64_t>(r);
      // The grid lists the innermost dimension (x) first.
      for (std::size_t d = 0; d < r; ++d) taps[d] = AxisTaps(position[r - 1 - d], axes[d], align_corners, mode, padding);
      reads.clear();
      std::fill(odometer.begin(), odometer.end(), 0);
      while (true) {
        std::int64_t offset = 0;
        double weight = 1;
        for (std::size_t d = 0; d < r && offset >= 0; ++d) {
          const std::int64_t i = taps[d].index[odometer[d]];
          offset = i < 0 ? -1 : offset + i * in_strides[d];
          weight *= taps[d].weight[odometer[d]];
        }
        if (offset >= 0) reads.emplace_back(offset, weight);
        std::size_t d = r;
        while (d > 0 && ++odometer[d - 1] == taps[d - 1].count) odometer[--d] = 0;
        if (d == 0) break;
      }
      for (std::int64_t c = 0; c < C; ++c) {
        const double* plane = x.data() + (n * C + c) * in_plane;
        double v = 0;
        for (const auto& [offset, weight] : reads) v += weight * plane[offset];
        out[(n * C + c) * out_plane + o] = v;
      }
    }
  return {vision::DoublesToType(y, x_in.elem_type())};
}

// ---------------------------------------------------------------------------------
// AffineGrid (20): grid[n, (d,) h, w] = theta[n] (x_w, y_h, (z_d,) 1) over positions
// evenly spaced in [-1, 1] (pixel centers, or corner pixel centers with align_corners).
// A single position is 0 either way: with align_corners, -1 and 1 both name the one
// pixel's center (torch.nn.functional.affine_grid, which the spec follows, says 0 too).

std::vector<Value> AffineGridKernel(KernelContext& ctx) {
  const Tensor& theta_in = FloatInput(ctx, 0, "theta");
  const Tensor& size_in = ctx.TensorInput(1);
  const bool align_corners = ctx.IntAttribute("align_corners").value_or(0) != 0;
  if (size_in.elem_type() != TensorProto::INT64 || size_in.rank() != 1)
    Fail("size must be a 1-D int64 tensor, found " + size_in.Describe());
  const Shape size = size_in.ToInt64Vector();
  RequireRank(theta_in, 3, "theta");
  const std::int64_t N = theta_in.shape()[0];
  const std::size_t r = size.size() == 4 ? 2 : size.size() == 5 ? 3 : 0;
  if (r == 0) Fail("size must have 4 (2-D) or 5 (3-D) values, found " + ShapeToString(size));
  const auto dims = static_cast<std::int64_t>(r);
  if (theta_in.shape()[1] != dims || theta_in.shape()[2] != dims + 1)
    Fail("theta " + ShapeToString(theta_in.shape()) + " must be [N, " + std::to_string(r) + ", " +
         std::to_string(r + 1) + "] for size " + ShapeToString(size));
  if (size[0] != N) Fail("size[0] = " + std::to_string(size[0]) + " differs from theta's batch " + std::to_string(N));
  const Shape spatial(size.begin() + 2, size.end());  // (D,) H, W
  Shape out_shape{N};
  out_shape.insert(out_shape.end(), spatial.begin(), spatial.end());
  out_shape.push_back(dims);
  Tensor grid(TensorProto::DOUBLE, out_shape);  // also refuses negative sizes
  // Position of index i along an axis of `len` points.
  auto position = [&](std::int64_t i, std::int64_t len) {
    const auto l = static_cast<double>(len), k = static_cast<double>(i);
    if (align_corners) return len == 1 ? 0.0 : -1 + 2 * k / (l - 1);
    return -1 + (2 * k + 1) / l;
  };
  const std::vector<double> theta = nn::ReadAs<double>(theta_in);
  double* out = grid.MutableData<double>();
  const std::int64_t points = ShapeSize(spatial);
  Shape index(r, 0);
  for (std::int64_t n = 0; n < N; ++n) {
    const double* t = theta.data() + n * dims * (dims + 1);
    std::fill(index.begin(), index.end(), 0);
    for (std::int64_t p = 0; p < points; ++p) {
      // Homogeneous position (x, y, (z,) 1): x follows the innermost axis.
      std::array<double, 4> v{0, 0, 0, 1};
      for (std::size_t d = 0; d < r; ++d) v[d] = position(index[r - 1 - d], spatial[r - 1 - d]);
      v[r] = 1;
      for (std::int64_t row = 0; row < dims; ++row) {
        double s = 0;
        for (std::int64_t k = 0; k <= dims; ++k) s += t[row * (dims + 1) + k] * v[static_cast<std::size_t>(k)];
        out[(n * points + p) * dims + row] = s;
      }
      for (std::size_t d = r; d-- > 0;) {
        if (++index[d] < spatial[d]) break;
        index[d] = 0;
      }
    }
  }
  return {vision::DoublesToType(grid, theta_in.elem_type())};
}

}  // namespace

void RegisterVisionKernels() {
  using core::eval::RegisterKernel;
  RegisterKernel("", "NonMaxSuppression", NonMaxSuppressionKernel);
  RegisterKernel("", "RoiAlign", RoiAlignKernel);
  RegisterKernel("", "MaxRoiPool", MaxRoiPoolKernel);
  RegisterKernel("", "GridSample", GridSampleKernel);
  RegisterKernel("", "AffineGrid", AffineGridKernel);
}

}  // namespace onnxopt::onnx_kernels
