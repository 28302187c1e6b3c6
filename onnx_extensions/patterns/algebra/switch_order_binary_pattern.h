#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Op(B, C), A) => Op(Op(B, A), C) or Op(Op(C, A), B) for Op = Add or Mul (the inner
/// node on either side of the anchor), when that other intermediate result is smaller:
/// the small operands combine first and the large broadcast happens once, last.
/// Before:  T = Op(B, C); Z = Op(T, A)           (or Op(A, T))
/// After:   t = Op(B, A); Z = Op(t, C)           (case 1)
///          t = Op(C, A); Z = Op(t, B)           (case 2)
/// "Smaller" compares max(rank B, rank C), max(rank A, rank B), max(rank A, rank C); on a
/// tie, the first axis (after left-padding with 1s) where the three dims are integers and
/// one pair's max dim is strictly below the other two decides; otherwise nothing changes.
/// Since the winner is the same pair of operands whatever the grouping, the result is a
/// fixed point. Not valid when T has another reader (it would be computed twice), when
/// a shape is not known, or for a float16 Mul whose new first product is not of two
/// constant scalars folding to a normal float16 (products overflow from 256 * 256: the new
/// grouping could overflow where the original did not). Reassociates: float rounding (and
/// overflow near the float32 limit) may differ; exact on integers (wrapping Add and Mul
/// are associative and commutative).
class SwitchOrderBinaryPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SwitchOrderBinaryPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kRounding;
  SwitchOrderBinaryPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add", "Mul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
