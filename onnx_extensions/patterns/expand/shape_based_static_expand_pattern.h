#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Expand(x, computed shape) => Expand(x, constant) when the shapes of x and of the output
/// are known: 1 where both dims are equal (even symbolic), the output dim where both are
/// integers.
/// Before:  s = <computed>; y = Expand(x, s)
/// After:   y = Expand(x, c)               (the computation of s may become dead)
/// Not valid when the rank changes, or when an output dimension differing from the input
/// one is symbolic; exact as long as equal symbols denote equal run-time values.
class ShapeBasedStaticExpandPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedStaticExpandPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedStaticExpandPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
