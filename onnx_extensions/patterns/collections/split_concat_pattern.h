#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Concat(Split(X)) => X when the Concat reassembles exactly the pieces, in order, on the same axis.
/// Before:  P1, ..., Pm = Split<axis=a>(X[, split]); Y = Concat<axis=b>(P1, ..., Pm)
/// After:   Y = Identity(X)
/// Not valid when a piece has another reader or is a graph output (it would disappear),
/// when the pieces are reordered, repeated or incomplete, nor when the axes differ after
/// normalization with the rank of X (default Split axis: 0).
class SplitConcatPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SplitConcatPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SplitConcatPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Split"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
