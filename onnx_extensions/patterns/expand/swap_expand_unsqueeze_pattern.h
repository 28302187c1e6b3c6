#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Unsqueeze(Expand(x, s), axes) => Expand(Unsqueeze(x, axes), s2), s2 being s with a 1
/// inserted at each axis (opset >= 13: axes as an input).
/// Before:  e = Expand(x, s); y = Unsqueeze(e, axes)
/// After:   u = Unsqueeze(x, axes); y = Expand(u, s2)
/// Not valid when the Expand changes the rank (len(s) != rank(x): the axes would refer to
/// another rank), when axes or the target shape are not known, or when e is read
/// elsewhere.
class SwapExpandUnsqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwapExpandUnsqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SwapExpandUnsqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
