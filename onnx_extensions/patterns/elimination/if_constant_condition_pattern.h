#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// If(c) with a constant condition => the nodes of the branch c selects, inlined.
/// Before:  y1, y2 = If(c) <then_branch = g1, else_branch = g2>    (c a constant of one element)
/// After:   the nodes of the taken branch; y1 = Identity(out1), y2 = Identity(out2)
/// Every value the branch defines (node outputs, initializers) gets a new name, unique in
/// the model, and the reads of it are renamed in the graphs nested in the branch too
/// (unless such a graph defines the name itself); the branch initializers become
/// initializers of the enclosing graph. Values of enclosing scopes keep their names. The
/// If's outputs keep their names: each is an Identity of the branch output (a renamed
/// branch value, a new initializer or an enclosing value), which the cleanup then removes
/// where it can. Works in nested graphs alike. Not valid when the condition is not a
/// constant (a graph input is overridable) or holds no or several elements; branches
/// with inputs, sparse initializers or another number of outputs than the If are left
/// alone. Exact.
class IfConstantConditionPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "IfConstantConditionPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  IfConstantConditionPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"If"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
