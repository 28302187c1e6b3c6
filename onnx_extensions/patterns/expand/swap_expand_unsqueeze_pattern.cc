#include "onnx_extensions/patterns/expand/swap_expand_unsqueeze_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::RankOf;
using core::builder::StaticDims;

namespace {

// The target shape of the Expand: the constant shape input, or the static output shape.
std::optional<std::vector<std::int64_t>> ExpandTarget(GraphGraph& graph, const NodeProto& expand) {
  if (auto target = ConstantInts(graph, expand.input(1))) return target;
  return StaticDims(graph, expand.output(0));
}

// s2: the target with a 1 at every axis of the Unsqueeze.
std::optional<std::vector<std::int64_t>> UnsqueezedTarget(GraphGraph& graph, const NodeProto& expand,
                                                          const NodeProto& unsqueeze) {
  const auto target = ExpandTarget(graph, expand);
  const auto axes = ConstantInts(graph, unsqueeze.input(1));
  if (!target || !axes) return std::nullopt;
  return expand::InsertOnes(*target, *axes);
}

}  // namespace

MatchResult SwapExpandUnsqueezePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  std::string_view why;
  const NodeProto* unsqueeze = expand::UnsqueezeAfterExpand(graph, node, &why);
  if (!unsqueeze) return NoMatch(node, why);
  const auto target = ExpandTarget(graph, node);
  if (!target) return NoMatch(node, "the target shape of the Expand is not known");
  if (RankOf(graph, node.input(0)) != target->size()) return NoMatch(node, "the Expand may change the rank");
  if (!UnsqueezedTarget(graph, node, *unsqueeze)) return NoMatch(node, "the axes of the Unsqueeze are invalid");
  return Matched({&node, unsqueeze}, unsqueeze);
}

utils::RepeatedProtoField<NodeProto> SwapExpandUnsqueezePattern::Apply(GraphGraph& graph,
                                                                       const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand", "Unsqueeze"});
  const NodeProto& expand = *nodes[0];
  const NodeProto& unsqueeze = *nodes[1];
  const std::string shape = graph.MakeInitializer(kName, IntTensor(*UnsqueezedTarget(graph, expand, unsqueeze)));
  const std::string u = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = *replacement.Add() = unsqueeze;
  moved.set_name(DerivedNodeName(graph, kName, unsqueeze));
  moved.set_input(0, expand.input(0));
  moved.set_output(0, u);
  NodeProto& node = *replacement.Add() = expand;
  node.set_name(DerivedNodeName(graph, kName, expand));
  node.set_input(0, u);
  node.set_input(1, shape);
  node.set_output(0, unsqueeze.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
