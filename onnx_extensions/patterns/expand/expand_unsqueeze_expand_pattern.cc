#include "onnx_extensions/patterns/expand/expand_unsqueeze_expand_pattern.h"

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/expand/expand_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::ConstantInts;
using core::builder::DerivedNodeName;
using core::builder::IntTensor;
using core::builder::RankOf;
using core::builder::SoleConsumer;

namespace {

// s3: the broadcast of s1 (with a 1 at every axis) and s2 (the rule: a 1 takes the other
// dim); nullopt when a value is not constant or the two do not broadcast.
std::optional<std::vector<std::int64_t>> CombinedTarget(GraphGraph& graph, const NodeProto& first,
                                                        const NodeProto& unsqueeze, const NodeProto& second) {
  const auto s1 = ConstantInts(graph, first.input(1));
  const auto axes = ConstantInts(graph, unsqueeze.input(1));
  const auto s2 = ConstantInts(graph, second.input(1));
  if (!s1 || !axes || !s2) return std::nullopt;
  auto s1u = expand::InsertOnes(*s1, *axes);
  if (!s1u) return std::nullopt;
  const std::size_t rank = std::max(s1u->size(), s2->size());
  std::vector<std::int64_t> a(rank - s1u->size(), 1), b(rank - s2->size(), 1);
  a.insert(a.end(), s1u->begin(), s1u->end());
  b.insert(b.end(), s2->begin(), s2->end());
  for (std::size_t i = 0; i < rank; ++i) {
    if (a[i] == 1) a[i] = b[i];
    else if (b[i] != 1 && b[i] != a[i]) return std::nullopt;
  }
  return a;
}

}  // namespace

MatchResult ExpandUnsqueezeExpandPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  std::string_view why;
  const NodeProto* unsqueeze = expand::UnsqueezeAfterExpand(graph, node, &why);
  if (!unsqueeze) return NoMatch(node, why);
  const NodeProto* second = SoleConsumer(graph, unsqueeze->output(0), "Expand");
  if (!second || second->input(0) != unsqueeze->output(0))
    return NoMatch(node, "the output of the Unsqueeze is not read by an Expand alone");
  const auto s1 = ConstantInts(graph, node.input(1));
  if (!s1) return NoMatch(node, "the shape of the first Expand is not constant");
  if (!ConstantInts(graph, second->input(1))) return NoMatch(node, "the shape of the second Expand is not constant");
  if (RankOf(graph, node.input(0)) != s1->size()) return NoMatch(node, "the first Expand may change the rank");
  if (!CombinedTarget(graph, node, *unsqueeze, *second))
    return NoMatch(node, "the axes are invalid or the two shapes do not broadcast");
  return Matched({&node, unsqueeze, second}, second);
}

utils::RepeatedProtoField<NodeProto> ExpandUnsqueezeExpandPattern::Apply(
    GraphGraph& graph, const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Expand", "Unsqueeze", "Expand"});
  const NodeProto& first = *nodes[0];
  const NodeProto& unsqueeze = *nodes[1];
  const NodeProto& second = *nodes[2];
  const std::string shape =
      graph.MakeInitializer(kName, IntTensor(*CombinedTarget(graph, first, unsqueeze, second)));
  const std::string u = graph.Builder().UniqueName(kName);
  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& moved = *replacement.Add() = unsqueeze;
  moved.set_name(DerivedNodeName(graph, kName, unsqueeze));
  moved.set_input(0, first.input(0));
  moved.set_output(0, u);
  NodeProto& node = *replacement.Add() = second;
  node.set_name(DerivedNodeName(graph, kName, second));
  node.set_input(0, u);
  node.set_input(1, shape);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
