#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Expand(x, s) => Identity(x) when s is constant and equal to the static shape of x.
/// Before:  y = Expand(x, s)
/// After:   y = Identity(x)
/// Not valid when s is longer than the rank of x (the rank grows), differs from the shape
/// of x, or when x has a symbolic dimension (s could then enlarge it). An all-ones s is
/// left to IdentityPattern.
class ExpandPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ExpandPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ExpandPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Expand"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
