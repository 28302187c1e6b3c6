#include "onnx_extensions/patterns/layout/unsqueeze_unsqueeze_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::IsOp;
using core::builder::RankOf;

namespace {

// The axes of the single Unsqueeze; nullopt when an axis is out of range or repeated,
// negative while the rank of X is unknown, or composes beyond int64. The caller has checked
// that both axes are constant.
std::optional<layout::Ints> ComposedAxes(GraphGraph& graph, const NodeProto& first, const NodeProto& second) {
  const layout::Ints a1 = *layout::ConstantAxes(graph, first.input(1));
  const layout::Ints a2 = *layout::ConstantAxes(graph, second.input(1));
  std::optional<std::size_t> rank1, rank2;  // the ranks of U and Y
  if (const std::optional<std::size_t> rank = RankOf(graph, first.input(0))) {
    rank1 = *rank + a1.size();
    rank2 = *rank1 + a2.size();
  }
  const std::optional<layout::Ints> n1 = layout::NormalizeAxes(a1, rank1);
  const std::optional<layout::Ints> n2 = layout::NormalizeAxes(a2, rank2);
  if (!n1 || !n2) return std::nullopt;
  return layout::ComposeUnsqueezeAxes(*n1, *n2);
}

}  // namespace

MatchResult UnsqueezeUnsqueezePattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Unsqueeze") || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Unsqueeze with an axes input");
  const std::vector<const NodeProto*> seconds = layout::DataConsumers(graph, node.output(0), "Unsqueeze");
  if (seconds.empty()) return NoMatch(node, "no Unsqueeze reads the output");
  const NodeProto& second = *seconds.front();
  if (second.input_size() != 2) return NoMatch(node, "the second Unsqueeze has no axes input");
  const std::optional<layout::Ints> a1 = layout::ConstantAxes(graph, node.input(1));
  if (!a1) return NoMatch(node, "the axes of the first Unsqueeze are not a constant 1-D tensor");
  const std::optional<layout::Ints> a2 = layout::ConstantAxes(graph, second.input(1));
  if (!a2) return NoMatch(node, "the axes of the second Unsqueeze are not a constant 1-D tensor");
  if (!RankOf(graph, node.input(0))) {
    if (a1->size() > 1 || a2->size() > 1)
      return NoMatch(node, "the rank of the input is unknown and an Unsqueeze has several axes");
    if (layout::HasNegativeAxis(*a1) || layout::HasNegativeAxis(*a2))
      return NoMatch(node, "the rank of the input is unknown and an axis is negative");
  }
  if (!ComposedAxes(graph, node, second)) return NoMatch(node, "the axes are out of range or repeated");
  return Matched({&node, &second});
}

utils::RepeatedProtoField<NodeProto> UnsqueezeUnsqueezePattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Unsqueeze", "Unsqueeze"});
  const NodeProto& first = *nodes[0];
  const NodeProto& second = *nodes[1];
  const std::string axes = graph.MakeInitializer(kName, core::builder::IntTensor(*ComposedAxes(graph, first, second)));
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, first.output(0))) *replacement.Add() = first;
  layout::AddNode(replacement, graph, kName, second, "Unsqueeze", {first.input(0), axes}, second.output(0));
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
