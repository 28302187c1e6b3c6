#include "onnx_extensions/patterns/layout/mul_unsqueeze_unsqueeze_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::HasOneUse;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::builder::RankOf;

namespace {

// The axes of an Unsqueeze of an input of rank `rank`, normalized against its output rank;
// nullopt when they are not constant or invalid.
std::optional<layout::Ints> UnsqueezedAxes(GraphGraph& graph, const NodeProto& unsqueeze, std::size_t rank) {
  const std::optional<layout::Ints> axes = layout::ConstantAxes(graph, unsqueeze.input(1));
  if (!axes) return std::nullopt;
  return layout::NormalizeAxes(*axes, rank + axes->size());
}

}  // namespace

MatchResult MulUnsqueezeUnsqueezePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Mul") || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Mul with two inputs");
  if (core::builder::OnnxOpset(graph) < 13) return NoMatch(node, "the opset is older than 13");
  const NodeProto* left = ProducerOf(graph, node.input(0), "Unsqueeze");
  const NodeProto* right = ProducerOf(graph, node.input(1), "Unsqueeze");
  if (!left || !right) return NoMatch(node, "an input of the Mul is not produced by an Unsqueeze");
  if (left->input_size() != 2 || right->input_size() != 2) return NoMatch(node, "an Unsqueeze has no axes input");
  if (!HasOneUse(graph, node.input(0)) || !HasOneUse(graph, node.input(1)))
    return NoMatch(node, "the output of an Unsqueeze has other readers");
  const std::optional<std::size_t> rank = RankOf(graph, left->input(0));
  if (!rank || rank != RankOf(graph, right->input(0)))
    return NoMatch(node, "the inputs of the Unsqueezes do not have the same known rank");
  if (!layout::ConstantAxes(graph, left->input(1)) || !layout::ConstantAxes(graph, right->input(1)))
    return NoMatch(node, "the axes of an Unsqueeze are not a constant 1-D tensor");
  const std::optional<layout::Ints> left_axes = UnsqueezedAxes(graph, *left, *rank);
  const std::optional<layout::Ints> right_axes = UnsqueezedAxes(graph, *right, *rank);
  if (!left_axes || !right_axes) return NoMatch(node, "the axes of an Unsqueeze are out of range or repeated");
  if (*left_axes != *right_axes) return NoMatch(node, "the two Unsqueezes insert different axes");
  return Matched({left, right, &node}, &node);
}

utils::RepeatedProtoField<NodeProto> MulUnsqueezeUnsqueezePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Unsqueeze", "Unsqueeze", "Mul"});
  const NodeProto& left = *nodes[0];
  const NodeProto& right = *nodes[1];
  const NodeProto& mul = *nodes[2];
  utils::RepeatedProtoField<NodeProto> replacement;
  const std::string product = graph.Builder().UniqueName(kName);
  layout::AddNode(replacement, graph, kName, mul, "Mul", {left.input(0), right.input(0)}, product);
  layout::AddNode(replacement, graph, kName, mul, "Unsqueeze", {product, left.input(1)}, mul.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
