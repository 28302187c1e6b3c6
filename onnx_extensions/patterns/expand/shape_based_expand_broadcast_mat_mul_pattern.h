#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// MatMul(Expand(a, s), b) => MatMul(a, b) when the Expand only enlarges batch dimensions
/// that broadcasting the other operand gives anyway (symbolic shapes; either operand).
/// Before:  e = Expand(a, s); z = MatMul(e, b)
/// After:   z = MatMul(a, b)                   (e kept while other nodes read it)
/// Not valid for operands of rank 1, when the batch dimensions of the output come from the
/// Expand alone, or when the Expand changes one of the last two (matrix) dimensions.
class ShapeBasedExpandBroadcastMatMulPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "ShapeBasedExpandBroadcastMatMulPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kExact;
  ShapeBasedExpandBroadcastMatMulPattern() : PatternOptimization(1) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override { return {"MatMul"}; }
  MatchResult Match(GraphGraph& graph, const NodeProto& node) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
