#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// SequenceAt(SequenceConstruct(X0, ..., Xn-1), k) => Xk when every element is read once
/// at a constant position and the sequence is read by nothing else.
/// Before:  seq = SequenceConstruct(X0, ..., Xn-1); Yk = SequenceAt(seq, pk)   (n readers)
/// After:   Yk = Identity(X_pk)
/// Not valid when the sequence has another reader (SequenceLength, a graph output, a
/// subgraph), when a position is not constant, or when the positions are not exactly
/// 0..n-1 (negative positions are rejected).
class SequenceConstructAtPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SequenceConstructAtPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SequenceConstructAtPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"SequenceConstruct"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
