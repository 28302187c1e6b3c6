#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Add(Concat(A, 0), Concat(0, B)) => Concat(A, B): a "rotate half" built from two zero-padded
/// halves, where one of A, B is Neg(P) and the other Q, with P and Q the two outputs of one
/// Split, or two Slices of one tensor, along the Concat axis.
/// Before:  z = ConstantOfShape<value=0>(shape)
///          l = Concat<axis=k>(A, z); r = Concat<axis=k>(z', B); Y = Add(l, r)   (Add operands in any order)
/// After:   Y = Concat<axis=k>(A, B)      (the ConstantOfShape nodes are removed once unused)
/// Valid only when every position of the sum has one zero operand: the zero blocks hold 0,
/// sit at opposite positions, the zero block of r is as wide as A along k and the two
/// Concat results have one shape (so the Add does not broadcast). Exact, except that
/// -0 + 0 gives +0 where the Concat keeps -0.
class RotaryConcatPartPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "RotaryConcatPartPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  RotaryConcatPartPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
