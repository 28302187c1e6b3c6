#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Reshape(x, s) => Identity(x) when s is constant and equal to the static shape of x.
/// Before:  y = Reshape(x, s)
/// After:   y = Identity(x)
/// Not valid when x has a symbolic dimension (s could then change it at run time) or s is
/// not exactly the shape of x; a -1 or a 0 in s is left to the other patterns of the family
/// (ShapedBasedReshapePattern), and so is allowzero=1.
class ReshapePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ReshapePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ReshapePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Reshape"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
