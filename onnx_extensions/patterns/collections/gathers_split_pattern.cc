#include "onnx_extensions/patterns/collections/gathers_split_pattern.h"

#include <algorithm>

#include "onnx_core/optimizer/graph_graph.h"
#include "onnx_core/optimizer/match.h"
#include "onnx_extensions/patterns/collections/collections_matchers.h"

namespace onnxopt::onnx_patterns {

namespace {

using core::builder::ConstantScalarInt;
using core::builder::DerivedNodeName;
using core::builder::IntAttr;
using core::builder::NormalizeAxis;
using core::builder::StaticDim;

bool IsGatherOf(const NodeProto& node, const std::string& x) {
  return core::builder::IsOp(node, "Gather") && node.input_size() == 2 && node.input(0) == x;
}

// The default-domain Gathers reading `x` as their data.
std::vector<const NodeProto*> GathersOf(const GraphGraph& graph, const std::string& x) {
  std::vector<const NodeProto*> gathers;
  for (const NodeProto* user : graph.NextNodes(x))
    if (IsGatherOf(*user, x)) gathers.push_back(user);
  return gathers;
}

// The Gathers with a constant scalar index, sorted by index.
std::vector<const NodeProto*> SplittableGathers(GraphGraph& graph, const std::vector<const NodeProto*>& gathers) {
  std::vector<std::pair<std::int64_t, const NodeProto*>> indexed;
  for (const NodeProto* gather : gathers)
    if (auto i = ConstantScalarInt(graph, gather->input(1))) indexed.emplace_back(*i, gather);
  std::stable_sort(indexed.begin(), indexed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<const NodeProto*> sorted;
  for (const auto& [i, gather] : indexed) sorted.push_back(gather);
  return sorted;
}

}  // namespace

MatchResult GathersSplitPattern::Match(GraphGraph& graph, const NodeProto& anchor) const {
  if (!core::builder::IsOp(anchor, "Gather") || anchor.input_size() != 2)
    return NoMatch(anchor, "the node is not a default-domain Gather with two inputs");
  const std::string& x = anchor.input(0);
  if (!core::builder::RankOf(graph, x)) return NoMatch(anchor, "the rank of the data input is unknown");
  // One match per data value: every Gather of it would look at all of them (n^2).
  if (!core::builder::IsFirstReader(graph, x, anchor, [&](const NodeProto& reader) { return IsGatherOf(reader, x); }))
    return NoMatch(anchor, "an earlier Gather reads the same data");
  const std::vector<const NodeProto*> gathers = GathersOf(graph, x);
  if (gathers.size() < 2) return NoMatch(anchor, "the data input has fewer than two Gather consumers");
  const std::int64_t axis = IntAttr(anchor, "axis").value_or(0);
  for (const NodeProto* gather : gathers)
    if (IntAttr(*gather, "axis").value_or(0) != axis) return NoMatch(anchor, "the Gathers use different axes");
  const std::vector<const NodeProto*> kept = SplittableGathers(graph, gathers);
  if (kept.empty()) return NoMatch(anchor, "no Gather has a constant scalar index");
  const std::size_t index_rank = *collections::ConstantRank(graph, kept[0]->input(1));
  for (std::size_t j = 0; j < kept.size(); ++j) {
    if (j > 0 && *ConstantScalarInt(graph, kept[j]->input(1)) ==
                     *ConstantScalarInt(graph, kept[j - 1]->input(1)))
      return NoMatch(anchor, "two Gathers use the same index");
    if (*ConstantScalarInt(graph, kept[j]->input(1)) != static_cast<std::int64_t>(j))
      return NoMatch(anchor, "the constant indices are not 0, 1, ..., k-1");
    if (*collections::ConstantRank(graph, kept[j]->input(1)) != index_rank)
      return NoMatch(anchor, "the constant indices do not all have the same rank");
  }
  const std::optional<std::int64_t> dim = StaticDim(graph, x, axis);
  if (!dim) return NoMatch(anchor, "the dimension along the axis is not static");
  if (*dim != static_cast<std::int64_t>(kept.size()))
    return NoMatch(anchor, "the number of Gathers is not the dimension along the axis");
  return Matched(kept);
}

utils::RepeatedProtoField<NodeProto> GathersSplitPattern::Apply(GraphGraph& graph,
                                                                const std::vector<const NodeProto*>& nodes) const {
  for (const NodeProto* node : nodes) core::builder::ExpectMatchedNodes(*this, {node}, {"Gather"});
  const NodeProto& first = *nodes.front();
  const std::string& x = first.input(0);
  const std::int64_t axis = *NormalizeAxis(IntAttr(first, "axis").value_or(0), *core::builder::RankOf(graph, x));
  // Scalar indices drop the axis: each piece is squeezed.
  const bool squeeze = collections::ConstantRank(graph, first.input(1)) == std::size_t{0};

  utils::RepeatedProtoField<NodeProto> replacement;
  NodeProto& split = *replacement.Add();
  split.set_op_type("Split");
  split.set_name(DerivedNodeName(graph, kName, first));
  split.add_input(x);
  core::builder::AddIntAttribute(split, "axis", axis);
  collections::SetSplitOnes(graph, kName, split, static_cast<std::int64_t>(nodes.size()));
  std::vector<std::string> pieces;
  for (const NodeProto* gather : nodes)
    pieces.push_back(squeeze ? graph.Builder().UniqueName(kName) : gather->output(0));
  for (const std::string& piece : pieces) split.add_output(piece);
  if (squeeze)
    for (std::size_t j = 0; j < nodes.size(); ++j)
      collections::AddSqueeze(graph, kName, *nodes[j], replacement, pieces[j], nodes[j]->output(0), axis);
  return replacement;
}

}  // namespace onnxopt::onnx_patterns
