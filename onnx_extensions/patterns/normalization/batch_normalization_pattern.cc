#include "onnx_extensions/patterns/normalization/batch_normalization_pattern.h"

#include "onnx_core/ir/operator_modes.h"
#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::FloatAttr;
using core::builder::IsConstantFilledWith;
using core::builder::IsOp;
using core::builder::OnnxOpset;

std::set<std::string> BatchNormalizationPattern::FastOpType() const { return {"BatchNormalization"}; }

MatchResult BatchNormalizationPattern::Match(GraphGraph& graph, const NodeProto& bn) const {
  if (!IsOp(bn, "BatchNormalization") || bn.input_size() != 5)
    return NoMatch(bn, "the node is not a default-domain BatchNormalization with five inputs");
  if (const std::string_view trains = core::ir::WhyBatchNormalizationTrains(bn, OnnxOpset(graph)); !trains.empty())
    return NoMatch(bn, trains);
  for (int i = 1; i < bn.output_size(); ++i)
    if (!bn.output(i).empty() && graph.IsUsed(bn.output(i)))
      return NoMatch(bn, "the running mean or variance output is used");
  if (FloatAttr(bn, "epsilon").value_or(1e-5f) != 0.0f) return NoMatch(bn, "epsilon is not 0");
  for (int i = 1; i < 5; ++i)
    if (!graph.GetComputedConstant(bn.input(i))) return NoMatch(bn, "scale, B, mean or var is not a constant");
  if (!IsConstantFilledWith(graph, bn.input(2), 0.0) || !IsConstantFilledWith(graph, bn.input(3), 0.0))
    return NoMatch(bn, "B or mean has an element other than 0");
  if (!IsConstantFilledWith(graph, bn.input(1), 1.0) || !IsConstantFilledWith(graph, bn.input(4), 1.0))
    return NoMatch(bn, "scale or var has an element other than 1");
  return Matched({&bn});
}

utils::RepeatedProtoField<NodeProto> BatchNormalizationPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"BatchNormalization"});
  const NodeProto& bn = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, kName, bn, bn.input(0), bn.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
