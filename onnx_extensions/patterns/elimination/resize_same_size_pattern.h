#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Resize(x) to its own size => x, for the modes that sample exactly the input positions then.
/// Before:  y = Resize<mode, coordinate_transformation_mode>(x, roi, scales | sizes)
/// After:   y = Identity(x)
/// Valid when every scale is 1, or the sizes equal x's static shape, with mode nearest or linear\n/// and
/// coordinate_transformation_mode half_pixel (default), pytorch_half_pixel, asymmetric or\n/// half_pixel_symmetric:
/// each output coordinate maps to the input coordinate of the same index\n/// exactly. Not with align_corners (x *
/// (n-1) / (n-1) may round below x, and nearest_mode floor\n/// would then pick x - 1), tf_crop_and_resize (the roi
/// crops), cubic (weights computed in\n/// float), or a keep_aspect_ratio_policy with sizes. Exact.
class ResizeSameSizePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ResizeSameSizePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ResizeSameSizePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Resize"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& resize) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
