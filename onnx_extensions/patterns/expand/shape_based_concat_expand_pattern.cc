#include "onnx_extensions/patterns/expand/shape_based_concat_expand_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"

namespace onnxopt::onnx_patterns {

using core::builder::DerivedNodeName;
using core::builder::HasOneUse;
using core::builder::IntAttr;
using core::builder::IntTensor;
using core::builder::IsOp;
using core::builder::KnownShape;
using core::builder::ProducerOf;
using core::builder::StaticDims;
using core::shapes::SymShape;

namespace {

// The only dimension where the input and the output of the Expand differ, if exactly one.
std::optional<std::size_t> OnlyDifferingDim(const SymShape& x, const SymShape& y) {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < x.Rank(); ++i) {
    if (x[i] == y[i]) continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

}  // namespace

MatchResult ShapeBasedConcatExpandPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Expand") || node.input_size() != 2)
    return NoMatch(node, "the node is not a default-domain Expand with two inputs");
  const NodeProto* concat = ProducerOf(graph, node.input(1), "Concat");
  if (!concat) return NoMatch(node, "the shape input is not produced by a Concat");
  if (const auto axis = IntAttr(*concat, "axis"); axis != 0 && axis != -1)
    return NoMatch(node, "the Concat does not concatenate along axis 0");
  if (!HasOneUse(graph, node.input(1))) return NoMatch(node, "the shape input has other readers");
  if (graph.IsConstant(node.input(1))) return NoMatch(node, "the shape input is constant");
  const SymShape* x = KnownShape(graph, node.input(0));
  const SymShape* y = KnownShape(graph, node.output(0));
  if (!x || !y) return NoMatch(node, "the shape of the input or of the output is not known");
  if (x->Rank() != y->Rank()) return NoMatch(node, "the Expand changes the rank");
  if (static_cast<std::size_t>(concat->input_size()) != y->Rank())
    return NoMatch(node, "the Concat does not have one input per dimension");
  for (const std::string& piece : concat->input())
    if (StaticDims(graph, piece) != std::vector<std::int64_t>{1})
      return NoMatch(node, "a Concat input does not have shape (1,)");
  const std::optional<std::size_t> p = OnlyDifferingDim(*x, *y);
  if (!p) return NoMatch(node, "the input and the output do not differ in exactly one dimension");
  bool simplifies = false;
  for (int i = 0; i < concat->input_size(); ++i)
    simplifies = simplifies || (static_cast<std::size_t>(i) != *p && !graph.IsConstantScalar(concat->input(i), 1.0));
  if (!simplifies) return NoMatch(node, "the other Concat inputs are already 1");
  return Matched({concat, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> ShapeBasedConcatExpandPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Concat", "Expand"});
  const NodeProto& concat = *nodes[0];
  const NodeProto& expand = *nodes[1];
  const std::size_t p = *OnlyDifferingDim(graph.GetShape(expand.input(0)).shape, graph.GetShape(expand.output(0)).shape);
  const std::string one = graph.MakeInitializer(kName, IntTensor({1}));
  const std::string shape = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& pieces = *replacement.Add() = concat;
  pieces.set_name(DerivedNodeName(graph, kName, concat));
  for (int i = 0; i < pieces.input_size(); ++i)
    if (static_cast<std::size_t>(i) != p) pieces.set_input(i, one);
  pieces.set_output(0, shape);
  NodeProto& node = *replacement.Add() = expand;
  node.set_name(DerivedNodeName(graph, kName, expand));
  node.set_input(1, shape);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
