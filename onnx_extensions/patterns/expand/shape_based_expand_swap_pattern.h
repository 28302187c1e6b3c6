#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Expand(a, s), b) => Expand(Op(a, b), s) for a binary elementwise Op, when the
/// operation can run on the smaller tensors (symbolic shapes); also with both operands
/// expanded by the same shape tensor.
/// Before:  e = Expand(a, s); z = Op(e, b)      or  z = Op(Expand(a, s), Expand(b, s))
/// After:   t = Op(a, b); z = Expand(t, s)      (an Expand kept while other nodes read it)
/// Not valid when the output is larger than the Expand output, when two Expands use
/// different shape tensors, when a symbol meets a static dimension other than 1; useless
/// when the other operand already has the expanded shape (ShapeBasedExpandBroadcast).
class ShapeBasedExpandSwapPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedExpandSwapPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedExpandSwapPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add", "And", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div", "Max", "Mean", "Min", "Mul", "Mod", "Or", "Sub", "Sum", "Xor", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
