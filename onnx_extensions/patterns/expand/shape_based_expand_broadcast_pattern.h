#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// Op(Expand(a, s), b) => Op(a, b) for a binary elementwise Op when broadcasting the
/// operands gives the output shape anyway (symbolic shapes; either or both operands).
/// Before:  e = Expand(a, s); z = Op(e, b)
/// After:   z = Op(a, b)                       (e kept while other nodes read it)
/// Not valid when the Expand provides a dimension the other operand does not (L = R =
/// (1,1,s,t) with Z = (b,1,s,t)), or when a symbol meets a static dimension other than 1
/// (the symbol may be 1 at run time). Shapes must be known: unknown never matches.
class ShapeBasedExpandBroadcastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedExpandBroadcastPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedExpandBroadcastPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"Add", "And", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "Div", "Max", "Mean", "Min", "Mul", "Mod", "Or", "Sub", "Sum", "Xor", "Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
