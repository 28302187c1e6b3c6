#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::ProducerOf;
using core::shapes::SymShape;

MatchResult ShapeBasedExpandBroadcastPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!expand::IsBinaryElementwise(node)) return NoMatch(node, "the node is not a binary elementwise node");
  std::string_view why;
  const std::optional<expand::ExpandedOperands> operands = expand::FindExpandedOperands(graph, node, &why);
  if (!operands) return NoMatch(node, why);
  const SymShape* z = operands->output;
  const SymShape* l = operands->sources[0];
  const SymShape* r = operands->sources[1];
  if (std::max(l->Rank(), r->Rank()) < z->Rank()) return NoMatch(node, "the Expand increases the rank");
  if (!expand::BroadcastGivesShape(l->Dims(), r->Dims(), z->Dims()))
    return NoMatch(node, "broadcasting without the Expand does not give the output shape");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedExpandBroadcastPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {{"binary elementwise node", expand::IsBinaryElementwise}});
  const NodeProto& op = *nodes[0];
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = op;
  node.set_name(DerivedNodeName(graph, kName, op));
  for (int i = 0; i < 2; ++i)
    if (const NodeProto* expand = ProducerOf(graph, op.input(i), "Expand")) node.set_input(i, expand->input(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
