#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Two readers of a graph input (or initializer, or outer value) that compute the same
/// thing => one of them: SameChildrenPattern's first step where no node produces the value.
/// Before:  Y1 = Cast<to=10>(X); Y2 = Cast<to=10>(X)             (X a graph input)
/// After:   Y1 = Cast<to=10>(X); Y2 = Identity(Y1)
/// The same duplicates as SameChildrenPattern (deterministic ONNX operators, same
/// attributes and inputs, Add and Mul swapped; all duplicates of a node at once), without
/// the chain extension. Anchored on
/// the first node that reads the value as its first input, so that the readers of one
/// value are compared once per iteration. Not valid for random operators or custom
/// domains; not for a value a node produces (SameChildrenPattern's case).
class SameChildrenFromInputPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SameChildrenFromInputPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  SameChildrenFromInputPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  // Any node may read a graph input first.
  std::set<std::string> FastOpType() const override { return {}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
