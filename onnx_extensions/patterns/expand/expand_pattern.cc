#include "onnx_extensions/patterns/expand/expand_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::IsOp;
using core::builder::StaticDims;

MatchResult ExpandPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Expand") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Expand with two inputs");
  const auto dims = StaticDims(graph, node.input(0));
  if (!dims) return NoMatch(node, "the shape of the input is not static");
  const auto target = ConstantInts(graph, node.input(1));
  if (!target) return NoMatch(node, "the shape input is not constant");
  if (*target != *dims) return NoMatch(node, "the target shape is not the shape of the input");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ExpandPattern::Apply(GraphGraph& graph,
                                                          const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand"});
  const NodeProto& expand = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  *replacement.Add() = core::builder::IdentityNode(graph, kName, expand, expand.input(0), expand.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
