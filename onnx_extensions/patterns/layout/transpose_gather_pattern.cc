#include "onnx_extensions/patterns/layout/transpose_gather_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/layout/layout_matchers.h"

namespace onnxopt::onnx_patterns {

using core::builder::AddIntAttribute;
using core::builder::AddIntsAttribute;
using core::builder::IntAttr;
using core::builder::IntsAttr;
using core::builder::IsOp;
using core::builder::ProducerOf;
using core::builder::RankOf;

namespace {

// The Gather on X: its axis j = p[k] and the Transpose r of its result that restores the
// order of the other axes (nullopt when they are already in increasing order).
struct GatherOnInput {
  std::int64_t axis;
  std::optional<layout::Ints> perm;
};

std::optional<GatherOnInput> MovedGather(const NodeProto& gather, const layout::Ints& perm) {
  const std::optional<std::int64_t> k = core::builder::NormalizeAxis(IntAttr(gather, "axis").value_or(0), perm.size());
  if (!k) return std::nullopt;
  const std::int64_t j = perm[static_cast<std::size_t>(*k)];
  layout::Ints rest;
  for (std::size_t i = 0; i < perm.size(); ++i)
    if (static_cast<std::int64_t>(i) != *k) rest.push_back(perm[i]);
  if (std::is_sorted(rest.begin(), rest.end())) return GatherOnInput{j, std::nullopt};
  // Axis v of X is axis v - (v > j) of the gathered tensor.
  for (std::int64_t& v : rest)
    if (v > j) --v;
  return GatherOnInput{j, rest};
}

}  // namespace

MatchResult TransposeGatherPattern::Match(GraphGraph& graph, const NodeProto& node) const {
  if (!IsOp(node, "Gather") || node.input_size() != 2 || node.output_size() != 1)
    return NoMatch(node, "the node is not a default-domain Gather with two inputs");
  const NodeProto* transpose = ProducerOf(graph, node.input(0), "Transpose");
  if (!transpose) return NoMatch(node, "the data input is not produced by a Transpose");
  if (RankOf(graph, node.input(1)) != 0u) return NoMatch(node, "the index does not have the known rank 0");
  std::string_view why;
  const auto perm = layout::TransposePerm(graph, *transpose, &why);
  if (!perm) return NoMatch(node, why);
  if (!MovedGather(node, *perm)) return NoMatch(node, "the axis of the Gather is out of range");
  if (core::builder::HasOneUse(graph, node.input(0))) return Matched({transpose, &node}, &node);
  // The kept Transpose and the new nodes go where the Transpose is.
  if (!layout::DefinedBefore(graph, node.input(1), *transpose))
    return NoMatch(node, "the Transpose has other readers and the index is computed after it");
  return Matched({transpose, &node});
}

utils::RepeatedProtoField<NodeProto> TransposeGatherPattern::Apply(GraphGraph& graph,
                                                                   const std::vector<const NodeProto*>& nodes) const {
  core::builder::ExpectMatchedNodes(*this, nodes, {"Transpose", "Gather"});
  const NodeProto& transpose = *nodes[0];
  const NodeProto& gather = *nodes[1];
  const GatherOnInput moved = *MovedGather(gather, *IntsAttr(transpose, "perm"));
  utils::RepeatedProtoField<NodeProto> replacement;
  if (!core::builder::HasOneUse(graph, transpose.output(0))) *replacement.Add() = transpose;
  const std::string gathered = moved.perm ? graph.Builder().UniqueName(kName) : gather.output(0);
  NodeProto& node =
      layout::AddNode(replacement, graph, kName, gather, "Gather", {transpose.input(0), gather.input(1)}, gathered);
  AddIntAttribute(node, "axis", moved.axis);
  if (moved.perm) {
    NodeProto& reorder = layout::AddNode(replacement, graph, kName, gather, "Transpose", {gathered}, gather.output(0));
    AddIntsAttribute(reorder, "perm", *moved.perm);
  }
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
