#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Conv(Pad(x, pads, 0), w, b?) => Conv<pads=conv_pads + spatial(pads)>(x, w, b?): zero
/// padding of the spatial dimensions moves into the Conv's own (zero) padding.
/// Before:  p = Pad<mode=constant>(x, pads, 0?, axes?); y = Conv<pads=c>(p, w, b?)
/// After:   y = Conv<pads=c + spatial pads>(x, w, b?)     (other Conv attributes kept)
/// Not valid when the Pad pads the batch or channel dimension, pads with a non-zero value
/// or another mode, has negative (cropping) spatial pads or non-constant pads/axes, when
/// the Conv uses auto_pad (it would recompute the padding), or when p has other readers.
/// With axes the rank of x must be known (the pads are scattered at those axes).
class PadConvPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "PadConvPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  PadConvPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Conv"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& conv) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
