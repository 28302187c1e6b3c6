#include "onnx_extensions/patterns/expand/shape_based_static_expand_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::shapes::SymShape;

namespace {

// 1 where the dims are equal, the output dim where both are integers; nullopt otherwise.
std::optional<std::vector<std::int64_t>> StaticTarget(const SymShape& x, const SymShape& y) {
  std::vector<std::int64_t> target;
  for (std::size_t i = 0; i < x.Rank(); ++i) {
    if (x[i] == y[i]) {
      target.push_back(1);
    } else if (x[i].IsConstant() && y[i].IsConstant()) {
      target.push_back(*y[i].Constant());
    } else {
      return std::nullopt;
    }
  }
  return target;
}

}  // namespace

MatchResult ShapeBasedStaticExpandPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Expand") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Expand with two inputs");
  if (graph.IsConstant(node.input(1))) return NoMatch(node, "the shape input is constant");
  const SymShape* x = KnownShape(graph, node.input(0));
  const SymShape* y = KnownShape(graph, node.output(0));
  if (!x || !y) return NoMatch(node, "the shape of the input or of the output is not known");
  if (x->Rank() != y->Rank()) return NoMatch(node, "the Expand changes the rank");
  if (!StaticTarget(*x, *y)) return NoMatch(node, "an expanded dimension is symbolic");
  return Matched({&node});
}

utils::RepeatedProtoField<NodeProto> ShapeBasedStaticExpandPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand"});
  const NodeProto& expand = *nodes[0];
  const auto target = StaticTarget(graph.GetShape(expand.input(0)).shape, graph.GetShape(expand.output(0)).shape);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& node = *replacement.Add() = expand;
  node.set_name(DerivedNodeName(graph, kName, expand));
  node.set_input(1, graph.MakeInitializer(kName, IntTensor(*target)));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
