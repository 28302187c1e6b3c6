#pragma once

#include <string_view>

#include "onnx_core/optimizer/pattern.h"

namespace onnxopt::onnx_patterns {

using core::builder::GraphGraph;
using core::builder::MatchResult;
using core::builder::NumericalClass;
using core::builder::PatternOptimization;

/// The float16 mean cross-entropy with ignore_index=-100, summed in float32, as exporters write it
/// => SoftmaxCrossEntropyLoss<ignore_index=-100, reduction="mean">(X, I).
/// Before:  neq = Not(Equal(I, -100)); ui = Unsqueeze(Where(neq, I, zeroi), 1)
///          ng = Neg(Squeeze(GatherElements<axis=1>(LogSoftmax<axis=1>(X), ui), 1))
///          num = ReduceSum<keepdims=0>(Cast<to=FLOAT>(Where(neq, ng, 0)))
///          den = ReduceSum<keepdims=0>(Cast<to=FLOAT>(neq))
///          Y = Div(Cast<to=FLOAT16>(num), Cast<to=FLOAT16>(den))
/// After:   Y = SoftmaxCrossEntropyLoss<ignore_index=-100, reduction="mean">(X, I)
/// Operand positions and the template's attributes as upstream's template matcher; neq is
/// read by three nodes, every other intermediate by one. X must be float16 (the loss keeps
/// X's type) and zerof 0 (it is summed for each ignored sample). Approximate: the fused
/// operator accumulates in its own precision where the graph summed float16 losses in
/// float32.
class SoftmaxCrossEntropyLossCastPattern final : public PatternOptimization {
 public:
  static constexpr std::string_view kName = "SoftmaxCrossEntropyLossCastPattern";
  static constexpr NumericalClass kNumerics = NumericalClass::kApproximate;
  SoftmaxCrossEntropyLossCastPattern() : PatternOptimization(0) {}

  std::string Name() const override { return std::string(kName); }
  std::set<std::string> FastOpType() const override;
  MatchResult Match(GraphGraph& graph, const NodeProto& div) const override;
  utils::RepeatedProtoField<NodeProto> Apply(GraphGraph& graph,
                                             const std::vector<const NodeProto*>& nodes) const override;
};

}  // namespace onnxopt::onnx_patterns
