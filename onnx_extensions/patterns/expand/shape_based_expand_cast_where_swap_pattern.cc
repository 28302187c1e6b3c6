#include "onnx_extensions/patterns/expand/shape_based_expand_cast_where_swap_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::Broadcast;
using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::PadLeft;
using core::builder::ProducerOf;
using core::shapes::SymDim;
using core::shapes::SymShape;

namespace {

// The broadcast of x and o (both padded to the rank of y) takes every dim from y or x.
bool BroadcastWithinOutput(const SymShape& x, const SymShape& o, const SymShape& y) {
  if (x.Rank() > y.Rank() || o.Rank() > y.Rank()) return false;
  const std::vector<SymDim> px = PadLeft(x.Dims(), y.Rank());
  const auto bc = Broadcast(px, PadLeft(o.Dims(), y.Rank()));
  if (!bc) return false;
  for (std::size_t i = 0; i < y.Rank(); ++i)
    if (!((*bc)[i] == y[i]) && !((*bc)[i] == px[i])) return false;
  return true;
}

}  // namespace

MatchResult ShapeBasedExpandCastWhereSwapPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Where") || node.input_size() != 3)
    return NoMatch(node, "the node is not a default-domain Where with three inputs");
  const NodeProto* cast = ProducerOf(graph, node.input(0), "Cast");
  if (!cast || cast->input_size() != 1) return NoMatch(node, "the condition is not produced by a Cast");
  if (!HasOneUse(graph, node.input(0))) return NoMatch(node, "the output of the Cast has other readers");
  const std::string& e = cast->input(0);
  if (node.input(1) == e && node.input(2) == e) return NoMatch(node, "the Cast input is both value branches");
  if (node.input(1) != e && node.input(2) != e) return NoMatch(node, "the Cast input is not a value branch");
  const NodeProto* expand = ProducerOf(graph, e, "Expand");
  if (!expand) return NoMatch(node, "the Cast input is not produced by an Expand");
  if (graph.NextNodes(e).size() != 2 || graph.IsOutput(e) || graph.IsUsedBySubgraph(e))
    return NoMatch(node, "the output of the Expand has other readers");
  const std::string& other = node.input(1) == e ? node.input(2) : node.input(1);
  const SymShape* y = KnownShape(graph, node.output(0));
  const SymShape* c = KnownShape(graph, node.input(0));
  const SymShape* x = KnownShape(graph, expand->input(0));
  const SymShape* o = KnownShape(graph, other);
  if (!y || !c || !x || !o || !KnownShape(graph, e))
    return NoMatch(node, "a shape is not known");
  if (!(*c == *y)) return NoMatch(node, "the condition does not have the output shape");
  if (!BroadcastWithinOutput(*x, *o, *y))
    return NoMatch(node, "the Expand input and the other branch do not broadcast within the output");
  return Matched({expand, cast, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> ShapeBasedExpandCastWhereSwapPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand", "Cast", "Where"});
  const NodeProto& expand = *nodes[0];
  const NodeProto& cast = *nodes[1];
  const NodeProto& where = *nodes[2];
  const std::string c = graph.Builder().UniqueName(kName);
  const std::string w = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& new_cast = *replacement.Add() = cast;
  new_cast.set_name(DerivedNodeName(graph, kName, cast));
  new_cast.set_input(0, expand.input(0));
  new_cast.set_output(0, c);
  NodeProto& new_where = *replacement.Add() = where;
  new_where.set_name(DerivedNodeName(graph, kName, where));
  new_where.set_input(0, c);
  new_where.set_input(where.input(1) == expand.output(0) ? 1 : 2, expand.input(0));
  new_where.set_output(0, w);
  NodeProto& node = *replacement.Add() = expand;
  node.set_name(DerivedNodeName(graph, kName, expand));
  node.set_input(0, w);
  node.set_output(0, where.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
