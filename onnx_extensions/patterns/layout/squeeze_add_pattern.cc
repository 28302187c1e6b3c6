#include "onnx_extensions/patterns/layout/squeeze_add_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;
using core::builder::OptionalInput;
using core::builder::ProducerOf;
using core::builder::RankOf;

namespace {

// The axes a Squeeze removes from its input of rank `rank`, normalized; nullopt with the
// reason in `why`. Without axes input, only on a static (1,), where the axes are [0] (as
// upstream: Squeeze() of (1,1) removes both dims, which the rewrite would also do, but the
// catalog keeps upstream's condition).
std::optional<layout::Ints> RemovedAxes(GraphGraph& graph, const NodeProto& squeeze, std::size_t rank,
                                        std::string_view* why) {
  if (OptionalInput(squeeze, 1).empty() && core::builder::StaticDims(graph, squeeze.input(0)) != layout::Ints{1})
    return layout::Reject(why, "a Squeeze has no axes input and its input is not of shape (1,)");
  const std::optional<layout::Ints> axes = layout::SqueezedAxes(graph, squeeze, why);
  if (!axes) return std::nullopt;
  std::optional<layout::Ints> normalized = layout::NormalizeAxes(*axes, rank);
  if (!normalized) return layout::Reject(why, "the axes of a Squeeze are out of range or repeated");
  return normalized;
}

// Whether the Squeeze that comes later reads only values defined before the earlier one,
// where the kept Squeezes and the new nodes go when a Squeeze has other readers.
bool InputsReadyAtEarlier(const GraphGraph& graph, const NodeProto& a, const NodeProto& b) {
  const bool a_first = graph.Position(a) < graph.Position(b);
  const NodeProto& earlier = a_first ? a : b;
  const NodeProto& later = a_first ? b : a;
  for (const std::string& input : later.input())
    if (!input.empty() && !layout::DefinedBefore(graph, input, earlier)) return false;
  return true;
}

}  // namespace

MatchResult SqueezeAddPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Add") || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Add with two inputs");
  if (core::builder::OnnxOpset(graph) < 13) return NoMatch(node, "the opset is older than 13");
  const NodeProto* left = ProducerOf(graph, node.input(0), "Squeeze");
  const NodeProto* right = ProducerOf(graph, node.input(1), "Squeeze");
  if (!left || !right) return NoMatch(node, "an input of the Add is not produced by a Squeeze");
  if (left == right) return NoMatch(node, "both inputs come from the same Squeeze");
  if (left->input_size() < 1 || right->input_size() < 1) return NoMatch(node, "a Squeeze has no data input");
  const std::optional<std::size_t> rank = RankOf(graph, left->input(0));
  if (!rank || rank != RankOf(graph, right->input(0)))
    return NoMatch(node, "the inputs of the Squeezes do not have the same known rank");
  std::string_view why;
  const std::optional<layout::Ints> left_axes = RemovedAxes(graph, *left, *rank, &why);
  if (!left_axes) return NoMatch(node, why);
  const std::optional<layout::Ints> right_axes = RemovedAxes(graph, *right, *rank, &why);
  if (!right_axes) return NoMatch(node, why);
  if (*left_axes != *right_axes) return NoMatch(node, "the two Squeezes remove different axes");
  if (core::builder::HasOneUse(graph, node.input(0)) && core::builder::HasOneUse(graph, node.input(1)))
    return Matched({left, right, &node}, &node);
  if (!InputsReadyAtEarlier(graph, *left, *right))
    return NoMatch(node, "a Squeeze has other readers and the other Squeeze reads a value computed after it");
  return Matched({left, right, &node});
}

utils::RepeatedProtoField<NodeProto> SqueezeAddPattern::Apply(GraphGraph& graph,
                                                              const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Squeeze", "Squeeze", "Add"});
  const NodeProto& left = *nodes[0];
  const NodeProto& right = *nodes[1];
  const NodeProto& add = *nodes[2];
  utils::RepeatedProtoField<NodeProto> replacement;
  for (const NodeProto* squeeze : {&left, &right})
    if (!core::builder::HasOneUse(graph, squeeze->output(0))) *replacement.Add() = *squeeze;
  const std::string sum = graph.Builder().UniqueName(kName);
  layout::AddNode(replacement, graph, kName, add, "Add", {left.input(0), right.input(0)}, sum);
  std::vector<std::string> inputs = {sum};
  if (!OptionalInput(left, 1).empty()) inputs.push_back(left.input(1));
  layout::AddNode(replacement, graph, kName, add, "Squeeze", inputs, add.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
