#include "onnx_extensions/patterns/expand/expand_broadcast_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::StaticDims;

MatchResult ExpandBroadcastPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Expand") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Expand with two inputs");
  const auto dims = StaticDims(graph, node.input(0));
  if (!dims) return NoMatch(node, "the shape of the input is not static");
  const auto target = ConstantInts(graph, node.input(1));
  if (!target) return NoMatch(node, "the shape input is not constant");
  if (!HasOneUse(graph, node.output(0))) return NoMatch(node, "the output of the Expand is not read by one node alone");
  const NodeProto& op = *graph.NextNodes(node.output(0)).front();
  if (!expand::IsBinaryElementwise(op)) return NoMatch(node, "the reader is not a binary elementwise node");
  const std::string& other = op.input(0) == node.output(0) ? op.input(1) : op.input(0);
  const auto other_dims = StaticDims(graph, other);
  if (!other_dims || *other_dims != *target) return NoMatch(node, "the other operand does not have the target shape");
  if (dims->size() != target->size()) return NoMatch(node, "the Expand changes the rank");
  for (std::size_t i = 0; i < dims->size(); ++i)
    if ((*dims)[i] != (*other_dims)[i] && (*dims)[i] != 1 && (*other_dims)[i] != 1)
      return NoMatch(node, "the input and the other operand do not broadcast");
  // The other operand may be defined between the Expand and its reader.
  return Matched({&node, &op}, &op);
}

utils::RepeatedProtoField<NodeProto> ExpandBroadcastPattern::Apply(GraphGraph& graph,
                                                                   const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand", nodes.size() == 2 && nodes[1] ? nodes[1]->op_type() : "?"});
  const NodeProto& expand = *nodes[0];
  const NodeProto& op = *nodes[1];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = op;
  node.set_name(DerivedNodeName(graph, kName, op));
  node.set_input(op.input(0) == expand.output(0) ? 0 : 1, expand.input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
