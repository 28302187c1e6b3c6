#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Shape(P), Shape(Q)): a registered placeholder that never fires, as upstream (which
/// inspects the sum of two dimensions and always returns no match).
/// Before:  s1 = Shape<start=0, end=1>(P); s2 = Shape<start=0, end=1>(Q); Z = Add(s1, s2)
/// After:   unchanged
/// A real rewrite would replace Z by Shape<start=k, end=k+1>(T) of a tensor T computed
/// before the Add whose dim k the symbolic shapes prove equal to the sum for every input
/// (T = Concat<axis=1>(P', Q') with dims a and b for a + b), with the same type, length and
/// value; with static dims, constant folding already computes the Add. Kept under its
/// name so that selections naming it stay valid.
class ShapeBasedShapeShapeAddPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedShapeShapeAddPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedShapeShapeAddPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  // Throws BuilderError: Match never matches.
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
