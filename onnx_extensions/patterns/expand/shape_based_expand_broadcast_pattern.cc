#include "onnx_extensions/patterns/expand/shape_based_expand_broadcast_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::KnownShape;
using core::builder::ProducerOf;
using core::shapes::SymShape;

MatchResult ShapeBasedExpandBroadcastPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!expand::IsBinaryElementwise(node)) return NoMatch(node, "the node is not a binary elementwise node");
  const NodeProto* left = ProducerOf(graph, node.input(0), "Expand");
  const NodeProto* right = ProducerOf(graph, node.input(1), "Expand");
  if (!left && !right) return NoMatch(node, "no input is produced by an Expand");
  const SymShape* z = KnownShape(graph, node.output(0));
  if (!z || !KnownShape(graph, node.input(0)) || !KnownShape(graph, node.input(1)))
    return NoMatch(node, "the shape of an input or of the output is not known");
  const SymShape* l = KnownShape(graph, left ? left->input(0) : node.input(0));
  const SymShape* r = KnownShape(graph, right ? right->input(0) : node.input(1));
  if (!l || !r) return NoMatch(node, "the shape of an Expand input is not known");
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
