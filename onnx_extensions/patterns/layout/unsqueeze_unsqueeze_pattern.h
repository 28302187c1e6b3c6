#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Unsqueeze(Unsqueeze(X, a1), a2) => Unsqueeze(X, a) where a is where the inserted 1s of
/// both end up in the final output (layout::ComposeUnsqueezeAxes).
/// Before:  U = Unsqueeze(X, a1); Y = Unsqueeze(U, a2)
/// After:   Y = Unsqueeze(X, a)                      (U kept when it has other readers)
/// The second Unsqueeze is the first one reading U in graph order. Negative axes are
/// normalized first (a1 against the rank of U, a2 against the rank of Y): upstream adds raw
/// values and gets e.g. [-1, 0] for a1 = a2 = [-1]. Needs constant 1-D axes, and the rank
/// of X when an axis is negative or either Unsqueeze has several axes.
class UnsqueezeUnsqueezePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "UnsqueezeUnsqueezePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  UnsqueezeUnsqueezePattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Unsqueeze"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
