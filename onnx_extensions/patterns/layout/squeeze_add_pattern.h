#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Squeeze(P, a), Squeeze(Q, a)) => Squeeze(Add(P, Q), a) when P and Q have the same
/// rank: the squeezed 1s broadcast to 1, every other dim pairs as before.
/// Before:  p = Squeeze(P[, ap]); q = Squeeze(Q[, aq]); Z = Add(p, q)
/// After:   t = Add(P, Q); Z = Squeeze(t[, ap])     (a Squeeze kept when it has other readers)
/// A Squeeze without axes is accepted only on a tensor of static shape (1,), where it means
/// [0]. Not valid when P and Q differ in rank (upstream does not check: Add(P, Q) then
/// broadcasts otherwise), when the axes differ after normalization or are empty, before
/// opset 13, nor when a kept Squeeze would have to move before the input of the other.
class SqueezeAddPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SqueezeAddPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SqueezeAddPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
