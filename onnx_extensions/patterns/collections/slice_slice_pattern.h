#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Slice(Slice(X, s1, e1, a1, st1), s2, e2, a2, st2) => one Slice on the union of the axes.
/// Before:  T = Slice(X, s1, e1, a1[, st1]); Y = Slice(T, s2, e2, a2[, st2])
/// After:   Y = Slice(X, Concat(s1, s2), Concat(e1, e2), Concat(a1, a2)[, Concat(st1, st2)])
///          (a missing steps side becomes ones; Concats of constants are folded)
/// Not valid when the two axis sets intersect after normalizing negative axes with the rank
/// of X (the second Slice works on the first one's result along that axis), when T has
/// another reader, when an axes input is absent or not constant, or when the parameters
/// have different integer types (they cannot be concatenated).
class SliceSlicePattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SliceSlicePattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SliceSlicePattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Slice"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
