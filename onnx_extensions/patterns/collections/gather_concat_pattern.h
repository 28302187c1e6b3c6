#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Gather<axis=0>(Concat<axis=0>(C1, X, C2), idx) => Gather<axis=0>(X, idx - offset) when
/// X is the only non-constant piece and every index falls inside X.
/// Before:  Z = Concat<axis=0>(P1, ..., X, ..., Pn); Y = Gather<axis=0>(Z, idx)
/// After:   Y = Gather<axis=0>(X, idx - len(P1..Pk))          (Z kept if it has other readers)
/// Not valid for an index addressing a constant piece, a negative index (it counts from
/// the end of Z), X of symbolic length followed by other pieces (the upper bound is
/// unknown), another axis, or an index of rank above 1.
class GatherConcatPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "GatherConcatPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  GatherConcatPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Gather"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
